// Drives the real CLI in-process (same code path as the bin) with captured streams.

import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, request as httpRequest, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parseEnvText } from '../../cmd/env-file.js';
import type { Io } from '../../cmd/io.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { manualClock, type ManualClock } from '../../src/emulator/index.js';
import { virtualTime } from '../api/helpers.js';
import type { ClientOptions } from '../../src/api/options.js';
import type { RequestLogEntry } from '../../src/api/types.js';
import type { LeaseClock } from '../../src/ops/lease/lease.js';
import { run } from '../../cmd/main.js';
import { packageRoot } from '../../src/util/package-root.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export const EXAMPLES = join(packageRoot(), 'examples');

/** Text output as one line, runs of white space as one space: what a line said before the CLI wrapped it to 80 columns. */
export const oneLine = (text: string): string => text.replace(/\s+/g, ' ');

let bare: string | undefined;
/**
 * A copy of the examples without a `.env`: the README's walkthrough has readers create
 * examples/.env, which the tests that read the examples with no variable set must not see.
 */
export function bareExamples(): string {
  bare ??= (() => {
    const dir = join(mkdtempSync(join(tmpdir(), 'postureops-examples-')), 'examples');
    cpSync(EXAMPLES, dir, { recursive: true, filter: (src) => basename(src) !== '.env' });
    return dir;
  })();
  return bare;
}

/** The fake secrets the examples document, as the demo uses them. */
export function exampleEnv(): Record<string, string> {
  return parseEnvText(readFileSync(join(EXAMPLES, '.env.example'), 'utf8'));
}

