// The apply lease through the real CLI against the emulator: a held lease stops apply (exit 4) before
// it reads the live state or prints a plan; what the lease costs (60 creates: the writes, the reads,
// a token and at most 4 more, counted by a proxy); three applies at once make no duplicate; unlock
// marks the lease freed and the next apply takes it after the lifetime and the margin; an apply
// killed with SIGKILL (the built bin, a child process) blocks the next one for at most two minutes
// of service time; SIGINT during a rate-limit wait (the built bin) releases the lease, says so, and
// exits 130; a lease record never shows in a plan or an export. In-process runs take the lease on a
// clock whose waits take no real time (harness.ts: leapingLeaseClock).

import { spawn } from 'node:child_process';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { manualClock, startEmulator } from '../../src/emulator/index.js';
import { LEASE_LIFETIME_MS } from '../../src/ops/lease/lease.js';
import { LEASE_ID_PREFIX, leaseRecords } from '../../src/ops/lease/lease-record.js';
import { packageRoot } from '../../src/util/package-root.js';
import { cli, EXAMPLES, exampleEnv, forwardingProxy, leapingLeaseClock, oneLine, rawApi, serviceEnv, webhookRepo } from './harness.js';

const BIN = join(packageRoot(), 'dist', 'cmd', 'postureops.js');
/** The service's virtual time starts at the real time (whole seconds), so that tokens stay valid for clients on the real clock. */
const START = Math.floor(Date.now() / 1000) * 1000;
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setUp(accounts = ['prod', 'staging'], rateLimit?: number) {
  const clock = manualClock(START);
  const emu = await startEmulator({ accounts, clock, ...(rateLimit ? { rateLimit } : {}) });
  cleanup.push(() => emu.close());
  const env = { ...exampleEnv(), ...serviceEnv(emu) };
  const records = async (account = accounts[0]) => leaseRecords((await rawApi(emu, 'GET', '/api/v2/AlertProfiles', { account })).body);
  return { emu, env, clock, records };
}

/** An apply of nothing in a repository of `accounts`: it leaves a released lease behind (the next run takes it at once). */
async function released(env: Record<string, string>, accounts: string[]): Promise<string> {
  const dir = await webhookRepo(accounts, 0, cleanup as Array<() => Promise<void>>);
  const res = await cli(['apply', dir, '--auto-approve'], { env });
  expect(res.code, res.stderr).toBe(0);
  return dir;
}

it('a held lease stops apply with exit 4 before it reads the live state or prints a plan', async () => {
  const { emu, env, records } = await setUp();
  // An apply holding the lease: its record, as a live holder keeps it.
  await released(env, ['prod', 'staging']);
  const gen = (await records()).at(-1)!.generation;
  const held = (await rawApi(emu, 'GET', '/api/v2/AlertProfiles', { account: 'prod' })).body.data.find((p: { alertProfileId: string }) => p.alertProfileId === `${LEASE_ID_PREFIX}${gen}`);
  held.alerts[0].description = held.alerts[0].description.replace('"released"', '"held"').replace(/"holder":"[^"]*"/, '"holder":"mallory\\u001b]0;pwned\\u0007@host"');
  expect((await rawApi(emu, 'PATCH', `/api/v2/AlertProfiles/${held.alertProfileId}`, { account: 'prod', body: { alerts: held.alerts } })).status).toBe(200);

  const stopped = await cli(['apply', EXAMPLES, '--auto-approve'], { env });
  expect(stopped.code).toBe(4);
  expect(stopped.stdout).toBe('');
  expect(stopped.stderr).toMatch(/another apply holds the lease \(in account prod; mallory\\x1b\]0;pwned\\x07@host; renewed \d+s ago by the service's clock; free after 120s without renewal\): nothing was changed/);
  expect(stopped.stderr).toContain('postureops unlock');
  expect(stopped.stderr).not.toContain('Reading live state');
  expect(stopped.stderr + stopped.stdout).not.toContain('\u001b');

  // unlock shows it, asks (refused without a terminal), then marks it freed, never deleting it.
  const refused = await cli(['unlock', EXAMPLES], { env });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`account prod: lease ${LEASE_ID_PREFIX}${gen} held by mallory\\x1b]0;pwned\\x07@host`);
  const freed = await cli(['unlock', EXAMPLES, '--auto-approve'], { env });
  expect(freed.code, freed.stderr).toBe(0);
  expect(freed.stderr).toContain(`Freed the lease (${LEASE_ID_PREFIX}${gen} in account prod)`);
  expect((await records()).at(-1)?.data?.state).toBe('freed');
  expect((await cli(['unlock', EXAMPLES, '--auto-approve'], { env })).stderr).toContain('No apply lease is held.');

  // A freed lease: nobody can tell when its holder last wrote, so the next apply waits 151 s first.
  const leaseClock = leapingLeaseClock();
  const applied = await cli(['apply', EXAMPLES, '--auto-approve'], { env, leaseClock });
  expect(applied.code, applied.stderr).toBe(0);
  expect(leaseClock.leapt()).toBeGreaterThan(150_000);
  expect(leaseClock.leapt()).toBeLessThanOrEqual(151_000);
  expect(oneLine(applied.stdout)).toContain('waited 151s before taking the lease: it was freed with postureops unlock');
  expect((await records()).map((r) => r.data?.state)).toEqual(['released']);
});

