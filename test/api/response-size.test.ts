// Response bodies are read as a stream with a size limit: a Content-Length over it is refused before
// reading, a stream is cut off as soon as it passes it, the error is permanent (not repeated) and says
// where, the limit and how to raise it. The pages of a list count together. The reads of one client
// (one run) are bounded together too, in records and in bytes.

import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { clientOptionsFromEnv, DEFAULT_MAX_RECORDS, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_MAX_TOTAL_BYTES, parseByteSize, parseCount, sizeText } from '../../src/api/options.js';
import { ApiError, type ApiClient, ClientConfigError } from '../../src/api/types.js';
import { KEY_ID, SECRET } from './helpers.js';

const LIMIT = 16 * 1024;

interface Hostile {
  url: string;
  /** Requests per path (token exchange included). */
  hits: Map<string, number>;
  /** Bytes the endless stream wrote before the client hung up, and whether it did. */
  streamed: { bytes: number; closed: boolean };
  close(): Promise<void>;
}

/** A service that answers the token exchange, then sends bodies of the size each path asks for. */
async function hostile(): Promise<Hostile> {
  const hits = new Map<string, number>();
  const streamed = { bytes: 0, closed: false };
  const json = (res: ServerResponse, status: number, text: string) => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
    res.end(text);
  };
  /** `{"data":[...]}` of exactly `n` bytes. */
  const bodyOf = (n: number) => `{"data":["${'x'.repeat(n - 13)}"]}`;
  const server: Server = createServer((req, res) => {
    req.resume();
    const path = (req.url ?? '').split('?')[0];
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path.endsWith('/access/tokens')) return json(res, 201, JSON.stringify({ token: 'tok-0123456789abcdefghijklmn', expiresAt: new Date(Date.now() + 3600_000).toISOString() }));
    const exact = /^\/api\/v2\/Exact\/(\d+)$/.exec(path);
    if (exact) return json(res, 200, bodyOf(Number(exact[1])));
    // A list of n records (a write to the same path answers the same).
    const records = /^\/api\/v2\/Records\/(\d+)(\/search)?$/.exec(path);
    if (records) return json(res, 200, JSON.stringify({ data: Array.from({ length: Number(records[1]) }, (_, i) => ({ id: `r${i}` })) }));
    // An error whose body is n bytes: not kept, so it does not count.
    const refused = /^\/api\/v2\/Refused\/(\d+)$/.exec(path);
    if (refused) return json(res, 404, `{"message":"${'m'.repeat(Number(refused[1]) - 14)}"}`);
    if (path === '/api/v2/Declared') {
      // Announces 10 MiB and sends a little: refused on the header alone.
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024) });
      res.write('{"data":[');
      return;
    }
    if (path === '/api/v2/Endless' || path === '/api/v2/Write') {
      // Chunked, no length, never ends: only the client's limit stops it.
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
      res.on('close', () => (streamed.closed = true));
      const chunk = Buffer.alloc(4096, 'x');
      const pump = (): void => {
        while (!res.destroyed) {
          streamed.bytes += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
      };
      res.write('{"data":["');
      pump();
      return;
    }
    json(res, 404, '{"message":"no such path"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    streamed,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const failure = (p: Promise<unknown>): Promise<ApiError> =>
  p.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e as ApiError,
  );

describe('response size limit', () => {
  let service: Hostile;
  let client: ApiClient;
  beforeAll(async () => {
    service = await hostile();
  });
  afterAll(async () => {
    await service.close();
  });
  beforeEach(async () => {
    await client?.close();
    service.hits.clear();
    // No waits between retries: a retry, if any, would show in the hit count at once.
    client = createClient({ baseUrl: service.url, keyId: KEY_ID, secret: SECRET, maxResponseBytes: LIMIT, sleep: async () => undefined });
  });

  it('a body of exactly the limit is read; one byte more is refused', async () => {
    const ok = await client.request({ method: 'GET', path: `/api/v2/Exact/${LIMIT}` });
    expect(ok.bytes).toBe(LIMIT);
    expect((ok.body as { data: string[] }).data[0]).toHaveLength(LIMIT - 13);
    const err = await failure(client.request({ method: 'GET', path: `/api/v2/Exact/${LIMIT + 1}` }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.kind).toBe('permanent');
  });

  it('an endless stream is cut off past the limit, once, with a message that says where, the limit and how to raise it', async () => {
    const err = await failure(client.request({ method: 'GET', path: '/api/v2/Endless', account: 'prod' }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.kind).toBe('permanent');
    expect(err.message).toContain('GET /api/v2/Endless');
    expect(err.message).toContain('larger than 16 KiB');
    expect(err.message).toContain('--max-response-size');
    expect(err.message).toContain('POSTUREOPS_MAX_RESPONSE_BYTES');
    expect(err.account).toBe('prod');
    // Not repeated: the service would send the same again.
    expect(service.hits.get('/api/v2/Endless')).toBe(1);
    // The connection was closed: the server stopped well short of what it would have sent.
    await expect.poll(() => service.streamed.closed).toBe(true);
    expect(service.streamed.bytes).toBeLessThan(8 * 1024 * 1024);
  });

  it('a Content-Length over the limit is refused before the body is read', async () => {
    const err = await failure(client.request({ method: 'GET', path: '/api/v2/Declared' }));
    expect(err.kind).toBe('permanent');
    expect(err.message).toContain('it announced 10 MiB');
    expect(service.hits.get('/api/v2/Declared')).toBe(1);
  });

  it('a write whose answer is too large: outcome unknown (it may have been done), not repeated', async () => {
    const err = await failure(client.request({ method: 'POST', path: '/api/v2/Write', body: { name: 'n' } }));
    expect(err.kind).toBe('outcome-unknown');
    expect(service.hits.get('/api/v2/Write')).toBe(1);
  });

  it('a further page counts with the earlier pages of its list', async () => {
    const page = await client.request({ method: 'GET', path: '/api/v2/Exact/4096', pagedBytes: LIMIT - 4096 });
    expect(page.bytes).toBe(4096);
    const err = await failure(client.request({ method: 'GET', path: '/api/v2/Exact/4096', pagedBytes: LIMIT - 4095 }));
    expect(err.kind).toBe('permanent');
    expect(err.message).toContain('of the earlier pages of this list');
  });
});

describe('the limits of a run: records and bytes of all reads together', () => {
  let service: Hostile;
  const clients: ApiClient[] = [];
  beforeAll(async () => {
    service = await hostile();
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await service.close();
  });
  const clientWith = (limits: { maxRecords?: number; maxTotalBytes?: number; maxResponseBytes?: number }): ApiClient => {
    const c = createClient({ baseUrl: service.url, keyId: KEY_ID, secret: SECRET, sleep: async () => undefined, ...limits });
    clients.push(c);
    return c;
  };

  it('records of every list count together; the read that passes the limit is refused once, naming the request and the setting', async () => {
    const client = clientWith({ maxRecords: 10 });
    await client.request({ method: 'GET', path: '/api/v2/Records/6', account: 'prod' });
    // A search is a read too.
    await client.request({ method: 'POST', path: '/api/v2/Records/4/search', body: {}, account: 'staging' });
    service.hits.clear();
    const err = await failure(client.request({ method: 'GET', path: '/api/v2/Records/1', account: 'staging' }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err.kind).toBe('permanent');
    expect(err.account).toBe('staging');
    expect(err.message).toContain('GET /api/v2/Records/1');
    expect(err.message).toContain('pass 10 records');
    expect(err.message).toContain('--max-records N');
    expect(err.message).toContain('POSTUREOPS_MAX_RECORDS=N');
    expect(service.hits.get('/api/v2/Records/1')).toBe(1);
  });

  it('a write does not count: its answer is not a list read', async () => {
    const client = clientWith({ maxRecords: 3 });
    await client.request({ method: 'GET', path: '/api/v2/Records/3' });
    const written = await client.request({ method: 'POST', path: '/api/v2/Records/5', body: { name: 'n' } });
    expect((written.body as { data: unknown[] }).data).toHaveLength(5);
  });

  it('bytes of every read count together, each response within its own limit', async () => {
    const client = clientWith({ maxTotalBytes: 10 * 1024, maxResponseBytes: LIMIT });
    await client.request({ method: 'GET', path: '/api/v2/Exact/4096' });
    await client.request({ method: 'GET', path: '/api/v2/Exact/4096' });
    const err = await failure(client.request({ method: 'GET', path: '/api/v2/Exact/4096', account: 'prod' }));
    expect(err.kind).toBe('permanent');
    expect(err.message).toContain('GET /api/v2/Exact/4096');
    expect(err.message).toContain('pass 10 KiB, the most postureops reads in one run');
    expect(err.message).toContain('--max-total-size SIZE');
    expect(err.message).toContain('POSTUREOPS_MAX_TOTAL_BYTES=SIZE');
  });

  it('an error answer is not kept, so its body gives its bytes back', async () => {
    const client = clientWith({ maxTotalBytes: 10 * 1024 });
    await client.request({ method: 'GET', path: '/api/v2/Exact/4096' });
    const refused = await failure(client.request({ method: 'GET', path: '/api/v2/Refused/5000' }));
    expect(refused.status).toBe(404);
    const ok = await client.request({ method: 'GET', path: '/api/v2/Exact/4096' });
    expect(ok.bytes).toBe(4096);
  });

  it('a stream is cut off where the run passes its total; a Content-Length over what is left is refused before reading', async () => {
    const client = clientWith({ maxTotalBytes: 64 * 1024, maxResponseBytes: 1024 * 1024 * 1024 });
    service.streamed.closed = false;
    const endless = await failure(client.request({ method: 'GET', path: '/api/v2/Endless' }));
    expect(endless.message).toContain('pass 64 KiB');
    expect(endless.message).toContain('--max-total-size');
    await expect.poll(() => service.streamed.closed).toBe(true);
    const declared = await failure(clientWith({ maxTotalBytes: 64 * 1024, maxResponseBytes: 1024 * 1024 * 1024 }).request({ method: 'GET', path: '/api/v2/Declared' }));
    expect(declared.message).toContain('(it announced 10 MiB)');
    expect(declared.message).toContain('--max-total-size');
  });

  it('once a run has passed a limit, its other reads are refused without being sent; writes still go', async () => {
    const client = clientWith({ maxRecords: 3, maxTotalBytes: 64 * 1024 });
    await failure(client.request({ method: 'GET', path: '/api/v2/Records/4' }));
    service.hits.clear();
    const next = await failure(client.request({ method: 'GET', path: '/api/v2/Exact/100', account: 'prod' }));
    expect(next.kind).toBe('permanent');
    expect(next.message).toContain('GET /api/v2/Exact/100');
    expect(next.message).toContain('not sent: the reads of this run have passed 3 records');
    expect(next.message).toContain('POSTUREOPS_MAX_RECORDS');
    expect(service.hits.get('/api/v2/Exact/100')).toBeUndefined();
    await client.request({ method: 'POST', path: '/api/v2/Records/1', body: {} });

    const bytes = clientWith({ maxTotalBytes: 8 * 1024, maxResponseBytes: LIMIT });
    await failure(bytes.request({ method: 'GET', path: '/api/v2/Exact/10000' }));
    const after = await failure(bytes.request({ method: 'GET', path: '/api/v2/Exact/100' }));
    expect(after.message).toContain('not sent: the reads of this run have passed 8 KiB');
    expect(after.message).toContain('--max-total-size');
  });
});

describe('the limit as configured', () => {
  it('parses sizes in bytes or with K, M, G (1024-based)', () => {
    expect(parseByteSize('65536')).toBe(65536);
    expect(parseByteSize('64K')).toBe(65536);
    expect(parseByteSize('32m')).toBe(32 * 1024 * 1024);
    expect(parseByteSize('32MiB')).toBe(32 * 1024 * 1024);
    expect(parseByteSize('1G')).toBe(1024 ** 3);
    for (const bad of ['', '0', '-1', '1.5M', 'lots', '32 T', '99999999999999999999']) expect(parseByteSize(bad), bad).toBeUndefined();
    expect(sizeText(DEFAULT_MAX_RESPONSE_BYTES)).toBe('32 MiB');
    expect(sizeText(1536)).toBe('1.5 KiB');
    expect(sizeText(100)).toBe('100 bytes');
  });

  it('the flag wins over POSTUREOPS_MAX_RESPONSE_BYTES; unset leaves the default to the client; a bad value names its source', () => {
    const env = { SVC_BASE_URL: 'http://127.0.0.1:1', SVC_API_KEY_ID: KEY_ID, SVC_API_SECRET: SECRET };
    expect(clientOptionsFromEnv(env, {}).maxResponseBytes).toBeUndefined();
    expect(clientOptionsFromEnv({ ...env, POSTUREOPS_MAX_RESPONSE_BYTES: '8M' }, {}).maxResponseBytes).toBe(8 * 1024 * 1024);
    expect(clientOptionsFromEnv({ ...env, POSTUREOPS_MAX_RESPONSE_BYTES: '8M' }, { maxResponseSize: '100K' }).maxResponseBytes).toBe(100 * 1024);
    expect(() => clientOptionsFromEnv({ ...env, POSTUREOPS_MAX_RESPONSE_BYTES: 'big' }, {})).toThrow(ClientConfigError);
    expect(() => clientOptionsFromEnv(env, { maxResponseSize: 'big' })).toThrow(/--max-response-size "big" is not a size: expected a number of bytes/);
  });
});

describe('the run limits as configured', () => {
  const env = { SVC_BASE_URL: 'http://127.0.0.1:1', SVC_API_KEY_ID: KEY_ID, SVC_API_SECRET: SECRET };

  it('counts are whole numbers above 0', () => {
    expect(parseCount('250000')).toBe(250_000);
    expect(parseCount(' 7 ')).toBe(7);
    for (const bad of ['', '0', '-1', '1.5', '10K', 'many', '99999999999999999999']) expect(parseCount(bad), bad).toBeUndefined();
  });

  it('defaults: 50,000 records and 32 MiB, left to the client when unset', () => {
    expect(DEFAULT_MAX_RECORDS).toBe(50_000);
    expect(DEFAULT_MAX_TOTAL_BYTES).toBe(DEFAULT_MAX_RESPONSE_BYTES);
    const options = clientOptionsFromEnv(env, {});
    expect(options.maxRecords).toBeUndefined();
    expect(options.maxTotalBytes).toBeUndefined();
  });

  it('each flag wins over its variable; a bad value names its source and what is expected', () => {
    const both = { ...env, POSTUREOPS_MAX_RECORDS: '1000', POSTUREOPS_MAX_TOTAL_BYTES: '8M' };
    expect(clientOptionsFromEnv(both, {})).toMatchObject({ maxRecords: 1000, maxTotalBytes: 8 * 1024 * 1024 });
    expect(clientOptionsFromEnv(both, { maxRecords: '200000', maxTotalSize: '1G' })).toMatchObject({ maxRecords: 200_000, maxTotalBytes: 1024 ** 3 });
    expect(() => clientOptionsFromEnv({ ...env, POSTUREOPS_MAX_RECORDS: '10K' }, {})).toThrow(/POSTUREOPS_MAX_RECORDS "10K" is not a count: expected a whole number above 0/);
    expect(() => clientOptionsFromEnv(env, { maxRecords: '0' })).toThrow(/--max-records "0" is not a count/);
    expect(() => clientOptionsFromEnv(env, { maxTotalSize: 'all' })).toThrow(/--max-total-size "all" is not a size: expected a number of bytes/);
    expect(() => clientOptionsFromEnv({ ...env, POSTUREOPS_MAX_TOTAL_BYTES: '-1' }, {})).toThrow(ClientConfigError);
  });

  it('the client refuses a limit that is not a positive whole number', () => {
    expect(() => createClient({ baseUrl: 'http://127.0.0.1:1', keyId: KEY_ID, secret: SECRET, maxRecords: 0 })).toThrow(/maxRecords must be an integer/);
    expect(() => createClient({ baseUrl: 'http://127.0.0.1:1', keyId: KEY_ID, secret: SECRET, maxTotalBytes: 1.5 })).toThrow(/maxTotalBytes must be an integer/);
  });
});