function sink(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/**
 * The apply lease's clocks for an in-process run: the system's, moved ahead by every wait of the
 * lease, which then takes no real time (the first taking of a lease waits about 2.5 min). The
 * service's clock is not moved: ages stay the service's.
 */
export function leapingLeaseClock(): LeaseClock & { leapt: () => number } {
  let offset = 0;
  return {
    mono: () => performance.timeOrigin + performance.now() + offset,
    wall: () => Date.now() + offset,
    sleep: async (ms) => {
      offset += ms;
      await new Promise((r) => setImmediate(r));
    },
    leapt: () => offset,
  };
}

export async function cli(
  args: string[],
  opts: { env?: Record<string, string | undefined>; cwd?: string; signals?: Io['signals']; clientOptions?: Io['clientOptions']; leaseClock?: LeaseClock; now?: () => number } = {},
): Promise<CliResult> {
  const out = sink();
  const err = sink();
  const stdin = new PassThrough() as PassThrough & { isTTY?: boolean };
  const io: Io = {
    stdout: out.stream,
    stderr: err.stream,
    stdin,
    env: { NO_COLOR: '1', ...opts.env },
    cwd: opts.cwd ?? packageRoot(),
    ...(opts.signals ? { signals: opts.signals } : {}),
    ...(opts.clientOptions ? { clientOptions: opts.clientOptions } : {}),
    leaseClock: opts.leaseClock ?? leapingLeaseClock(),
    ...(opts.now ? { now: opts.now } : {}),
  };
  const code = await run(['node', 'postureops', ...args], io);
  return { code, stdout: out.text(), stderr: err.text() };
}

/** A signal source the test fires by hand, as a terminal's Ctrl-C or a CI runner's SIGTERM would. */
export function manualSignals(): NonNullable<Io['signals']> & { send(signal: 'SIGINT' | 'SIGTERM'): void; listening(): boolean } {
  const handlers = new Set<(signal: 'SIGINT' | 'SIGTERM') => void>();
  return {
    listen(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    send(signal) {
      for (const h of [...handlers]) h(signal);
    },
    listening: () => handlers.size > 0,
  };
}

export function serviceEnv(emu: { url: string; keyId: string; secret: string }): Record<string, string> {
  return { SVC_BASE_URL: emu.url, SVC_API_KEY_ID: emu.keyId, SVC_API_SECRET: emu.secret };
}

/** A raw call to the emulator with fetch, as curl would make it: for seeding and inspecting live state. */
export async function rawApi(
  emu: { url: string; keyId: string; secret: string },
  method: string,
  path: string,
  opts: { account?: string; body?: unknown } = {},
): Promise<{ status: number; body: any }> {
  const tokenRes = await fetch(`${emu.url}/api/v2/access/tokens`, {
    method: 'POST',
    headers: { 'X-SVC-UAKS': emu.secret, 'Content-Type': 'application/json' },
    body: JSON.stringify({ keyId: emu.keyId, expiryTime: 3600 }),
  });
  const { token } = (await tokenRes.json()) as { token: string };
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      ...(opts.account ? { 'Account-Name': opts.account } : {}),
    },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * A virtual clock for the client the CLI creates (through Io.clientOptions): while `virtual.now`
 * and `virtual.sleep` are set the client uses them, and the test sees every wait and request.
 * `reset()` after each test.
 */
export function virtualClient(): {
  virtual: {
    now?: () => number;
    sleep?: (ms: number) => Promise<void>;
    onWait?: (bucket: string, secondsLeft: number) => void;
    onLog?: (e: RequestLogEntry) => void;
  };
  clientOptions: (options: ClientOptions) => ClientOptions;
  reset: () => void;
  useClock: () => ManualClock;
} {
  const virtual: ReturnType<typeof virtualClient>['virtual'] = {};
  const clientOptions = (options: ClientOptions): ClientOptions => ({
    ...options,
    ...(virtual.now && virtual.sleep ? { now: virtual.now, sleep: virtual.sleep } : {}),
    onWait: (bucket, secondsLeft, info) => {
      options.onWait?.(bucket, secondsLeft, info);
      virtual.onWait?.(bucket, secondsLeft);
    },
    log: (e) => {
      options.log?.(e);
      virtual.onLog?.(e);
    },
  });
  const reset = (): void => {
    for (const key of Object.keys(virtual) as (keyof typeof virtual)[]) delete virtual[key];
  };
  /** A manual clock that the client then uses (give the same clock to the emulator). */
  const useClock = (): ManualClock => {
    const clock = manualClock(Date.UTC(2026, 2, 1));
    virtual.now = () => clock.now();
    virtual.sleep = virtualTime(clock);
    return clock;
  };
  return { virtual, clientOptions, reset, useClock };
}

/** A repository of `channels` Webhook channels in every one of `accounts`; removed by `cleanup`. */
export async function webhookRepo(accounts: string[], channels: number, cleanup: Array<() => Promise<void>>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'postureops-hooks-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'postureops.yaml'), `accounts:\n${accounts.map((a) => `  - name: ${a}\n`).join('')}defaults:\n  account: ${accounts[0]}\n`);
  const docs = Array.from(
    { length: channels },
    (_, i) => `kind: AlertChannel\nname: hook-${String(i + 1).padStart(2, '0')}\naccount: "*"\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/${i + 1}\n`,
  );
  await writeFile(join(dir, 'channels.yaml'), docs.join('---\n'));
  return dir;
}

/**
 * Reads per collection from a plan's `apiCalls.byBucket`: a list (`GET X`) and its search
 * (`POST X/search`) read the same records, so both count for `X`. Writes are left out.
 */
export function readsByCollection(byBucket: Record<string, number>): Record<string, number> {
  const reads: Record<string, number> = {};
  for (const [bucket, n] of Object.entries(byBucket)) {
    const m = /^GET ([A-Za-z]+)$/.exec(bucket) ?? /^POST ([A-Za-z]+)\/search$/.exec(bucket);
    if (m) reads[m[1]] = (reads[m[1]] ?? 0) + n;
  }
  return reads;
}

/**
 * A proxy on 127.0.0.1 in front of `target` (the emulator), for tests that watch or replace what
 * passes: `intercept` sees every request first and answers it itself by returning true; anything
 * else is forwarded as it came.
 */
export async function forwardingProxy(target: string, intercept: (req: IncomingMessage, res: ServerResponse) => boolean = () => false): Promise<{ url: string; close: () => Promise<void> }> {
  const to = new URL(target);
  const server = createServer((req, res) => {
    if (intercept(req, res)) return;
    const upstream = httpRequest({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Every member name at any depth of a JSON value (what a request body carries, by name). */
export function memberNames(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(memberNames);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => [k, ...memberNames(v)]);
}

/** Every string at any depth of a JSON value. */
export function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object') return [];
  return Object.values(value).flatMap(stringsIn);
}

/** Every file below `dir`, at any depth. */
export async function filesBelow(dir: string): Promise<string[]> {
  const { readdir } = await import('node:fs/promises');
  return (await readdir(dir, { withFileTypes: true, recursive: true })).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/**
 * A released apply lease in each of `accounts`, as an earlier apply leaves it: the next apply (the
 * Action's, a child process on the real clock) takes it at once, where on a service that never had
 * one it would wait the lease's lifetime and margin first.
 */
export async function releasedLeases(emu: { url: string; keyId: string; secret: string }, accounts: readonly string[]): Promise<void> {
  const { createLeaseRequest } = await import('../../src/ops/lease/lease-record.js');
  for (const account of accounts) {
    const list = await rawApi(emu, 'GET', '/api/v2/AlertProfiles', { account });
    const req = createLeaseRequest(1, { owner: 'seed', holder: 'an earlier apply', stamp: 0, state: 'released' }, list.body, { account, orgAccess: false, resolve: () => '' });
    const res = await rawApi(emu, 'POST', req.path, { account, body: req.body });
    if (res.status !== 201 && res.status !== 200) throw new Error(`seeding a released lease in ${account}: ${res.status}`);
  }
}

/**
 * One story told in steps that build on each other's state, run in order by one test (a test per
 * step would depend on the order tests run in); a failure names its step.
 */
export function story(): { step: (name: string, fn: () => Promise<void>) => void; run: () => Promise<void> } {
  const steps: [string, () => Promise<void>][] = [];
  return {
    step: (name, fn) => {
      steps.push([name, fn]);
    },
    run: async () => {
      for (const [name, fn] of steps) {
        try {
          await fn();
        } catch (err) {
          throw new Error(`step "${name}": ${(err as Error).message}`);
        }
      }
    },
  };
}