it('60 creates in one account: the writes, the reads, a token and at most 4 requests of the lease', async () => {
  const { emu, env } = await setUp(['prod']);
  await released(env, ['prod']);
  const dir = await webhookRepo(['prod'], 60, cleanup as Array<() => Promise<void>>);
  const seen: string[] = [];
  const proxy = await forwardingProxy(emu.url, (req) => {
    seen.push(`${req.method} ${req.url}`);
    return false;
  });
  cleanup.push(() => proxy.close());
  const res = await cli(['apply', dir, '--auto-approve', '--format', 'json'], { env: { ...env, SVC_BASE_URL: proxy.url } });
  expect(res.code, res.stderr).toBe(0);
  const writes = seen.filter((r) => r === 'POST /api/v2/AlertChannels');
  const token = seen.filter((r) => r === 'POST /api/v2/access/tokens');
  const lease = seen.filter((r) => r.startsWith('POST /api/v2/AlertProfiles') || r.includes(`/${LEASE_ID_PREFIX}`) || r === 'GET /api/v2/AlertProfiles');
  const reads = seen.filter((r) => r.startsWith('GET ') && r !== 'GET /api/v2/AlertProfiles');
  expect(writes).toHaveLength(60);
  expect(token).toHaveLength(1);
  expect(lease.length).toBeLessThanOrEqual(4);
  expect(seen.length).toBe(writes.length + reads.length + token.length + lease.length);
  expect(seen.length).toBeLessThanOrEqual(60 + reads.length + 1 + 4);
  const report = JSON.parse(res.stdout);
  expect(report.lease).toMatchObject({ accounts: ['prod'], home: 'prod', notes: ['released the lease'] });
});

