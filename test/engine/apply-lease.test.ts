// The apply lease against the emulator: applies of one repository, each with its own client, are
// interleaved at the critical points by gates on their requests (no timing), and the service's time
// is the emulator's virtual clock. Whatever the interleaving, deletion, edit or clock skew: at most
// one apply writes, the others stop (LeaseHeldError, or a report stopped by `lease-lost`), no name
// is created twice, and a lease whose holder is gone is free after two minutes of service time.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { ApiError, type ApiClient, type ApiRequest } from '../../src/api/types.js';
import { loadConfig } from '../../src/config/load.js';
import { manualClock, startEmulator, type ManualClock, type RunningEmulator } from '../../src/emulator/index.js';
import { ALREADY_LIVE_REASON } from '../../src/ops/apply/apply-change.js';
import { apply } from '../../src/ops/apply/apply.js';
import { exportConfig } from '../../src/ops/export/export.js';
import { fetchLive } from '../../src/ops/live/fetch.js';
import { LEASE_STALE_MS, LeaseHeldError, Leases, type LeaseOptions } from '../../src/ops/lease/lease.js';
import { plan } from '../../src/plan/steps/plan.js';
import type { ApplyReport, Plan } from '../../src/model/plan.js';
import { KINDS } from '../../src/kinds/index.js';
import { LEASE_ID_PREFIX } from '../../src/kinds/lease-record.js';

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
/** The service's virtual time starts at the real time (whole seconds, as its Date header says), so that tokens stay valid for clients on the real clock. */
const START = Math.floor(Date.now() / 1000) * 1000;
const accounts = [
  { name: 'prod', orgAccess: false },
  { name: 'staging', orgAccess: false },
];
/** No heartbeat in these tests: renewals happen at fences, or when a test beats by hand. */
const still: LeaseOptions['heartbeat'] = () => () => undefined;

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function repository(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'postureops-lease-'));
  dirs.push(dir);
  await writeFile(join(dir, 'postureops.yaml'), ROOT);
  await writeFile(join(dir, 'channels.yaml'), CHANNELS);
  await writeFile(join(dir, 'rules.yaml'), RULES);
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

const isProfiles = (req: ApiRequest) => req.path.split('?')[0] === '/api/v2/AlertProfiles';
const isLeaseCreate = (req: ApiRequest) => req.method === 'POST' && isProfiles(req);
const isLeaseRead = (req: ApiRequest) => req.method === 'GET' && isProfiles(req);
const isResourceWrite = (req: ApiRequest) => req.method !== 'GET' && !req.path.startsWith('/api/v2/AlertProfiles') && !req.path.endsWith('/search');

