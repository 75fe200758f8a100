// Every word of the secret-name rule on its own (src/model/secret-detection.ts): a qualifier, an
// encoding word or a flag word dropped from its list fails exactly the case that names it.
import { describe, expect, it } from 'vitest';
import { isSecretName } from '../../src/model/secret-detection.js';

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
