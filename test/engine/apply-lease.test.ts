// Two applies of one repository against one service, each with its own client, interleaved at the
// critical points by gates on the requests (no timing): the apply lease and the checks around each
// create leave exactly one live resource per name, and the next plan runs without refusing.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import type { ApiClient, ApiRequest } from '../../src/api/types.js';
import { loadConfig } from '../../src/config/load.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { ALREADY_LIVE_REASON } from '../../src/engine/apply-change.js';
import { apply } from '../../src/engine/apply.js';
import { exportConfig } from '../../src/engine/export.js';
import { fetchLive } from '../../src/engine/fetch.js';
import { DEFAULT_LEASE_TTL_MS, LeaseHeldError, Leases, type LeaseOptions } from '../../src/engine/lease.js';
import { plan } from '../../src/engine/plan.js';
import type { ApplyReport, Plan } from '../../src/model/plan.js';
import { KINDS } from '../../src/kinds/index.js';
import { LEASE_NAME } from '../../src/kinds/lease-record.js';

const ROOT = `accounts:
  - name: prod
  - name: staging
defaults:
  account: prod
prune: {AlertRule: true, AlertChannel: true}
`;
const CHANNELS = `kind: AlertChannel
name: ops-hook
account: "*"
spec:
  type: Webhook
  data:
    webhookUrl: https://example.com/ops
---
kind: AlertChannel
name: pager-hook
spec:
  type: Webhook
  data:
    webhookUrl: https://example.com/pager
`;
const RULES = `kind: AlertRule
name: critical
account: "*"
spec:
  channels: [ops-hook]
  severity: [critical, high]
  eventCategory: [Cloud]
`;
const accounts = [
  { name: 'prod', orgAccess: false },
  { name: 'staging', orgAccess: false },
];
const BASE = Date.UTC(2024, 0, 1);

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function repository(withRules = true): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'postureops-lease-'));
  dirs.push(dir);
  await writeFile(join(dir, 'postureops.yaml'), ROOT);
  await writeFile(join(dir, 'channels.yaml'), CHANNELS);
  if (withRules) await writeFile(join(dir, 'rules.yaml'), RULES);
  return dir;
}

async function planFor(client: ApiClient, dir: string): Promise<ReturnType<typeof plan>> {
  const loaded = await loadConfig(dir, { env: {}, cwd: dir });
  expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return plan(loaded.state!, await fetchLive(client, accounts, KINDS), {});
}

async function changesOf(client: ApiClient, dir: string): Promise<Plan> {
  const result = await planFor(client, dir);
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return result.plan!;
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
}
function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A client whose requests can be held at a point: `stopAt(pred)` holds the first matching request. */
function gated(inner: ApiClient) {
  const stops: { pred: (req: ApiRequest) => boolean; reached: Deferred; go: Deferred; hit: boolean }[] = [];
  const sent: ApiRequest[] = [];
  const client: ApiClient = {
    async request(req) {
      const stop = stops.find((s) => !s.hit && s.pred(req));
      if (stop) {
        stop.hit = true;
        stop.reached.resolve();
        await stop.go.promise;
      }
      sent.push(req);
      return inner.request(req);
    },
    budget: () => inner.budget(),
    stats: () => inner.stats(),
    close: () => inner.close(),
  };
  return {
    client,
    sent,
    stopAt(pred: (req: ApiRequest) => boolean) {
      const stop = { pred, reached: deferred(), go: deferred(), hit: false };
      stops.push(stop);
      return { reached: stop.reached.promise, release: () => stop.go.resolve() };
    },
  };
}

const isLeaseWrite = (req: ApiRequest) => req.method === 'POST' && (req.body as { name?: string } | undefined)?.name === LEASE_NAME;
const isResourceCreate = (req: ApiRequest) => req.method === 'POST' && !isLeaseWrite(req) && !req.path.endsWith('/test');