/** Live resources per (account, collection, name), read without the engine's filter. */
async function liveCounts(client: ApiClient): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const account of accounts) {
    for (const path of ['/api/v2/AlertChannels', '/api/v2/AlertRules']) {
      const res = await client.request<{ data: { name?: string; filters?: { name?: string } }[] }>({ method: 'GET', path, account: account.name });
      for (const r of res.body.data) {
        const key = `${account.name}/${path.split('/').pop()}/${r.name ?? r.filters?.name}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    }
  }
  return counts;
}

function expectOnePerName(counts: Map<string, number>, names: number): void {
  expect([...counts.values()]).toEqual(new Array(names).fill(1));
}

/** The lease records of an account as the service lists them. */
async function leaseRecords(client: ApiClient, account: string): Promise<{ alertProfileId: string; alerts: { description: string }[] }[]> {
  const res = await client.request<{ data: { alertProfileId: string; alerts: { description: string }[] }[] }>({ method: 'GET', path: '/api/v2/AlertProfiles', account });
  return res.body.data.filter((p) => p.alertProfileId.startsWith(LEASE_ID_PREFIX));
}

let emulator: RunningEmulator;
let clock: ManualClock;
let clients: ApiClient[];
const open = (now?: () => number): ApiClient => {
  const c = createClient({ baseUrl: emulator.url, keyId: emulator.keyId, secret: emulator.secret, ...(now ? { now } : {}) });
  clients.push(c);
  return c;
};
beforeEach(async () => {
  clock = manualClock(START);
  emulator = await startEmulator({ accounts: ['prod', 'staging'], rateLimit: 100_000, clock });
  clients = [];
});
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await emulator?.close();
});

const lease = (holder: string, extra: LeaseOptions = {}): LeaseOptions => ({ holder, heartbeat: still, sleep: async () => {}, ...extra });
const outcome = (p: Promise<ApplyReport>): Promise<ApplyReport | Error> => p.catch((e: unknown) => e as Error);

describe('the service the lease stands on (emulator)', () => {
  it('refuses a second create of one alert profile id with 409, however close together, and dates its answers by its own clock', async () => {
    const client = open();
    const body = { alertProfileId: 'POSTUREOPS_LEASE_1', extends: 'SVC_HE_FILES_DEFAULT_PROFILE', alerts: [] };
    const creates = await Promise.allSettled(
      Array.from({ length: 3 }, () => client.request({ method: 'POST', path: '/api/v2/AlertProfiles', account: 'prod', body })),
    );
    expect(creates.filter((c) => c.status === 'fulfilled')).toHaveLength(1);
    const refused = creates.flatMap((c) => (c.status === 'rejected' ? [c.reason as ApiError] : []));
    expect(refused.map((e) => e.status)).toEqual([409, 409]);
    clock.advance(3_600_000 + 7_000);
    const read = await client.request({ method: 'GET', path: '/api/v2/AlertProfiles', account: 'prod' });
    expect(read.date).toBe(clock.now());
  });
});

describe('applies at once', () => {
  it('the second one stops before its first write while the first holds the lease, and says so', async () => {
    const dir = await repository();
    const a = gated(open());
    const b = gated(open());
    const [planA, planB] = [await changesOf(a.client, dir), await changesOf(b.client, dir)];
    const held = a.stopAt(isResourceWrite);
    const applyA = apply(planA, a.client, { env: {}, lease: lease('run A') });
    await held.reached;

    const stopped = await outcome(apply(planB, b.client, { env: {}, lease: lease('run B') }));
    expect(stopped).toBeInstanceOf(LeaseHeldError);
    expect((stopped as Error).message).toBe(
      "another apply holds the lease of account prod (run A; renewed 0s ago by the service's clock; free after 120s without renewal): nothing was changed",
    );
    expect(b.sent.filter(isResourceWrite)).toEqual([]);
    // B took nothing: A's records are the only ones.
    expect((await leaseRecords(b.client, 'prod')).map((r) => r.alertProfileId)).toEqual(['POSTUREOPS_LEASE_1']);

    held.release();
    const reportA = await applyA;
    expect(reportA.summary).toMatchObject({ done: 5, failed: 0 });
    expect(reportA.lease).toEqual({ accounts: ['prod', 'staging'], waitedSeconds: 0, notes: [] });
    expectOnePerName(await liveCounts(a.client), 5);
    expect(await leaseRecords(a.client, 'prod')).toEqual([]);
    expect((await changesOf(b.client, dir)).changes).toEqual([]);
  });

  it('three at once, all having seen no lease: one wins the create, the other two stop before any write', async () => {
    const dir = await repository();
    const runs = [gated(open()), gated(open()), gated(open())];
    const plans = await Promise.all(runs.map((r) => changesOf(r.client, dir)));
    const creates = runs.map((r) => r.stopAt(isLeaseCreate));
    const results = runs.map((r, i) => outcome(apply(plans[i], r.client, { env: {}, lease: lease(`run ${i}`) })));
    // Each has looked (no lease anywhere) and is about to create generation 1.
    await Promise.all(creates.map((c) => c.reached));
    for (const c of creates) c.release();
    const outcomes = await Promise.all(results);

    const reports = outcomes.filter((o): o is ApplyReport => !(o instanceof Error));
    expect(reports).toHaveLength(1);
    expect(outcomes.filter((o) => o instanceof LeaseHeldError)).toHaveLength(2);
    expect(reports[0].summary).toMatchObject({ done: 5, failed: 0 });
    const writers = runs.filter((r) => r.sent.some(isResourceWrite));
    expect(writers).toHaveLength(1);
    expectOnePerName(await liveCounts(runs[0].client), 5);
    expect(await leaseRecords(runs[0].client, 'prod')).toEqual([]);
  });

  it('a second one that waits creates nothing: its fresh look under the lease finds every name live', async () => {
    const dir = await repository();
    const a = gated(open());
    const b = gated(open());
    const [planA, planB] = [await changesOf(a.client, dir), await changesOf(b.client, dir)];
    const held = a.stopAt(isResourceWrite);
    const applyA = apply(planA, a.client, { env: {}, lease: lease('run A') });
    await held.reached;
    const waits: string[] = [];
    const reportB = await apply(planB, b.client, {
      env: {},
      lease: lease('run B', {
        waitMs: 10 * 60_000,
        onWait: (account, other) => waits.push(`${account}: ${other.holder}`),
        sleep: async () => {
          held.release();
          await applyA;
        },
      }),
    });
    expect(waits).toEqual(['prod: run A']);
    expect(b.sent.filter(isResourceWrite)).toEqual([]);
    expect(reportB.results.map((r) => [r.status, r.reason])).toEqual(planB.changes.map(() => ['done', ALREADY_LIVE_REASON]));
    expect(reportB.lease?.notes).toEqual(['waited 30s for another apply in account prod']);
    expectOnePerName(await liveCounts(a.client), 5);
  });
});

describe('a lease changed under a running apply', () => {
  /** A holds both leases, has written once, and is held at the fence read before its second write. */
  async function stalledAfterFirstWrite(dir: string) {
    const a = gated(open());
    const planA = await changesOf(a.client, dir);
    let wrote = false;
    const firstWrite = a.stopAt((req) => {
      if (isResourceWrite(req)) wrote = true;
      return false;
    });
    void firstWrite;
    const fence = a.stopAt((req) => wrote && isLeaseRead(req));
    const run = apply(planA, a.client, { env: {}, concurrency: 1, lease: lease('run A') });
    await fence.reached;
    return { a, run, fence };
  }

  it('deleted mid-apply: the apply stops before its next write (lease-lost) and leaves alone the lease another took since, no name twice', async () => {
    const dir = await repository();
    const { a, run, fence } = await stalledAfterFirstWrite(dir);
    const writesBefore = a.sent.filter(isResourceWrite).length;
    const other = open();
    for (const account of ['prod', 'staging']) await other.request({ method: 'DELETE', path: '/api/v2/AlertProfiles/POSTUREOPS_LEASE_1', account });

    // B takes the leases (the same generation A had) and is held before its first write.
    const b = gated(open());
    const heldB = b.stopAt(isResourceWrite);
    const runB = apply(await changesOf(b.client, dir), b.client, { env: {}, lease: lease('run B') });
    await heldB.reached;

    fence.release();
    const reportA = await run;
    expect(reportA.stopped).toMatchObject({ cause: 'lease-lost' });
    expect(reportA.stopped?.message).toMatch(/^the apply lease of account (prod|staging) is no longer this run's \(its lease record was changed by someone else\): stopped before the next write$/);
    expect(a.sent.filter(isResourceWrite)).toHaveLength(writesBefore);
    expect(reportA.results.filter((r) => r.status === 'skipped').length).toBe(reportA.stopped?.notStarted);
    // A ended without touching B's lease: B's record of the same id is B's.
    expect((await leaseRecords(other, 'prod')).map((r) => r.alerts[0].description)).toEqual([expect.stringContaining('"holder":"run B"')]);

    heldB.release();
    const reportB = await runB;
    expect(reportB.summary).toMatchObject({ failed: 0 });
    expectOnePerName(await liveCounts(other), 5);
    expect((await changesOf(other, dir)).changes).toEqual([]);
    expect(await leaseRecords(other, 'prod')).toEqual([]);
  });

  it('edited mid-apply: the apply stops before its next write, and nobody writes while the record is unreadable', async () => {
    const dir = await repository();
    const { a, run, fence } = await stalledAfterFirstWrite(dir);
    const writesBefore = a.sent.filter(isResourceWrite).length;
    const other = open();
    const edit = { alerts: [{ name: 'Lease', eventName: 'x', subject: 'x', description: 'edited in the console' }] };
    await other.request({ method: 'PATCH', path: '/api/v2/AlertProfiles/POSTUREOPS_LEASE_1', account: 'prod', body: edit });
    fence.release();
    const reportA = await run;
    expect(reportA.stopped?.message).toMatch(/no longer this run's \(its lease record was changed by someone else\)/);
    expect(reportA.lease?.notes).toContain('the lease record of account prod (POSTUREOPS_LEASE_1) was changed by someone else: left in place, postureops unlock frees it');
    expect(a.sent.filter(isResourceWrite)).toHaveLength(writesBefore);

    // The edited record is nobody's: it blocks until it is freed, then the next apply finishes the work once.
    const b = gated(open());
    const stopped = await outcome(apply(await changesOf(b.client, dir), b.client, { env: {}, lease: lease('run B') }));
    expect((stopped as Error).message).toContain('its lease record cannot be read (edited?): postureops unlock frees it');
    expect(b.sent.filter(isResourceWrite)).toEqual([]);
    await other.request({ method: 'DELETE', path: '/api/v2/AlertProfiles/POSTUREOPS_LEASE_1', account: 'prod' });
    const reportB = await apply(await changesOf(b.client, dir), b.client, { env: {}, lease: lease('run B') });
    expect(reportB.summary.failed).toBe(0);
    expectOnePerName(await liveCounts(other), 5);
    expect(await leaseRecords(other, 'prod')).toEqual([]);
  });

  it('an unreadable lease record whose holder is gone blocks until it is freed (postureops unlock)', async () => {
    const client = open();
    await Leases.acquire(client, KINDS, [accounts[0]], lease('crashed run'));
    await client.request({
      method: 'PATCH',
      path: '/api/v2/AlertProfiles/POSTUREOPS_LEASE_1',
      account: 'prod',
      body: { alerts: [{ name: 'Lease', eventName: 'x', subject: 'x', description: 'edited in the console' }] },
    });
    clock.advance(60 * 60_000);
    const stopped = await outcome(apply(await changesOf(client, await repository()), client, { env: {}, lease: lease('run B') }));
    expect((stopped as Error).message).toBe(
      'another apply holds the lease of account prod (unknown holder; its lease record cannot be read (edited?): postureops unlock frees it): nothing was changed',
    );
  });

  it('clocks an hour apart decide nothing: the service says the lease is live, then two minutes without renewal make it free', async () => {
    const dir = await repository();
    const real = Date.now();
    const a = gated(open(() => real - 30 * 60_000));
    const planA = await changesOf(a.client, dir);
    let wrote = false;
    a.stopAt((req) => {
      if (isResourceWrite(req)) wrote = true;
      return false;
    });
    const fence = a.stopAt((req) => wrote && isLeaseRead(req));
    const runA = apply(planA, a.client, { env: {}, concurrency: 1, lease: lease('run A', { now: () => real - 30 * 60_000 }) });
    await fence.reached;

    // B's clock runs an hour ahead of A's.
    const b = gated(open(() => real + 30 * 60_000));
    const planB = await changesOf(b.client, dir);
    const early = await outcome(apply(planB, b.client, { env: {}, lease: lease('run B', { now: () => real + 30 * 60_000 }) }));
    expect(early).toBeInstanceOf(LeaseHeldError);
    clock.advance(LEASE_STALE_MS - 1_000);
    const later = await outcome(apply(planB, b.client, { env: {}, lease: lease('run B', { now: () => real + 30 * 60_000 }) }));
    expect((later as Error).message).toContain('renewed 119s ago');
    expect(b.sent.filter(isResourceWrite)).toEqual([]);

    clock.advance(1_000);
    const reportB = await apply(planB, b.client, { env: {}, lease: lease('run B') });
    expect(reportB.lease?.notes[0]).toBe('took over the lease of account prod from run A (not renewed for 120s)');
    expect(reportB.summary.failed).toBe(0);
    fence.release();
    const reportA = await runA;
    expect(reportA.stopped?.cause).toBe('lease-lost');
    expectOnePerName(await liveCounts(b.client), 5);
    expect((await changesOf(b.client, dir)).changes).toEqual([]);
  });

  it('a fence renews a lease a minute old before the write; a lease its run left unrenewed for two minutes is lost', async () => {
    const dir = await repository();
    const a = gated(open());
    const planA = await changesOf(a.client, dir);
    let writes = 0;
    a.stopAt((req) => {
      if (isResourceWrite(req)) writes++;
      return false;
    });
    const first = a.stopAt((req) => writes === 1 && isLeaseRead(req));
    const second = a.stopAt((req) => writes === 2 && isLeaseRead(req));
    const run = apply(planA, a.client, { env: {}, concurrency: 1, lease: lease('run A') });
    await first.reached;
    clock.advance(61_000);
    first.release();
    await second.reached;
    expect(a.sent.filter((r) => r.method === 'PATCH' && r.path === '/api/v2/AlertProfiles/POSTUREOPS_LEASE_1')).toHaveLength(1);
    clock.advance(LEASE_STALE_MS);
    second.release();
    const report = await run;
    expect(report.stopped?.message).toMatch(/^the apply lease of account (prod|staging) is no longer this run's \(it was not renewed for 1[2-9]\ds of the service's time, so another apply may take it\)/);
    expect(a.sent.filter(isResourceWrite)).toHaveLength(2);
  });
  it('a loss the heartbeat finds stops the run at its next write', async () => {
    const dir = await repository();
    const a = gated(open());
    const planA = await changesOf(a.client, dir);
    let beat: (() => Promise<void>) | undefined;
    let local = 0;
    const write = a.stopAt(isResourceWrite);
    const run = apply(planA, a.client, { env: {}, concurrency: 1, lease: lease('run A', { now: () => local, heartbeat: (b) => ((beat = b), () => undefined) }) });
    await write.reached;
    const other = open();
    for (const account of ['prod', 'staging']) await other.request({ method: 'DELETE', path: '/api/v2/AlertProfiles/POSTUREOPS_LEASE_1', account });
    local += 60_000;
    await beat!();
    write.release();
    const report = await run;
    expect(report.stopped).toMatchObject({ cause: 'lease-lost', notStarted: 4 });
    expect(report.stopped?.message).toContain('(its lease record was deleted)');
    expect(a.sent.filter(isResourceWrite)).toHaveLength(1);
  });
});

describe('a holder that is gone', () => {
  it('blocks the next apply for at most two minutes of service time, then the lease is taken over', async () => {
    const client = open();
    await Leases.acquire(client, KINDS, [accounts[0]], lease('crashed run'));
    const dir = await repository();
    const planned = await changesOf(client, dir);
    for (const wait of [0, LEASE_STALE_MS - 1_000]) {
      clock.set(START + wait);
      expect(await outcome(apply(planned, client, { env: {}, lease: lease('next run') }))).toBeInstanceOf(LeaseHeldError);
    }
    clock.set(START + LEASE_STALE_MS);
    const report = await apply(planned, client, { env: {}, lease: lease('next run') });
    expect(report.summary).toMatchObject({ done: 5, failed: 0 });
    expect(report.lease?.notes).toEqual(['took over the lease of account prod from crashed run (not renewed for 120s)']);
    expect(await leaseRecords(client, 'prod')).toEqual([]);
  });

  it('a live holder keeps it: the heartbeat renews while the run waits', async () => {
    const client = open();
    let beat: (() => Promise<void>) | undefined;
    let local = 0;
    const held = await Leases.acquire(client, KINDS, [accounts[0]], lease('slow run', { now: () => local, heartbeat: (b) => ((beat = b), () => undefined) }));
    clock.advance(100_000);
    local += 60_000;
    await beat!();
    clock.advance(100_000);
    // 200 s after it was taken, 100 s after the heartbeat: still held.
    const other = await outcome(Leases.acquire(open(), KINDS, [accounts[0]], lease('other run')) as Promise<never>);
    expect(other).toBeInstanceOf(LeaseHeldError);
    expect((other as Error).message).toContain('slow run; renewed 100s ago');
    await held!.release();
    expect(await leaseRecords(client, 'prod')).toEqual([]);
  });

  it('the heartbeat runs from the first lease on: a run waiting for its second account keeps its first', async () => {
    let local = 0;
    let otherBeat: (() => Promise<void>) | undefined;
    // The holder of staging lives and renews all along.
    const other = await Leases.acquire(open(), KINDS, [accounts[1]], lease('staging run', { now: () => local, heartbeat: (b) => ((otherBeat = b), () => undefined) }));
    let beat: (() => Promise<void>) | undefined;
    let waited = 0;
    let released = false;
    const third: unknown[] = [];
    // While it waits for staging, five minutes of service time pass, a minute a look, beating as a timer would.
    const waiting = Leases.acquire(
      open(),
      KINDS,
      [accounts[0], accounts[1]],
      lease('two-account run', {
        now: () => local,
        waitMs: 600_000,
        pollMs: 60_000,
        heartbeat: (b) => ((beat = b), () => undefined),
        sleep: async (ms) => {
          clock.advance(ms);
          local += ms;
          waited += ms;
          await otherBeat?.();
          await beat?.();
          if (waited >= 180_000 && third.length === 0) third.push(await Leases.acquire(open(), KINDS, [accounts[0]], lease('third run')).catch((e: unknown) => e));
          if (waited >= 300_000 && !released) {
            released = true;
            await other!.release();
          }
        },
      }),
    );
    const held = await waiting;
    expect(beat).toBeDefined();
    // Three minutes into the wait, prod was still this run's: renewed by the heartbeat, not stale.
    expect(third[0]).toBeInstanceOf(LeaseHeldError);
    expect((third[0] as Error).message).toContain('two-account run');
    await held!.release();
    expect(await leaseRecords(open(), 'prod')).toEqual([]);
  });
});

describe('a run that fails or is interrupted frees every lease it took', () => {
  it('when another apply holds the lease of a later account', async () => {
    const client = open();
    await Leases.acquire(open(), KINDS, [accounts[1]], lease('staging run'));
    const planned = await changesOf(client, await repository());
    const stopped = await outcome(apply(planned, client, { env: {}, lease: lease('both') }));
    expect((stopped as Error).message).toMatch(/account staging \(staging run;/);
    expect(await leaseRecords(client, 'prod')).toEqual([]);
    expect(await leaseRecords(client, 'staging')).toHaveLength(1);
  });

  it('when taking the lease of a later account fails', async () => {
    const inner = open();
    const failing: ApiClient = {
      budget: () => inner.budget(),
      stats: () => inner.stats(),
      close: () => inner.close(),
      request: (req) => (isLeaseCreate(req) && req.account === 'staging' ? Promise.reject(new ApiError({ kind: 'permanent', method: 'POST', path: req.path, status: 403, serviceMessage: 'Forbidden' })) : inner.request(req)),
    };
    const planned = await changesOf(inner, await repository());
    const failed = await outcome(apply(planned, failing, { env: {}, lease: lease('both') }));
    expect(failed).toBeInstanceOf(ApiError);
    expect(await leaseRecords(inner, 'prod')).toEqual([]);
    expect(await leaseRecords(inner, 'staging')).toEqual([]);
  });

  it('when interrupted (SIGINT) after its first write', async () => {
    const a = gated(open());
    const planned = await changesOf(a.client, await repository());
    const stop = new AbortController();
    a.stopAt((req) => {
      if (isResourceWrite(req)) stop.abort('SIGINT');
      return false;
    });
    const report = await apply(planned, a.client, { env: {}, concurrency: 1, signal: stop.signal, lease: lease('run') });
    expect(report.stopped?.cause).toBe('interrupted');
    expect(await leaseRecords(a.client, 'prod')).toEqual([]);
    expect(await leaseRecords(a.client, 'staging')).toEqual([]);
  });
});

it('a lease record never shows in a plan, among unmanaged resources or in an export', async () => {
  const client = open();
  await Leases.acquire(client, KINDS, accounts, lease('crashed run'));
  expect(await leaseRecords(client, 'prod')).toHaveLength(1);
  const result = await planFor(client, await repository());
  const text = JSON.stringify(result);
  expect(text).not.toContain(LEASE_ID_PREFIX);
  expect(result.plan?.unmanaged).toEqual([]);
  expect(result.plan?.changes.map((c) => c.name).sort()).toEqual(['critical', 'critical', 'ops-hook', 'ops-hook', 'pager-hook']);
  const exported = exportConfig(await fetchLive(client, accounts, KINDS), { accounts });
  expect(exported.files.length).toBeGreaterThan(0);
  expect(JSON.stringify(exported)).not.toContain(LEASE_ID_PREFIX);
});
