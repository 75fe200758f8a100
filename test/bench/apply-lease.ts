// `npm run bench -- --apply`: applying at a realistic rate limit on a virtual clock (issue 31), and
// the fault campaigns. The rate-limited scenario takes the lease, reads, plans and applies 300
// channel creates in one account at 60 requests an hour per functionality, against the emulator on
// the same virtual clock: requests per change, the lease's requests, and the time the budget model
// predicts (the pre-flight of the read and of the writes with the lease) beside the time taken. The
// campaigns apply the examples-like repository once per seed against an emulator failing 20 % of
// requests (each must converge in one apply, no duplicate), and at 50 % (within three applies).

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/types.js';
import { loadConfig } from '../../src/config/load.js';
import { manualClock, startEmulator } from '../../src/emulator/index.js';
import { apply } from '../../src/ops/apply/apply.js';
import { Leases } from '../../src/ops/lease/lease.js';
import { createLeaseRequest } from '../../src/ops/lease/lease-record.js';
import { fetchLive } from '../../src/ops/live/fetch.js';
import { leaseRestGroups, leaseTakeGroups, preflight, readGroups, TOKEN_GROUP, writeGroups } from '../../src/ops/budget/preflight.js';
import { plan } from '../../src/plan/steps/plan.js';
import { planEstimate } from '../../src/run/plan-run.js';
import { longestWait } from '../../src/render/common.js';
import { KINDS } from '../../src/kinds/index.js';
import type { DesiredState } from '../../src/model/account.js';
import { virtualTime } from '../api/helpers.js';

const PROD = { name: 'prod', orgAccess: false };

async function repo(channels: number): Promise<{ dir: string; desired: DesiredState }> {
  const dir = await mkdtemp(join(tmpdir(), 'postureops-bench-apply-'));
  await writeFile(join(dir, 'postureops.yaml'), 'accounts:\n  - name: prod\n');
  const docs = Array.from({ length: channels }, (_, i) => `kind: AlertChannel\nname: hook-${i}\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/${i}\n`);
  await writeFile(join(dir, 'channels.yaml'), docs.join('---\n'));
  const loaded = await loadConfig(dir, { env: {}, cwd: dir });
  if (!loaded.state) throw new Error('the bench repository does not load');
  return { dir, desired: loaded.state };
}

async function seedReleased(client: ApiClient): Promise<void> {
  const list = await client.request({ method: 'GET', path: '/api/v2/AlertProfiles', account: 'prod' });
  const req = createLeaseRequest(1, { owner: 'seed', holder: 'seed', stamp: 0, state: 'released' }, list.body, { account: 'prod', orgAccess: false, resolve: () => '' });
  await client.request({ ...req, account: 'prod' });
}

export interface ApplyScenario {
  changes: number;
  perHour: number;
  requests: number;
  writes: number;
  leaseRequests: number;
  predictedSeconds: number;
  takenSeconds: number;
  /** `plan`'s estimated wait (longest bucket), the lease's requests and the retry reserve it shows. */
  planSeconds: number;
  planLeaseRequests: number;
  reserveSeconds: number;
  /** Apply's pre-flight of the writes with the lease's renewals and release, and the time the apply took. */
  applyPreflightSeconds: number;
  applyTakenSeconds: number;
}

