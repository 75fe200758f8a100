// Every word of the secret-name rule on its own (src/model/secret-detection.ts): a qualifier, an
// encoding word or a flag word dropped from its list fails exactly the case that names it.
import { describe, expect, it } from 'vitest';
import {
  emptyPointers,
  isMaskedValue,
  isSecretName,
  maskedPointers,
  nameWords,
  secretNamePointers,
  withoutWithheld,
} from '../../src/model/secret-detection.js';

const QUALIFIERS = [
  'api', 'private', 'secret', 'access', 'insert', 'signing', 'sign', 'encryption', 'decryption', 'master', 'shared',
  'license', 'licence', 'auth', 'account', 'storage', 'integration', 'intg', 'service', 'client', 'subscription',
  'webhook', 'hmac', 'session', 'routing', 'app', 'application', 'ingest', 'ingestion', 'instrumentation', 'write',
  'admin', 'user', 'ssh', 'pgp', 'gpg', 'rsa', 'aes', 'sas', 'primary', 'secondary',
];
const ENCODINGS = [
  'value', 'values', 'data', 'text', 'string', 'content', 'contents', 'json', 'pem', 'b64', 'base64', 'encoded',
  'encrypted', 'hash', 'raw', 'plain', 'material', 'bytes', 'hex',
];
const FLAGS = ['is', 'has', 'use', 'uses', 'enable', 'require', 'requires', 'allow', 'show', 'skip', 'no', 'num'];
const NOUNS = [
  'password', 'passwd', 'pwd', 'passphrase', 'passcode', 'secret', 'token', 'credential', 'apikey', 'privatekey',
  'secretkey', 'accesskey', 'signingkey', 'insertkey', 'authorization', 'connectionstring', 'cookie',
];
const cap = (w: string): string => w[0]!.toUpperCase() + w.slice(1);

describe('the words of the secret-name rule, one by one', () => {
  it.each(QUALIFIERS)('%s before key makes a credential: xy_%s_key and %skey', (q) => {
    expect(isSecretName(`xy_${q}_key`)).toBe(true);
    expect(isSecretName(`${q}key`)).toBe(true);
    expect(isSecretName(`${q}Keys`)).toBe(true);
  });

  it('key after a word that is no qualifier is no credential, as a word or a compound', () => {
    for (const name of ['xy_sort_key', 'sortkey', 'tag_keys', 'monkey', 'keys']) expect(isSecretName(name), name).toBe(false);
  });

  it.each(ENCODINGS)('a trailing %s only says how the secret is held', (w) => {
    expect(isSecretName(`db${cap('password')}${cap(w)}`)).toBe(true);
    expect(isSecretName(`xy_private_key_${w}`)).toBe(true);
  });

  it('an encoding word alone or after a plain word is no secret', () => {
    for (const name of ['value', 'rawValue', 'regionHash', 'dataText']) expect(isSecretName(name), name).toBe(false);
  });

  it.each(FLAGS)('a name opening with %s is a flag, not a secret', (f) => {
    expect(isSecretName(`${f}Password`)).toBe(false);
    expect(isSecretName(`${f}_api_key`)).toBe(false);
  });

  it('a flag word alone, or not first, does not hide a secret', () => {
    expect(isSecretName('is')).toBe(false);
    expect(isSecretName('tokenIs')).toBe(false);
    expect(isSecretName('userIsPassword')).toBe(true);
  });

  it.each(NOUNS)('%s is a credential alone, in plural, as a compound ending and as the head', (n) => {
    expect(isSecretName(n)).toBe(true);
    expect(isSecretName(`${n}s`)).toBe(true);
    expect(isSecretName(`hec${n}`)).toBe(true);
    expect(isSecretName(`my_${n}`)).toBe(true);
    expect(isSecretName(`${n}_id`)).toBe(false);
  });

  it('version digits are dropped, and a name of digits only is nothing', () => {
    expect(isSecretName('token_v2')).toBe(true);
    expect(isSecretName('secret2')).toBe(true);
    expect(isSecretName('v2')).toBe(false);
    expect(isSecretName('123')).toBe(false);
    expect(isSecretName('')).toBe(false);
    expect(isSecretName('_-.')).toBe(false);
  });

  it('pass makes a secret only as the head', () => {
    expect(isSecretName('dbPass')).toBe(true);
    expect(isSecretName('pass')).toBe(true);
    expect(isSecretName('passThrough')).toBe(false);
    expect(isSecretName('passes')).toBe(false);
  });
});

