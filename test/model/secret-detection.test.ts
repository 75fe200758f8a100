import { describe, expect, it } from 'vitest';
import {
  emptyPointers,
  isMaskedValue,
  maskedByDefinition,
  isSecretName,
  maskedPointers,
  nameWords,
  secretNamePointers,
  secretNamesHeld,
  withoutWithheld,
} from '../../src/model/secret-detection.js';

describe('isSecretName', () => {
  // Names that hold a credential, in every spelling convention.
  const secrets = [
    'password',
    'Password',
    'PASSWORD',
    'passwd',
    'db_passwd',
    'pwd',
    'userPwd',
    'passphrase',
    'keyPassphrase',
    'secret',
    'clientSecret',
    'client_secret',
    'client-secret',
    'CLIENT_SECRET',
    'signingSecret',
    'accessKeySecret',
    'secretAccessKey',
    'secret_key',
    'token',
    'hecToken',
    'apiToken',
    'access_token',
    'refreshToken',
    'BEARER_TOKEN',
    'x-auth-token',
    'apiKey',
    'api_key',
    'x_api_key',
    'X-API-KEY',
    'APIKEY',
    'apikey',
    'ddApiKey',
    'apiIntgKey',
    'privateKey',
    'private_key',
    'PRIVATE-KEY',
    'privateKeyPem',
    'privatekey',
    'accessKey',
    'insertKey',
    'signingKey',
    'licenseKey',
    'sharedKey',
    'storageAccountKey',
    'integrationKey',
    'routingKey',
    'appKey',
    'credential',
    'credentials',
    'connectionString',
    'authorization',
    'dbPass',
    'passwordHash',
    'apiKeyValue',
    'apiKeys',
    'apiKey2',
    'password_1',
    'signingSecretV2',
    'serviceAccountKeyJson',
    'credentialsBase64',
    'privateKeyContents',
    'sasToken',
    'authToken',
  ];
  // Names that identify or configure a credential, or have nothing to do with one.
  const plain = [
    'keyId',
    'accessKeyId',
    'access_key_id',
    'AWS_ACCESS_KEY_ID',
    'privateKeyId',
    'private_key_id',
    'tokenUrl',
    'token_uri',
    'tokenAlias',
    'tokenType',
    'tokenExpiry',
    'passwordPolicy',
    'passwordMinLength',
    'secretArn',
    'secretName',
    'secretVersion',
    'apiKeyHeader',
    'keyFingerprint',
    'fingerprint',
    'clientId',
    'clientEmail',
    'tenantId',
    'externalId',
    'roleArn',
    'username',
    'userName',
    'key',
    'tagKey',
    'sortKey',
    'partitionKey',
    'keyName',
    'passThrough',
    'bypass',
    'hasPassword',
    'usePrivateKey',
    'isTokenValid',
    'tokenizer',
    'secretary',
    'credentialsFile',
    'credentialType',
    'issueGrouping',
    'queueUrl',
    'scanFrequency',
    'monitoredAccounts',
    'tokenExpiresAt',
    'clientSecretExpiry',
    'hecTokenChannel',
    'kmsKey',
    'kmsKeyArn',
    'publicKey',
    'secretsManagerArn',
    'sasUrl',
    'webhookUrl',
  ];
  it.each(secrets)('%s is a secret', (name) => expect(isSecretName(name)).toBe(true));
  it.each(plain)('%s is not a secret', (name) => expect(isSecretName(name)).toBe(false));

  it('reads a name of any length from the service in bounded time, by its end', () => {
    expect(isSecretName('A'.repeat(1_000_000) + 'Token')).toBe(true);
    expect(isSecretName('A'.repeat(1_000_000))).toBe(false);
  });

  it('splits names at humps, acronyms and separators', () => {
    expect(nameWords('hecToken')).toEqual(['hec', 'token']);
    expect(nameWords('APIKey')).toEqual(['api', 'key']);
    expect(nameWords('x_api-key.v2')).toEqual(['x', 'api', 'key', 'v2']);
  });
});

describe('isSecretName: verdicts kept by name, in a bounded cache', () => {
  it('judges each name once (the cache grows by one per new name) and never holds more than 4,096 names', () => {
    const before = secretNamesHeld();
    for (let i = 0; i < 100; i++) expect(isSecretName(`cacheProbe${i}Token`)).toBe(true);
    for (let i = 0; i < 100; i++) isSecretName(`cacheProbe${i}Token`);
    expect(secretNamesHeld()).toBe(before + 100);
    // Names from files and the service, without end: the cache starts over rather than grow.
    let most = 0;
    for (let i = 0; i < 6000; i++) {
      expect(isSecretName(`flood${i}Label`)).toBe(false);
      most = Math.max(most, secretNamesHeld());
    }
    expect(most).toBe(4096);
    expect(isSecretName('password')).toBe(true);
  });
});

