// The apply lease through the real CLI against the emulator (virtual clock): a lease another apply
// holds stops apply before its first write with exit 4; `unlock` shows the holder (escaped), refuses
// without a terminal unless --auto-approve, and frees it at once; an apply killed with SIGKILL (the
// built bin, a child process) blocks the next one for at most two minutes of service time; a lease
// record never shows in a plan or an export. The interleavings are in test/engine/apply-lease.test.ts.

import { spawn } from 'node:child_process';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { manualClock, startEmulator } from '../../src/emulator/index.js';
import { LEASE_STALE_MS, Leases } from '../../src/ops/lease/lease.js';
import { KINDS } from '../../src/kinds/index.js';
import { LEASE_ID_PREFIX } from '../../src/kinds/lease-record.js';
import { packageRoot } from '../../src/util/package-root.js';
import { cli, EXAMPLES, exampleEnv, oneLine, rawApi, serviceEnv, webhookRepo } from './harness.js';

const BIN = join(packageRoot(), 'dist', 'cmd', 'postureops.js');
/** The service's virtual time starts at the real time (whole seconds), so that tokens stay valid for clients on the real clock. */
const START = Math.floor(Date.now() / 1000) * 1000;
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setUp(accounts = ['prod', 'staging']) {
  const clock = manualClock(START);
  const emu = await startEmulator({ accounts, clock });
  const client = createClient({ baseUrl: emu.url, keyId: emu.keyId, secret: emu.secret });
  cleanup.push(() => emu.close(), () => client.close());
  const env = { ...exampleEnv(), ...serviceEnv(emu) };
  /** A lease of prod as a crashed apply leaves it. */
  const crashed = (holder = 'crashed run') => Leases.acquire(client, KINDS, [{ name: 'prod', orgAccess: false }], { holder, heartbeat: () => () => undefined });
  const leaseIds = async (account: string): Promise<string[]> =>
    (await rawApi(emu, 'GET', '/api/v2/AlertProfiles', { account })).body.data.map((p: { alertProfileId: string }) => p.alertProfileId).filter((id: string) => id.startsWith(LEASE_ID_PREFIX));
  return { emu, env, clock, crashed, leaseIds };
}

it('stops with exit 4 before its first write while another apply holds the lease; unlock shows the holder, asks, and frees it at once', async () => {
  const { emu, env, crashed, leaseIds } = await setUp();
  await crashed('mallory\u001b]0;pwned\u0007\u001b[2J@host');
  const stopped = await cli(['apply', EXAMPLES, '--auto-approve'], { env });
  expect(stopped.code).toBe(4);
  expect(stopped.stderr).toContain("another apply holds the lease of account prod (mallory\\x1b]0;pwned\\x07\\x1b[2J@host; renewed 0s ago by the service's clock; free after 120s without renewal): nothing was changed");
  expect(stopped.stderr).toContain('postureops unlock');
  expect(stopped.stderr + stopped.stdout).not.toContain('\u001b');
  const channels = await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' });
  expect(channels.body.data).toEqual([]);

  // Without a terminal and without --auto-approve: shown, not freed.
  const refused = await cli(['unlock', EXAMPLES, '--account', 'prod'], { env });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('account prod: lease POSTUREOPS_LEASE_1 held by mallory\\x1b]0;pwned\\x07\\x1b[2J@host, renewed 0s ago');
  expect(refused.stderr).toContain('unlock needs confirmation: run it on a terminal or pass --auto-approve');
  expect(refused.stderr).not.toContain('\u001b');
  expect(await leaseIds('prod')).toEqual(['POSTUREOPS_LEASE_1']);

  const freed = await cli(['unlock', EXAMPLES, '--auto-approve'], { env });
  expect(freed.code).toBe(0);
  expect(freed.stderr).toContain('Freed the lease of account prod (POSTUREOPS_LEASE_1).');
  expect(await leaseIds('prod')).toEqual([]);
  expect((await cli(['unlock', EXAMPLES, '--auto-approve'], { env })).stderr).toContain('No apply lease is held in prod, staging.');

  const applied = await cli(['apply', EXAMPLES, '--auto-approve'], { env });
  expect(applied.code).toBe(0);
  expect(applied.stdout).toContain('Apply lease: held on prod, staging');
  expect(await leaseIds('prod')).toEqual([]);
});