it('three applies at once: one takes the lease, the other two stop before reading; each name once', async () => {
  const { emu, env } = await setUp(['prod']);
  await released(env, ['prod']);
  const dir = await webhookRepo(['prod'], 5, cleanup as Array<() => Promise<void>>);
  const runs = await Promise.all([0, 1, 2].map(() => cli(['apply', dir, '--auto-approve'], { env })));
  const codes = runs.map((r) => r.code).sort();
  expect(codes[0]).toBe(0);
  // The others found it held (4), or, when the first had finished already, found nothing to do (0).
  for (const code of codes.slice(1)) expect([0, 4]).toContain(code);
  const names = (await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' })).body.data.map((r: { name: string }) => r.name).sort();
  expect(names).toEqual(['hook-01', 'hook-02', 'hook-03', 'hook-04', 'hook-05']);
});

it('a lease record never shows in a plan, among unmanaged resources or in an export', async () => {
  const { env } = await setUp();
  expect((await cli(['apply', EXAMPLES, '--auto-approve'], { env })).code).toBe(0);
  const planned = await cli(['plan', EXAMPLES, '--format', 'json', '--detailed-exitcode'], { env });
  expect(planned.code).toBe(0);
  expect(JSON.parse(planned.stdout).summary.unmanaged).toBe(0);
  expect(planned.stdout + planned.stderr).not.toContain(LEASE_ID_PREFIX);

  const out = await mkdtemp(join(tmpdir(), 'postureops-lease-export-'));
  cleanup.push(() => rm(out, { recursive: true, force: true }));
  const exported = await cli(['export', '--out', join(out, 'repo'), '--account', 'prod', '--account', 'staging'], { env });
  expect(exported.code).toBe(0);
  const files = await readdir(join(out, 'repo'), { recursive: true });
  const texts = await Promise.all(files.filter((f) => f.endsWith('.yaml') || f.endsWith('.md')).map((f) => readFile(join(out, 'repo', f), 'utf8')));
  expect(texts.join('\n')).toContain('kind: AlertProfile');
  expect(texts.join('\n')).not.toContain(LEASE_ID_PREFIX);
});

/**
 * A proxy in front of the emulator that holds the first request `hold` matches (and tells the test it
 * arrived) until `release()`: the apply behind it stays where it is meanwhile, or until it is killed.
 */
async function holdingProxy(target: string, hold: (req: IncomingMessage) => boolean) {
  let held = false;
  let arrived!: () => void;
  const reached = new Promise<void>((r) => (arrived = r));
  let go!: () => void;
  const released = new Promise<void>((r) => (go = r));
  const to = new URL(target);
  const server = createServer(async (req, res) => {
    if (!held && hold(req)) {
      held = true;
      arrived();
      await released;
    }
    const upstream = httpRequest({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    reached,
    release: () => go(),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function child(args: string[], env: Record<string, string>) {
  const proc = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const closed = new Promise<{ code: number | null; signal: string | null }>((resolve) => proc.on('close', (code, signal) => resolve({ code, signal })));
  cleanup.push(async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  return { proc, closed, out: () => ({ stdout, stderr }) };
}

it('an apply killed with SIGKILL mid-apply blocks the next one for at most two minutes of service time', async () => {
  const { emu, env, clock, records } = await setUp(['prod']);
  await released(env, ['prod']);
  const repo = await webhookRepo(['prod'], 3, cleanup as Array<() => Promise<void>>);
  // The child holds the lease, has sent its first create, and waits for an answer that never comes.
  const proxy = await holdingProxy(emu.url, (req) => req.method === 'POST' && req.url === '/api/v2/AlertChannels');
  cleanup.push(() => proxy.close());
  const killed = child(['apply', repo, '--auto-approve', '--concurrency', '1'], { SVC_BASE_URL: proxy.url, SVC_API_KEY_ID: emu.keyId, SVC_API_SECRET: emu.secret });
  await proxy.reached;
  expect((await records()).at(-1)?.data?.state).toBe('held');
  killed.proc.kill('SIGKILL');
  expect((await killed.closed).signal).toBe('SIGKILL');

  const blocked = await cli(['apply', repo, '--auto-approve'], { env });
  expect(blocked.code).toBe(4);
  clock.set(START + LEASE_LIFETIME_MS - 1_000);
  const stillBlocked = await cli(['apply', repo, '--auto-approve'], { env });
  expect(stillBlocked.code).toBe(4);
  expect(stillBlocked.stderr).toContain('renewed 119s ago');

  clock.set(START + LEASE_LIFETIME_MS);
  const applied = await cli(['apply', repo, '--auto-approve'], { env });
  expect(applied.code, applied.stderr).toBe(0);
  expect(oneLine(applied.stdout)).toMatch(/took over the lease from \S+ pid \d+ \(not renewed for 120s\)/);
  const names = (await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' })).body.data.map((r: { name: string }) => r.name).sort();
  // The killed run's create never reached the service: each name once.
  expect(names).toEqual(['hook-01', 'hook-02', 'hook-03']);
  expect((await records()).map((r) => r.data?.state)).toEqual(['released']);
});

it('SIGINT during a rate-limit wait (the built bin) releases the lease within its deadline, says so, and exits 130', async () => {
  const { emu, env, records } = await setUp(['prod'], 5);
  await released(env, ['prod']);
  const repo = await webhookRepo(['prod'], 8, cleanup as Array<() => Promise<void>>);
  // Five creates an hour: the sixth waits 12 minutes for its bucket.
  // The request log (--verbose) shows the bucket empty: the next create waits (a wait within 30 s of
  // the phase's start has no line of its own, issue 31).
  const run = child(['apply', repo, '--auto-approve', '--concurrency', '1', '--max-wait', '7200', '--verbose'], serviceEnv(emu));
  for (let i = 0; i < 400 && !/\(POST AlertChannels: 0 left\)/.test(run.out().stderr); i++) await new Promise((r) => setTimeout(r, 25));
  expect(run.out().stderr).toMatch(/\(POST AlertChannels: 0 left\)/);
  run.proc.kill('SIGINT');
  const { code } = await run.closed;
  const { stdout, stderr } = run.out();
  expect(code, stderr).toBe(130);
  expect(stdout + stderr).toContain('released the lease');
  expect(stderr).toContain('POST AlertChannels');
  expect((await records()).at(-1)?.data?.state).toBe('released');
  const names = (await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' })).body.data;
  expect(names).toHaveLength(5);
});

it('takes the lease on an account whose predefined profiles carry another vendor prefix (LW_, as the real service)', async () => {
  const emu = await startEmulator({ accounts: ['prod'], predefinedPrefix: 'LW_' });
  cleanup.push(() => emu.close());
  const dir = await webhookRepo(['prod'], 2, cleanup as Array<() => Promise<void>>);
  const applied = await cli(['apply', dir, '--auto-approve'], { env: serviceEnv(emu) });
  expect(applied.code, applied.stderr).toBe(0);
  const profiles = (await rawApi(emu, 'GET', '/api/v2/AlertProfiles', { account: 'prod' })).body.data;
  // Taken (extending an LW_ profile) and released: the record stays, marked released.
  expect(profiles.some((p: { alertProfileId: string }) => p.alertProfileId.startsWith('LW_'))).toBe(true);
  expect(leaseRecords(profiles).map((r) => r.data?.state)).toEqual(['released']);
  expect(applied.stderr).not.toContain('no predefined alert profile');
});

it("plan's estimate counts the apply's lease: taking it and releasing it (a short apply renews nothing)", async () => {
  const { env } = await setUp(['prod']);
  const dir = await webhookRepo(['prod'], 3, cleanup as Array<() => Promise<void>>);
  const budgetOf = async (args: string[]) => {
    const res = await cli(['plan', dir, '--format', 'json', ...args], { env });
    return Object.fromEntries((JSON.parse(res.stdout).budget as { bucket: string; needed: number }[]).map((b) => [b.bucket, b.needed]));
  };
  expect(await budgetOf([])).toEqual({ 'POST AlertChannels': 3, 'GET AlertProfiles': 1, 'POST AlertProfiles': 1, 'DELETE AlertProfiles': 1, 'PATCH AlertProfiles': 1 });
});