/** 300 creates at 60 an hour, on one virtual clock for the emulator, the client and the lease. */
export async function rateLimitedApply(changes = 300, perHour = 60): Promise<ApplyScenario> {
  const clock = manualClock(Date.UTC(2026, 10, 27, 9, 0, 0));
  const sleep = virtualTime(clock);
  const emu = await startEmulator({ accounts: ['prod'], clock, rateLimit: 100_000 });
  const { dir, desired } = await repo(changes);
  let beat: (() => Promise<void>) | undefined;
  const client = createClient({
    baseUrl: emu.url,
    keyId: emu.keyId,
    secret: emu.secret,
    now: () => clock.now(),
    sleep,
    maxWaitSeconds: 86_400,
    // The lease's heartbeat on the virtual clock: each second of a rate-limit wait.
    onWait: () => void beat?.(),
  });
  try {
    emu.setRateLimit(perHour);
    await seedReleased(client);
    const begin = clock.now();
    const statsBefore = client.stats().total;
    // Predicted: the read's pre-flight (with the lease's taking), then the writes' with its renewals and release.
    const reads = readGroups([PROD], () => KINDS.filter((k) => k.kind === 'AlertChannel'));
    const leases = await Leases.acquire(client, PROD, [PROD], {
      holder: 'bench',
      clock: { mono: () => clock.now(), wall: () => clock.now(), sleep },
      heartbeat: (b) => {
        beat = b;
        return () => (beat = undefined);
      },
    });
    const live = await fetchLive(client, [PROD], KINDS.filter((k) => k.kind === 'AlertChannel'));
    // The plan's own estimate, as `plan` shows it (plan-run.ts), for an apply read under its lease.
    const estimated = planEstimate(plan(desired, live, {}), client.budget(), clock.now(), client, { lease: true });
    const p = estimated.plan!;
    const planSeconds = longestWait(p.budget);
    const writes = writeGroups(p.changes, KINDS, p.accounts);
    const readPredicted = preflight([TOKEN_GROUP, ...leaseTakeGroups(), ...reads], [], begin).seconds;
    // Apply's pre-flight of the writes, as readyToApply counts them (apply-run.ts: leaseRest).
    const writeEstimate = preflight(writes, client.budget(), clock.now());
    const applyPreflight = preflight([...writes, ...leaseRestGroups(writeEstimate.seconds, client.requestBoundMs?.())], client.budget(), clock.now()).seconds;
    const predicted = readPredicted + applyPreflight;
    const applyStart = clock.now();
    const report = await apply(p, client, { env: {}, leases, concurrency: 4, now: () => clock.now(), sleep });
    const applyTaken = (clock.now() - applyStart) / 1000;
    await leases.release();
    const taken = (clock.now() - begin) / 1000;
    const byBucket = client.stats().byBucket;
    const lease = Object.entries(byBucket)
      .filter(([b]) => /AlertProfiles$/.test(b))
      .reduce((n, [, v]) => n + v, 0);
    return {
      changes: p.changes.length,
      perHour,
      requests: client.stats().total - statsBefore,
      writes: report.summary.done,
      // The seed's list and create are not the run's.
      leaseRequests: lease - 2,
      predictedSeconds: predicted,
      takenSeconds: taken,
      planSeconds,
      planLeaseRequests: p.leaseRequests ?? 0,
      reserveSeconds: p.retryReserve?.seconds ?? 0,
      applyPreflightSeconds: applyPreflight,
      applyTakenSeconds: applyTaken,
    };
  } finally {
    await client.close();
    await emu.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** One seed's apply at `faults`: applies until nothing is left (at most `runs`); how many it took and whether a name is there twice. */
async function faultyApplies(seed: number, faults: number, runs: number, dir: string, desired: DesiredState): Promise<{ applies: number; duplicate: boolean }> {
  const emu = await startEmulator({ accounts: ['prod'], rateLimit: 100_000, faults, faultSeed: seed });
  // One virtual clock for the client's retry budget and backoffs and the apply's create retries, on
  // which concurrent sleeps overlap (as they do in real time) rather than add up.
  const clock = manualClock(Date.UTC(2026, 10, 27, 9, 0, 0));
  const sleep = virtualTime(clock);
  const client = createClient({ baseUrl: emu.url, keyId: emu.keyId, secret: emu.secret, now: () => clock.now(), sleep });
  try {
    for (let n = 1; n <= runs; n++) {
      const live = await fetchLive(client, [PROD], KINDS);
      const p = plan(desired, live, { force: true }).plan!;
      if (p.changes.length === 0) return { applies: n - 1, duplicate: false };
      await apply(p, client, { env: {}, concurrency: 4, now: () => clock.now(), sleep });
      const after = await fetchLive(client, [PROD], KINDS);
      const names = after.resources.filter((r) => r.kind === 'AlertChannel').map((r) => r.name);
      if (new Set(names).size !== names.length) return { applies: n, duplicate: true };
      if (plan(desired, after, { force: true }).plan!.changes.length === 0) return { applies: n, duplicate: false };
    }
    return { applies: runs + 1, duplicate: false };
  } catch {
    return { applies: runs + 1, duplicate: false };
  } finally {
    await client.close();
    await emu.close();
  }
}

export interface Campaign {
  faults: number;
  seeds: number;
  byApplies: Record<string, number>;
  duplicates: number;
}

export async function campaign(faults: number, seeds: number, runs: number, note: (line: string) => void): Promise<Campaign> {
  const { dir, desired } = await repo(20);
  const out: Campaign = { faults, seeds, byApplies: {}, duplicates: 0 };
  try {
    for (let seed = 1; seed <= seeds; seed++) {
      const r = await faultyApplies(seed, faults, runs, dir, desired);
      const key = r.applies > runs ? `not within ${runs}` : String(r.applies);
      out.byApplies[key] = (out.byApplies[key] ?? 0) + 1;
      if (r.duplicate) out.duplicates++;
      if (seed % 50 === 0) note(`  ${seed}/${seeds} applies at ${Math.round(faults * 100)} %`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return out;
}

/** `1.2 % off`: how far `estimate` is from `actual`, as a share of `actual`. */
function off(estimate: number, actual: number): string {
  return `${((Math.abs(estimate - actual) / Math.max(1, actual)) * 100).toFixed(1)} % off`;
}

export function applyTable(s: ApplyScenario, campaigns: Campaign[]): string {
  const lines = [
    '| apply at a rate limit (virtual clock) | result |',
    '|---|---|',
    `| changes | ${s.changes} channel creates in one account, ${s.perHour} requests an hour per functionality |`,
    `| requests | ${s.requests} (${(s.requests / s.changes).toFixed(3)} per change): ${s.writes} writes, ${s.leaseRequests} of the lease |`,
    `| predicted (pre-flights) | ${Math.round(s.predictedSeconds)} s |`,
    `| taken | ${Math.round(s.takenSeconds)} s (${((s.takenSeconds / s.predictedSeconds - 1) * 100).toFixed(1)} % off the prediction) |`,
    `| plan's estimate | ${Math.round(s.planSeconds)} s of waiting; ${s.planLeaseRequests} requests for the lease; up to ${Math.round(s.reserveSeconds)} s more reserved for retries under faults |`,
    `| apply's pre-flight | ${Math.round(s.applyPreflightSeconds)} s (plan's estimate ${off(s.planSeconds, s.applyPreflightSeconds)}) |`,
    `| apply took | ${Math.round(s.applyTakenSeconds)} s (plan's estimate ${off(s.planSeconds, s.applyTakenSeconds)}, the pre-flight ${off(s.applyPreflightSeconds, s.applyTakenSeconds)}) |`,
    '',
    '| fault campaign | applies | converged after | duplicates |',
    '|---|---|---|---|',
    ...campaigns.map(
      (c) =>
        `| ${Math.round(c.faults * 100)} % faults | ${c.seeds} | ${Object.entries(c.byApplies)
          .sort()
          .map(([k, n]) => `${k}: ${n}`)
          .join(', ')} | ${c.duplicates} |`,
    ),
  ];
  return lines.join('\n') + '\n';
}