it('a lease record is never planned, listed as unmanaged or exported', async () => {
  const { env, crashed } = await setUp();
  expect((await cli(['apply', EXAMPLES, '--auto-approve'], { env })).code).toBe(0);
  await crashed();
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

it('a lease freed with unlock mid-apply stops the apply before its next write: its report, then exit 4', async () => {
  const { emu, env, leaseIds } = await setUp(['prod']);
  const dir = await webhookRepo(['prod'], 3, cleanup as Array<() => Promise<void>>);
  let created = 0;
  // Held: the fence read before the second create.
  const proxy = await holdingProxy(emu.url, (req) => {
    if (req.method === 'POST' && req.url === '/api/v2/AlertChannels') created++;
    return created === 1 && req.method === 'GET' && req.url === '/api/v2/AlertProfiles';
  });
  cleanup.push(() => proxy.close());
  const running = cli(['apply', dir, '--auto-approve', '--concurrency', '1', '--format', 'json'], { env: { ...env, SVC_BASE_URL: proxy.url } });
  await proxy.reached;
  const freed = await cli(['unlock', dir, '--auto-approve'], { env });
  expect(freed.code).toBe(0);
  expect(freed.stderr).toMatch(/account prod: lease POSTUREOPS_LEASE_1 held by \S+ pid \d+, renewed 0s ago/);
  proxy.release();
  const stopped = await running;
  expect(stopped.code).toBe(4);
  expect(stopped.stderr).toContain("the apply lease of account prod is no longer this run's (its lease record was deleted): stopped before the next write: run plan and apply again");
  const report = JSON.parse(stopped.stdout);
  expect(report.stopped).toMatchObject({ cause: 'lease-lost', notStarted: 2 });
  expect(report.results.map((r: { status: string }) => r.status)).toEqual(['done', 'skipped', 'skipped']);
  const names = (await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' })).body.data.map((r: { name: string }) => r.name);
  expect(names).toEqual(['hook-01']);
  expect(await leaseIds('prod')).toEqual([]);
});

it('an apply killed with SIGKILL mid-apply blocks the next one for at most two minutes of service time', async () => {
  const { emu, env, clock, leaseIds } = await setUp(['prod']);
  const dir = await webhookRepo(['prod'], 3, cleanup as Array<() => Promise<void>>);
  // The child holds the lease, has sent its first create, and waits for an answer that never comes.
  const proxy = await holdingProxy(emu.url, (req) => req.method === 'POST' && req.url === '/api/v2/AlertChannels');
  cleanup.push(() => proxy.close());
  const child = spawn(process.execPath, [BIN, 'apply', dir, '--auto-approve', '--concurrency', '1'], {
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', SVC_BASE_URL: proxy.url, SVC_API_KEY_ID: emu.keyId, SVC_API_SECRET: emu.secret },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const closed = new Promise<string | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
  cleanup.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  await proxy.reached;
  expect(await leaseIds('prod')).toEqual(['POSTUREOPS_LEASE_1']);
  child.kill('SIGKILL');
  expect(await closed).toBe('SIGKILL');

  const env1 = { ...env, SVC_BASE_URL: emu.url };
  const blocked = await cli(['apply', dir, '--auto-approve'], { env: env1 });
  expect(blocked.code).toBe(4);
  clock.set(START + LEASE_STALE_MS - 1_000);
  const stillBlocked = await cli(['apply', dir, '--auto-approve'], { env: env1 });
  expect(stillBlocked.code).toBe(4);
  expect(stillBlocked.stderr).toContain('renewed 119s ago');

  clock.set(START + LEASE_STALE_MS);
  const applied = await cli(['apply', dir, '--auto-approve'], { env: env1 });
  expect(applied.code, applied.stderr).toBe(0);
  expect(oneLine(applied.stdout)).toMatch(/Apply lease: held on prod; took over the lease of account prod from \S+ pid \d+ \(not renewed for 120s\)/);
  const names = (await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' })).body.data.map((r: { name: string }) => r.name).sort();
  // The killed run's create never reached the service: each name once.
  expect(names).toEqual(['hook-01', 'hook-02', 'hook-03']);
  expect(await leaseIds('prod')).toEqual([]);
});

it('takes the lease on an account whose predefined profiles carry another vendor prefix (LW_, as the real service)', async () => {
  const emu = await startEmulator({ accounts: ['prod'], predefinedPrefix: 'LW_' });
  cleanup.push(() => emu.close());
  const dir = await webhookRepo(['prod'], 2, cleanup as Array<() => Promise<void>>);
  const applied = await cli(['apply', dir, '--auto-approve'], { env: serviceEnv(emu) });
  expect(applied.code, applied.stderr).toBe(0);
  const profiles = (await rawApi(emu, 'GET', '/api/v2/AlertProfiles', { account: 'prod' })).body.data.map((p: { alertProfileId: string }) => p.alertProfileId);
  // Taken (extending an LW_ profile) and freed again.
  expect(profiles.some((id: string) => id.startsWith('LW_'))).toBe(true);
  expect(profiles.filter((id: string) => id.startsWith(LEASE_ID_PREFIX))).toEqual([]);
  expect(applied.stderr).not.toContain('no predefined alert profile');
});