describe('the secret-name rule at its edges', () => {
  it('a qualifier anywhere before key makes it a credential: api_blob_key', () => {
    for (const q of QUALIFIERS) expect(isSecretName(`${q}_blob_key`), q).toBe(true);
  });

  it('a compound key word must end in key: sshkeyring is no credential', () => {
    expect(isSecretName('sshkeyring')).toBe(false);
    expect(isSecretName('sshkeys')).toBe(true);
  });

  it('leading and trailing separators make no empty words', () => {
    expect(nameWords('_api__key_')).toEqual(['api', 'key']);
  });

  it('only the last 128 characters of a name are read', () => {
    expect(nameWords(`a_${'b'.repeat(200)}`)).toEqual(['b'.repeat(128)]);
  });

  it('a trailing separator or a version prefix does not hide the head or the flag', () => {
    expect(isSecretName('token_')).toBe(true);
    expect(isSecretName('v2IsPassword')).toBe(false);
    expect(isSecretName('v2_password')).toBe(true);
  });

  it('version suffixes: only v<digits> words and trailing digits are dropped', () => {
    expect(isSecretName('token_v22')).toBe(true);
    expect(isSecretName('apiToken12')).toBe(true);
    expect(isSecretName('token_2fa')).toBe(false);
    expect(isSecretName('token_v2beta')).toBe(false);
    expect(isSecretName('token_xv2')).toBe(false);
    expect(isSecretName('to2ken')).toBe(false);
  });

  it('words that spell a noun together make a secret even before an encoding word: passWordHash', () => {
    expect(isSecretName('passWordHash')).toBe(true);
    expect(isSecretName('connectionString')).toBe(true);
  });
});

describe('isMaskedValue at its edges', () => {
  it.each(['[ REDACTED ]', '( masked )', '<hidden>', '{filtered}', '{ removed }', '[encrypted]', '[secret]', ' [redacted] ', ' redacted '])(
    '%j is a mask',
    (v) => expect(isMaskedValue(v)).toBe(true),
  );

  it.each(['x[redacted]', '[redacted] y', '[-redacted]', '[redacted-]', 'redacted info', 'unredacted', 'xXxX', 'XxXx'])('%j is not a mask', (v) =>
    expect(isMaskedValue(v)).toBe(false),
  );

  it('mask characters must be at least half of what is visible', () => {
    expect(isMaskedValue('***abc')).toBe(true);
    expect(isMaskedValue('***abcd')).toBe(false);
  });

  it('at most 6 visible characters besides the mask', () => {
    expect(isMaskedValue('*******abcdef')).toBe(true);
    expect(isMaskedValue('********abcdefg')).toBe(false);
  });
});

describe('pointers at their edges', () => {
  it('a secret-named null or boolean is no secret', () => {
    expect(secretNamePointers({ token: true, password: false, apiKey: null }, '')).toEqual([]);
  });

  it('a list under a secret name mixing values and objects is walked, its objects read as secret context', () => {
    expect(secretNamePointers({ apiKeys: ['a', { value: 'x', note: 'n' }] }, '')).toEqual(['/apiKeys/1/value']);
  });

  it('encoding words at the top are not secret without a secret-named holder', () => {
    expect(secretNamePointers({ value: 'x', data: 'y' }, '')).toEqual([]);
  });

  it('masked and empty values are found below the value, never the value itself, never in null', () => {
    expect(maskedPointers(['x', '****'], '/d')).toEqual(['/d/1']);
    expect(maskedPointers('****', '/d')).toEqual([]);
    expect(maskedPointers(null, '/d')).toEqual([]);
    expect(maskedPointers(undefined, '/d')).toEqual([]);
    expect(emptyPointers({ a: '' }, '')).toEqual(['/a']);
  });
});

describe('withoutWithheld at its edges', () => {
  it('a member whose carried value is not the live one is kept even where the live record held a mask', () => {
    const out = withoutWithheld({ data: { password: 'new' } }, { data: { password: '****' } }, { data: {} }, ['/data']);
    expect(out).toEqual({ data: { password: 'new' } });
  });

  it('the whole record is open with the pointer ""', () => {
    expect(withoutWithheld({ a: '****', b: 1 }, { a: '****', b: 1 }, {}, [''])).toEqual({ b: 1 });
  });
});