/** A clock both runs share; sleeping moves it (and may wait for something else to happen first). */
function sharedClock() {
  let t = BASE;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

/** Live resources per (account, kind, name), lease records included, read without the engine's filter. */
async function liveCounts(client: ApiClient): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const account of accounts) {
    for (const path of ['/api/v2/AlertChannels', '/api/v2/AlertRules']) {
      const res = await client.request<{ data: { name?: string; filters?: { name?: string } }[] }>({ method: 'GET', path, account: account.name });
      for (const r of res.body.data) {
        const name = r.name ?? r.filters?.name;
        const key = `${account.name}/${path.split('/').pop()}/${name}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
  }
  return counts;
}

function expectOnePerName(counts: Map<string, number>, names: number): void {
  expect([...counts.keys()].filter((k) => k.endsWith('/' + LEASE_NAME))).toEqual([]);
  expect([...counts.values()]).toEqual(new Array(names).fill(1));
}

describe('two applies of one repository at once', () => {
  let emulator: RunningEmulator;
  let clients: ApiClient[];
  const open = (): ApiClient => {
    const c = createClient({ baseUrl: emulator.url, keyId: emulator.keyId, secret: emulator.secret });
    clients.push(c);
    return c;
  };
  beforeEach(async () => {
    emulator = await startEmulator({ accounts: ['prod', 'staging'], rateLimit: 100_000 });
    clients = [];
  });
  afterEach(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await emulator?.close();
  });

  it('the second one stops before its first write while the first holds the lease, and says so', async () => {
    const dir = await repository();
    const a = gated(open());
    const b = gated(open());
    const [planA, planB] = [await changesOf(a.client, dir), await changesOf(b.client, dir)];
    expect(planB.changes.filter((c) => c.action === 'create')).toHaveLength(5);
    const clock = sharedClock();
    const held = a.stopAt(isResourceCreate);
    const applyA = apply(planA, a.client, { env: {}, lease: { now: clock.now, holder: 'run A' } });
    await held.reached;

    const stopped = await apply(planB, b.client, { env: {}, lease: { now: clock.now, holder: 'run B', sleep: async () => {} } }).catch((e: unknown) => e);
    expect(stopped).toBeInstanceOf(LeaseHeldError);
    expect((stopped as Error).message).toMatch(/another apply holds the lease of account prod \(run A; .*\): nothing was changed/);
    expect(b.sent.filter(isResourceCreate)).toEqual([]);

    held.release();
    const reportA = await applyA;
    expect(reportA.summary).toMatchObject({ done: 5, failed: 0 });
    expect(reportA.lease).toEqual({ accounts: ['prod', 'staging'], waitedSeconds: 0, notes: [] });
    expectOnePerName(await liveCounts(a.client), 5);
    const next = await planFor(b.client, dir);
    expect(next.plan?.refusal).toBeUndefined();
    expect(next.plan?.changes).toEqual([]);
  });

  it('a second one that waits creates nothing: its fresh look under the lease finds every name live', async () => {
    const dir = await repository();
    const a = gated(open());
    const b = gated(open());
    const [planA, planB] = [await changesOf(a.client, dir), await changesOf(b.client, dir)];
    const clock = sharedClock();
    const held = a.stopAt(isResourceCreate);
    const applyA = apply(planA, a.client, { env: {}, lease: { now: clock.now, holder: 'run A' } });
    await held.reached;
    // B's first pause (to let a contender withdraw, or between looks while waiting) lets A finish.
    const waiting: LeaseOptions = {
      now: clock.now,
      holder: 'run B',
      waitMs: 10 * 60_000,
      sleep: async (ms) => {
        held.release();
        await applyA;
        clock.advance(ms);
      },
    };
    const reportB = await apply(planB, b.client, { env: {}, lease: waiting });

    expect(b.sent.filter(isResourceCreate)).toEqual([]);
    expect(reportB.results.map((r) => [r.status, r.reason])).toEqual(planB.changes.map(() => ['done', ALREADY_LIVE_REASON]));
    const reportA = await applyA;
    expect(reportB.results.map((r) => r.liveId)).toEqual(reportA.results.map((r) => r.liveId));
    expectOnePerName(await liveCounts(a.client), 5);
    expect((await changesOf(b.client, dir)).changes).toEqual([]);
  });

  it('when both write their lease records before either reads, exactly one goes on and the other stops', async () => {
    const dir = await repository();
    const a = gated(open());
    const b = gated(open());
    const [planA, planB] = [await changesOf(a.client, dir), await changesOf(b.client, dir)];
    const clock = sharedClock();
    const readA = a.stopAt((r) => r.method === 'GET');
    const readB = b.stopAt((r) => r.method === 'GET');
    const settled = [deferred(), deferred()];
    // The lowest contender pauses until the other has withdrawn (its apply has ended).
    const options = (i: number): LeaseOptions => ({ now: clock.now, holder: `run ${i}`, sleep: () => settled[1 - i].promise });
    const runs = [apply(planA, a.client, { env: {}, lease: options(0) }), apply(planB, b.client, { env: {}, lease: options(1) })].map((p, i) =>
      p.then(
        (report) => report,
        (err: unknown) => err,
      ).finally(() => settled[i].resolve()),
    );
    await Promise.all([readA.reached, readB.reached]);
    expect(a.sent.filter(isLeaseWrite)).toHaveLength(1);
    expect(b.sent.filter(isLeaseWrite)).toHaveLength(1);
    readA.release();
    readB.release();
    const outcomes = await Promise.all(runs);

    const reports = outcomes.filter((o): o is ApplyReport => !(o instanceof Error));
    const stopped = outcomes.filter((o) => o instanceof LeaseHeldError);
    expect(reports).toHaveLength(1);
    expect(stopped).toHaveLength(1);
    expect(reports[0].summary).toMatchObject({ done: 5, failed: 0 });
    expectOnePerName(await liveCounts(a.client), 5);
    expect((await changesOf(a.client, dir)).changes).toEqual([]);
  });

  it('when a lease fails (clocks apart by more than its lifetime), the last check keeps the lowest id of each name', async () => {
    const dir = await repository(false);
    const a = gated(open());
    const b = gated(open());
    const [planA, planB] = [await changesOf(a.client, dir), await changesOf(b.client, dir)];
    // Both hold a lease (B's clock reads A's as expired), both look before creating, then both create
    // (one change at a time, so that the gate holds each run before its first create).
    const createA = a.stopAt(isResourceCreate);
    const createB = b.stopAt(isResourceCreate);
    let createdA = false;
    let createdB = false;
    const lastA = a.stopAt((r) => r.method === 'GET' && createdA);
    const lastB = b.stopAt((r) => r.method === 'GET' && createdB);
    const runA = apply(planA, a.client, { env: {}, concurrency: 1, lease: { now: () => BASE, holder: 'run A' } });
    await createA.reached;
    const runB = apply(planB, b.client, { env: {}, concurrency: 1, lease: { now: () => BASE + DEFAULT_LEASE_TTL_MS + 60_000, holder: 'run B' } });
    await createB.reached;
    createdA = createdB = true;
    createA.release();
    createB.release();
    // Both created everything before either looks for duplicates.
    await Promise.all([lastA.reached, lastB.reached]);
    expect(a.sent.filter(isResourceCreate)).toHaveLength(3);
    expect(b.sent.filter(isResourceCreate)).toHaveLength(3);
    lastA.release();
    lastB.release();
    const [reportA, reportB] = await Promise.all([runA, runB]);

    expectOnePerName(await liveCounts(a.client), 3);
    for (let i = 0; i < reportA.results.length; i++) {
      const pair = [reportA.results[i], reportB.results[i]];
      // One run removed its own and names the survivor; the other kept it (and says so when it
      // looked before the duplicate was gone).
      const removed = pair.filter((r) => /removed this run's/.test(r.reason ?? ''));
      const kept = pair.filter((r) => !removed.includes(r));
      expect(removed).toHaveLength(1);
      expect(kept[0].reason ?? '').toMatch(/^$|is kept \(lowest id\)/);
      expect(removed[0].liveId).toBe(kept[0].liveId);
    }
    const next = await planFor(a.client, dir);
    expect(next.plan?.refusal).toBeUndefined();
    expect(next.plan?.changes).toEqual([]);
  });
});

describe('a lease that expires while its run is stalled', () => {
  let emulator: RunningEmulator;
  const clients: ApiClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await emulator?.close();
  });

  it('is taken by the next apply, and the stalled run creates nothing more: its check before each create says why', async () => {
    emulator = await startEmulator({ accounts: ['prod', 'staging'], rateLimit: 100_000 });
    const open = () => {
      const c = createClient({ baseUrl: emulator.url, keyId: emulator.keyId, secret: emulator.secret });
      clients.push(c);
      return c;
    };
    const dir = await repository();
    const a = gated(open());
    const planA = await changesOf(a.client, dir);
    const clock = sharedClock();
    // A holds both leases and stalls in its first create (past that create's check) for longer than
    // the lease lives; meanwhile another run takes the leases, removing A's expired records.
    const stall = a.stopAt(isResourceCreate);
    const runA = apply(planA, a.client, { env: {}, concurrency: 1, lease: { now: clock.now, holder: 'run A' } });
    await stall.reached;
    clock.advance(DEFAULT_LEASE_TTL_MS + 1);
    const other = await Leases.acquire(open(), KINDS, accounts, { now: clock.now, holder: 'run B' });
    expect(other?.report().notes).toEqual([
      'removed an expired lease record in account prod (run A)',
      'removed an expired lease record in account staging (run A)',
    ]);
    stall.release();
    const reportA = await runA;

    expect(reportA.results[0].status).toBe('done');
    const lost = (account: string) => `the lease of account ${account} expired and was removed by another apply: not created, run plan again`;
    expect(reportA.results.slice(1).map((r) => [r.key, r.status, r.reason])).toEqual([
      ['prod/AlertChannel/pager-hook', 'failed', lost('prod')],
      ['prod/AlertRule/critical', 'failed', lost('prod')],
      ['staging/AlertChannel/ops-hook', 'failed', lost('staging')],
      ['staging/AlertRule/critical', 'skipped', 'depends on staging/AlertChannel/ops-hook, which failed'],
    ]);
    // One create, the renewal attempts, and no other write by A after it lost the lease.
    expect(a.sent.filter(isResourceCreate)).toHaveLength(1);
    const leaseRecords = (await liveCounts(a.client)).get(`prod/AlertChannels/${LEASE_NAME}`);
    expect(leaseRecords).toBe(1);
    await other?.release();
    expect((await changesOf(a.client, dir)).changes).toHaveLength(4);
  });
});

describe('a lease left behind', () => {
  let emulator: RunningEmulator;
  let client: ApiClient;
  beforeEach(async () => {
    emulator = await startEmulator({ accounts: ['prod', 'staging'], rateLimit: 100_000 });
    client = createClient({ baseUrl: emulator.url, keyId: emulator.keyId, secret: emulator.secret });
    // A run that took the lease of prod and crashed: never released.
    await Leases.acquire(client, KINDS, [accounts[0]], { now: () => BASE, holder: 'crashed run' });
  });
  afterEach(async () => {
    await client?.close();
    await emulator?.close();
  });

  it('blocks until it expires, then is removed by the next apply', async () => {
    const dir = await repository();
    const planned = await changesOf(client, dir);
    const before = await apply(planned, client, { env: {}, lease: { now: () => BASE + DEFAULT_LEASE_TTL_MS - 1, holder: 'next run', sleep: async () => {} } }).catch((e: unknown) => e);
    expect(before).toBeInstanceOf(LeaseHeldError);
    expect((before as Error).message).toContain('crashed run');

    const after = await apply(planned, client, { env: {}, lease: { now: () => BASE + DEFAULT_LEASE_TTL_MS, holder: 'next run' } });
    expect(after.summary).toMatchObject({ done: 5, failed: 0 });
    expect(after.lease?.notes).toEqual(['removed an expired lease record in account prod (crashed run)']);
    expectOnePerName(await liveCounts(client), 5);
  });

  it('never shows in a plan, among unmanaged resources or in an export', async () => {
    const raw = await liveCounts(client);
    expect(raw.get(`prod/AlertChannels/${LEASE_NAME}`)).toBe(1);
    const dir = await repository();
    const result = await planFor(client, dir);
    const text = JSON.stringify(result);
    expect(text).not.toContain(LEASE_NAME);
    expect(result.plan?.unmanaged).toEqual([]);
    expect(result.plan?.changes.map((c) => c.name).sort()).toEqual(['critical', 'critical', 'ops-hook', 'ops-hook', 'pager-hook']);
    const exported = exportConfig(await fetchLive(client, accounts, KINDS), { accounts });
    expect(exported.files.length).toBeGreaterThan(0);
    expect(JSON.stringify(exported)).not.toContain(LEASE_NAME);
  });
});