describe('isMaskedValue', () => {
  const masks = ['****', '***', '********', '*****abc', 'ab****', '****-****-1234', '••••••', 'xxxx', 'XXXXXXXX1234', '[redacted]', '<REDACTED>', 'REDACTED', '(sensitive)', ' **** '];
  const values = ['', 'secret', 'abc', '**', 'x', 'xxx', 'Xbox', 'a*b', 'sk-*-live', 'hello world', '* * *', 'index.docker.io', 'hidden', 'masked', 'CANARY-1-abcdef****'];
  it.each(masks)('%j is a mask', (v) => expect(isMaskedValue(v)).toBe(true));
  it.each(values)('%j is not a mask', (v) => expect(isMaskedValue(v)).toBe(false));
  it('only strings are masks', () => {
    for (const v of [null, true, 0, 1234, [], {}, undefined]) expect(isMaskedValue(v as never)).toBe(false);
  });

  it('the pre-filter changes no verdict (20,000 strings of mask characters, brackets and words)', () => {
    const pieces = ['*', '•', '●', '∙', '·', 'x', 'X', 'a', '1', ' ', '\u00a0', '-', '.', '[', ']', '(', ')', '<', '>', '{', '}', 'redacted', 'REDACTED', 'masked', 'secret'];
    let seed = 21;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return Math.floor(seed / 65536) % n;
    };
    let masks = 0;
    for (let i = 0; i < 20_000; i++) {
      let v = '';
      for (let k = next(12); k >= 0; k--) v += pieces[next(pieces.length)];
      // A bracketed word now and then: `[redacted]`, `( secret )`.
      if (next(4) === 0) v = ['[', '(', '<', '{', ' ['][next(5)] + pieces[21 + next(4)] + [']', ')', '>', '}', '] '][next(5)];
      const expected = maskedByDefinition(v);
      if (expected) masks++;
      expect(isMaskedValue(v), JSON.stringify(v)).toBe(expected);
    }
    // The strings reach both verdicts often enough for the comparison to mean something.
    expect(masks).toBeGreaterThan(500);
  });
});

describe('pointers of secrets, masks and empties', () => {
  const data = {
    credentials: { clientId: 'id', clientSecret: 'CANARY-1', privateKeyId: 'kid' },
    nested: { deeper: { hecToken: 'CANARY-2', tokenUrl: 'https://x' } },
    apiKeys: ['CANARY-3', 'CANARY-4'],
    hooks: [{ name: 'a', signingSecret: 'CANARY-5' }],
    password: { value: 'CANARY-6', hint: 'h' },
    hasPassword: true,
    pwd: null,
    region: '****',
    note: '',
    'a/b': { token: 'CANARY-7' },
  };
  it('finds every secret-named member at any depth, nothing else', () => {
    expect(secretNamePointers(data, '/data').sort()).toEqual(
      [
        '/data/credentials/clientSecret',
        '/data/nested/deeper/hecToken',
        '/data/apiKeys',
        '/data/hooks/0/signingSecret',
        '/data/password/value',
        '/data/a~1b/token',
      ].sort(),
    );
  });
  it('finds masked and empty values at any depth', () => {
    expect(maskedPointers({ a: { b: ['x', '****'] }, c: '[redacted]', d: 'plain' }, '/data')).toEqual(['/data/a/b/1', '/data/c']);
    expect(emptyPointers({ a: { b: '' }, c: 'x', d: [''] }, '/data')).toEqual(['/data/a/b', '/data/d/0']);
  });
});

describe('withoutWithheld (the live rest of an update)', () => {
  const live = {
    type: 'FutureCfg',
    data: {
      region: 'eu',
      password: '****',
      credentials: { clientId: 'id', clientSecret: '' },
      keys: ['****', '****'],
      note: '',
      deep: { a: { b: '*****abc', c: 'kept' } },
    },
  };
  it('leaves out every member the live record held masked or empty and the file does not set', () => {
    const declared = { type: 'FutureCfg', data: { region: 'us' } };
    const carried = { type: 'FutureCfg', data: { ...structuredClone(live.data), region: 'us' } };
    const out = withoutWithheld(carried, live, declared, ['/data']);
    expect(out).toEqual({ type: 'FutureCfg', data: { region: 'us', credentials: { clientId: 'id' }, deep: { a: { c: 'kept' } } } });
    expect(JSON.stringify(out)).not.toMatch(/\*\*\*|""/);
  });
  it('keeps what the file sets itself, even where the live record held a mask', () => {
    const declared = { type: 'FutureCfg', data: { password: 'from-env', note: '' } };
    const carried = { type: 'FutureCfg', data: { ...structuredClone(live.data), password: 'from-env' } };
    const out = withoutWithheld(carried, live, declared, ['/data']);
    expect(out.data).toMatchObject({ password: 'from-env', note: '' });
  });
  it('names every member it leaves out, sorted, for the plan to warn about (and needs no list to be given)', () => {
    const declared = { type: 'FutureCfg', data: { region: 'us' } };
    const carried = { type: 'FutureCfg', data: { ...structuredClone(live.data), region: 'us' } };
    const left: string[] = [];
    withoutWithheld(carried, live, declared, ['/data'], left);
    expect(left).toEqual(['/data/credentials/clientSecret', '/data/deep/a/b', '/data/keys', '/data/note', '/data/password']);
    expect(withoutWithheld(carried, live, declared, ['/data'])).toEqual(withoutWithheld(carried, live, declared, ['/data'], []));
  });
  it('touches nothing outside the open objects', () => {
    const spec = { data: {}, top: '****' };
    expect(withoutWithheld(spec, { data: {}, top: '****' }, { data: {} }, ['/data'])).toEqual(spec);
  });
});
