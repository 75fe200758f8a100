// Test doubles for the client: a fake clock and a scripted service on 127.0.0.1 (port 0).
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const KEY_ID = 'KEY_TEST_0123456789';
export const SECRET = 'S3CRET_value_that_must_never_leak';

export interface FakeClock {
  t: number;
  sleeps: number[];
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/** A clock that only moves when the client sleeps (or the test moves it). */
export function fakeClock(start = Date.parse('2026-03-01T12:00:00.000Z')): FakeClock {
  const clock: FakeClock = {
    t: start,
    sleeps: [],
    now: () => clock.t,
    sleep: async (ms: number) => {
      clock.sleeps.push(ms);
      clock.t += ms;
    },
  };
  return clock;
}

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the scripted service answers: a response, a dropped connection, or nothing at all. */
export type Reply =
  | { status: number; json?: unknown; text?: string; headers?: Record<string, string>; delayMs?: number }
  | 'drop'
  | 'hang';

export interface ServiceDouble {
  baseUrl: string;
  /** Every request, token exchanges included, in arrival order. */
  requests: SeenRequest[];
  /** Requests other than the token exchange. */
  calls(): SeenRequest[];
  tokensIssued: string[];
  inFlight: number;
  maxInFlight: number;
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** Answers everything but the token exchange. */
  handle: (req: SeenRequest, service: ServiceDouble) => Reply | Promise<Reply>;
  /** Clock used for `expiresAt` (default the real one). */
  now?: () => number;
  /** Answer to the token exchange instead of the built-in one. */
  tokenReply?: (req: SeenRequest) => Reply | undefined;
}

/** A tiny service: issues tokens `tok-1`, `tok-2`, … for the test key, everything else via `handle`. */
export async function startService(options: ServiceOptions): Promise<ServiceDouble> {
  const now = options.now ?? Date.now;
  const hanging: ServerResponse[] = [];
  const service: ServiceDouble = {
    baseUrl: '',
    requests: [],
    calls: () => service.requests.filter((r) => !r.url.endsWith('/api/v2/access/tokens')),
    tokensIssued: [],
    inFlight: 0,
    maxInFlight: 0,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen: SeenRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      service.requests.push(seen);
      service.inFlight++;
      service.maxInFlight = Math.max(service.maxInFlight, service.inFlight);
      const done = () => {
        service.inFlight--;
      };
      Promise.resolve(seen.url.endsWith('/api/v2/access/tokens') ? tokenExchange(seen) : options.handle(seen, service)).then(
        (reply) => send(res, reply, done),
        (err: unknown) => send(res, { status: 599, text: String(err) }, done),
      );
    });
  });

  function tokenExchange(req: SeenRequest): Reply {
    const custom = options.tokenReply?.(req);
    if (custom !== undefined) return custom;
    const body = JSON.parse(req.body) as { keyId?: string; expiryTime?: number };
    if (req.headers['x-svc-uaks'] !== SECRET || body.keyId !== KEY_ID) return { status: 401, json: { message: 'Unauthorized Access' } };
    const token = `tok-${service.tokensIssued.length + 1}-${'x'.repeat(24)}`;
    service.tokensIssued.push(token);
    const expiresAt = new Date(now() + (body.expiryTime ?? 3600) * 1000).toISOString();
    return { status: 201, json: { token, expiresAt } };
  }

  function send(res: ServerResponse, reply: Reply, done: () => void): void {
    if (reply === 'hang') {
      hanging.push(res);
      res.on('close', done);
      return;
    }
    if (reply === 'drop') {
      done();
      res.socket?.destroy();
      return;
    }
    const write = () => {
      done();
      const body = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? '');
      const type = reply.json !== undefined ? { 'content-type': 'application/json' } : {};
      res.writeHead(reply.status, { ...type, ...reply.headers });
      res.end(body);
    };
    if (reply.delayMs) setTimeout(write, reply.delayMs);
    else write();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  service.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return service;
}

/** The bearer token a request carried. */
export function bearerOf(req: SeenRequest): string | undefined {
  const auth = req.headers.authorization;
  return auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length) : undefined;
}

/** Awaits a promise that must reject and returns the reason. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject');
}

/**
 * A virtual clock for concurrent sleepers: time jumps to the earliest wake-up, once per turn of the
 * event loop, so that N requests waiting one second each make one second pass, not N, and sockets
 * make progress in between.
 */
export function virtualTime(clock: { now(): number; advance(ms: number): void }): (ms: number) => Promise<void> {
  const sleepers: Array<{ at: number; wake: () => void }> = [];
  let ticking = false;
  const tick = () => {
    ticking = false;
    if (sleepers.length === 0) return;
    const next = Math.min(...sleepers.map((s) => s.at));
    if (next > clock.now()) clock.advance(next - clock.now());
    for (const s of sleepers.filter((x) => x.at <= clock.now())) {
      sleepers.splice(sleepers.indexOf(s), 1);
      s.wake();
    }
    schedule();
  };
  const schedule = () => {
    if (!ticking && sleepers.length > 0) {
      ticking = true;
      setImmediate(tick);
    }
  };
  return (ms) =>
    new Promise<void>((resolve) => {
      sleepers.push({ at: clock.now() + ms, wake: resolve });
      schedule();
    });
}
