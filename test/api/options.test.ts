import { describe, expect, it } from 'vitest';
import { isLoopbackHost, normalizeBaseUrl, parseServiceAddress, resolveRequestPath } from '../../src/api/base-url.js';
import { clientOptionsFromEnv } from '../../src/api/options.js';
import { ClientConfigError } from '../../src/api/types.js';

const KEY = 'KEYID_ABC';
const SECRET = 'very-secret-value-123';

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a throw');
}

describe('clientOptionsFromEnv', () => {
  it('reads SVC_BASE_URL, SVC_API_KEY_ID and SVC_API_SECRET', () => {
    expect(clientOptionsFromEnv({ SVC_BASE_URL: 'https://acme.example.net/', SVC_API_KEY_ID: KEY, SVC_API_SECRET: SECRET }, {})).toEqual({
      baseUrl: 'https://acme.example.net',
      keyId: KEY,
      secret: SECRET,
    });
  });

  it('prefers --base-url over SVC_BASE_URL', () => {
    const opts = clientOptionsFromEnv({ SVC_BASE_URL: 'https://env.example.net', SVC_API_KEY_ID: KEY, SVC_API_SECRET: SECRET }, { baseUrl: 'http://127.0.0.1:8080' });
    expect(opts.baseUrl).toBe('http://127.0.0.1:8080');
  });

  it('names every missing variable and no value', () => {
    const all = errorOf(() => clientOptionsFromEnv({}, {}));
    expect(all).toBeInstanceOf(ClientConfigError);
    expect(all.message).toContain('SVC_BASE_URL');
    expect(all.message).toContain('--base-url');
    expect(all.message).toContain('SVC_API_KEY_ID');
    expect(all.message).toContain('SVC_API_SECRET');
    const one = errorOf(() => clientOptionsFromEnv({ SVC_API_KEY_ID: KEY, SVC_API_SECRET: '  ' }, { baseUrl: 'https://x.example.net' }));
    expect(one.message).toContain('SVC_API_SECRET');
    expect(one.message).not.toContain('SVC_API_KEY_ID');
    expect(one.message).not.toContain('SVC_BASE_URL');
    expect(one.message).not.toContain(KEY);
  });

  it('requires HTTPS except for loopback hosts', () => {
    const env = { SVC_API_KEY_ID: KEY, SVC_API_SECRET: SECRET };
    const remote = errorOf(() => clientOptionsFromEnv({ ...env, SVC_BASE_URL: 'http://svc.example.net:8080' }, {}));
    expect(remote).toBeInstanceOf(ClientConfigError);
    expect(remote.message).toContain('HTTPS is required for svc.example.net');
    for (const local of ['http://127.0.0.1:1234', 'http://127.5.6.7', 'http://localhost:3000', 'http://[::1]:9000']) {
      expect(clientOptionsFromEnv({ ...env, SVC_BASE_URL: local }, {}).baseUrl).toBe(local);
    }
  });

  it('rejects a URL that does not parse without echoing it', () => {
    const err = errorOf(() => clientOptionsFromEnv({ SVC_API_KEY_ID: KEY, SVC_API_SECRET: SECRET }, { baseUrl: `not a url ${SECRET}` }));
    expect(err).toBeInstanceOf(ClientConfigError);
    expect(err.message).toContain('--base-url is not a valid URL');
    expect(err.message).not.toContain(SECRET);
  });
});

describe('base URL', () => {
  it('strips trailing slashes, keeps a path prefix, and drops a pasted /api/v2', () => {
    expect(normalizeBaseUrl('https://acme.example.net///', 'x')).toBe('https://acme.example.net');
    expect(normalizeBaseUrl('https://acme.example.net/tenant/a/', 'x')).toBe('https://acme.example.net/tenant/a');
    expect(normalizeBaseUrl('https://acme.example.net/api/v2/', 'x')).toBe('https://acme.example.net');
    expect(normalizeBaseUrl('HTTPS://ACME.example.net:443', 'x')).toBe('https://acme.example.net');
  });

  it('refuses other schemes, credentials in the URL, queries and fragments', () => {
    expect(() => normalizeBaseUrl('ftp://acme.example.net', 'x')).toThrow(ClientConfigError);
    const creds = errorOf(() => normalizeBaseUrl(`https://user:${SECRET}@acme.example.net`, 'SVC_BASE_URL'));
    expect(creds).toBeInstanceOf(ClientConfigError);
    expect(creds.message).not.toContain(SECRET);
    expect(() => normalizeBaseUrl('https://acme.example.net/?a=1', 'x')).toThrow('query');
    expect(() => normalizeBaseUrl('https://acme.example.net/#f', 'x')).toThrow('fragment');
  });

  it('knows loopback hosts', () => {
    expect(['localhost', '127.0.0.1', '127.255.0.9', '[::1]', '::1'].map(isLoopbackHost)).toEqual([true, true, true, true, true]);
    expect(['127.0.0.1.example.net', '10.0.0.1', '0.0.0.0', 'localhost.example.net', '[::2]'].map(isLoopbackHost)).toEqual([false, false, false, false, false]);
  });

  it('resolves request paths under the prefix and nowhere else', () => {
    const address = parseServiceAddress('https://acme.example.net/p', 'x');
    expect(resolveRequestPath('/api/v2/AlertRules', address)).toBe('/p/api/v2/AlertRules');
    expect(resolveRequestPath('https://acme.example.net/p/api/v2/X?page=2', address)).toBe('/p/api/v2/X?page=2');
    expect(() => resolveRequestPath('https://acme.example.net/api/v2/X', address)).toThrow(ClientConfigError);
    expect(() => resolveRequestPath('https://acme.example.net:8443/p/api/v2/X', address)).toThrow('refusing to send credentials');
    expect(() => resolveRequestPath('http://acme.example.net/p/api/v2/X', address)).toThrow('refusing to send credentials');
    expect(() => resolveRequestPath('/api/v2x/AlertRules', address)).toThrow('must start with /api/v2');
    expect(() => resolveRequestPath('api/v2/AlertRules', address)).toThrow(ClientConfigError);
    expect(() => resolveRequestPath('/api/v2/Alert Rules', address)).toThrow('encoded');
  });
});
