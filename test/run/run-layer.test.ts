// The run layer in-process against the emulator on 127.0.0.1: the CLI and the Action get the same
// pre-flight (and refusal) and the same plan from it, the budget memory is an interface the run
// recalls before its first request and fills when it closes, and a maximum duration bounds the whole
// run on the run's own clock.

import { appendFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BucketBudget } from '../../src/api/types.js';
import { loadConfig } from '../../src/config/load.js';
import { manualClock, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { actionBudgetMemory, applyPlan, planAgainstService, readyForApply, RunFailure } from '../../src/github/pipeline.js';
import type { DesiredState } from '../../src/model/account.js';
import { type BudgetMemory, NO_BUDGET_MEMORY } from '../../src/run/budget-memory.js';
import { RunError } from '../../src/run/errors.js';
import { planRun } from '../../src/run/plan-run.js';
import { Run, type RunSetup } from '../../src/run/run.js';
import { cli, rawApi, serviceEnv, webhookRepo } from '../e2e/harness.js';

const ACCOUNTS = Array.from({ length: 300 }, (_, i) => `acct-${String(i).padStart(3, '0')}`);
let emu: RunningEmulator;
let big: string;
let small: string;
let cache: string;
const cleanup: Array<() => Promise<void>> = [];

async function desiredOf(dir: string): Promise<DesiredState> {
  const loaded = await loadConfig(dir, { env: {} });
  if (!loaded.state) throw new Error(JSON.stringify(loaded.diagnostics));
  return loaded.state;
}

/** A memory that records its use and recalls what the test gives it. */
function recordingMemory(recalled: BucketBudget[] = []): BudgetMemory & { recalls: number; remembered: BucketBudget[][] } {
  const m = {
    recalls: 0,
    remembered: [] as BucketBudget[][],
    recall: async () => {
      m.recalls++;
      return recalled;
    },
    remember: async (seen: readonly BucketBudget[]) => {
      m.remembered.push([...seen]);
    },
  };
  return m;
}

function setupWith(memory: BudgetMemory, extra: Partial<RunSetup> = {}): RunSetup {
  return { env: serviceEnv(emu), flags: {}, memory: () => memory, ...extra };
}

beforeAll(async () => {
  emu = await startEmulator({ accounts: ACCOUNTS.slice(0, 2) });
  [big, small, cache] = await Promise.all([webhookRepo(ACCOUNTS, 1, cleanup), webhookRepo(ACCOUNTS.slice(0, 2), 2, cleanup), mkdtemp(join(tmpdir(), 'postureops-cache-'))]);
});
afterAll(async () => {
  await emu.close();
  await rm(cache, { recursive: true, force: true });
  while (cleanup.length > 0) await cleanup.pop()!();
});

describe('one pre-flight for both adapters', () => {
  it('the CLI and the Action refuse the same over-long read with the same estimate, and send nothing', async () => {
    const before = emu.requestCount();
    const own = await mkdtemp(join(tmpdir(), 'postureops-cache-'));
    cleanup.push(() => rm(own, { recursive: true, force: true }));
    const byCli = await cli(['plan', big, '--max-duration', '10m'], { env: { ...serviceEnv(emu), POSTUREOPS_CACHE_DIR: own } });
    expect(byCli.code).toBe(3);
    const cliLine = /Pre-flight \(read\): .*/.exec(byCli.stderr)?.[0];
    expect(cliLine).toContain('301 requests in 3 rate-limit buckets; about 16 min of waiting');

    const lines: string[] = [];
    const byAction = await planAgainstService(await desiredOf(big), serviceEnv(emu), { dir: big, accounts: [], maxDurationSeconds: 600, onPreflight: (l) => lines.push(l) }).catch((e: unknown) => e);
    expect(byAction).toBeInstanceOf(RunFailure);
    const failure = (byAction as RunFailure).failure;
    expect(failure.kind).toBe('too-long');
    expect(lines).toEqual([cliLine]);
    expect(failure.kind === 'too-long' && failure.message).toContain('about 16 min');
    expect(byCli.stderr).toContain('refused by --max-duration 10 min: the run would take about 16 min; nothing was sent');
    expect(emu.requestCount()).toBe(before);
  });

  it('target and rotate reach the plan through the run layer, in the Action as in the CLI', async () => {
    const target = 'acct-000/AlertChannel/hook-01';
    const byCli = await cli(['plan', small, '--target', target, '--format', 'json'], { env: { ...serviceEnv(emu), POSTUREOPS_CACHE_DIR: cache } });
    expect(byCli.code, byCli.stderr).toBe(0);
    const planned = await planAgainstService(await desiredOf(small), serviceEnv(emu), { dir: small, accounts: [], targets: [target], rotate: ['acct-001/AlertChannel/*'] });
    try {
      const names = (cs: { account: string; kind: string; name: string }[]) => cs.map((c) => `${c.account}/${c.kind}/${c.name}`).sort();
      expect(names(planned.plan.changes)).toEqual([target]);
      expect(names(planned.plan.changes)).toEqual(names(JSON.parse(byCli.stdout).changes));
      expect(planned.plan.targets).toEqual([target]);
      // A webhook holds no write-only secret: the rotation the Action asked for is answered, as --rotate's is.
      expect(planned.plan.diagnostics.map((d) => d.code)).toContain('rotate-no-match');
    } finally {
      await planned.run.close();
    }
    // A selector that names nothing is the same error in both.
    const none = await planAgainstService(await desiredOf(small), serviceEnv(emu), { dir: small, accounts: [], targets: ['acct-000/AlertChannel/nope'] }).catch((e: unknown) => e);
    expect(none).toBeInstanceOf(RunFailure);
    expect((none as RunFailure).failure.kind).toBe('no-plan');
  });
});

describe('one refusal for both adapters', () => {
  it('the CLI and the Action stop a plan over the safety threshold before any write; --force applies it', async () => {
    const own = await startEmulator({ accounts: ['prod'] });
    cleanup.push(() => own.close());
    const env = { ...serviceEnv(own), POSTUREOPS_CACHE_DIR: cache };
    const twelve = await webhookRepo(['prod'], 12, cleanup);
    expect((await cli(['apply', twelve, '--auto-approve'], { env })).code).toBe(0);
    // The same account with two of the twelve left and prune on: ten deletions of twelve, over 30 %.
    const two = await webhookRepo(['prod'], 2, cleanup);
    await appendFile(join(two, 'postureops.yaml'), 'prune: true\n');
    const count = async () => ((await rawApi(own, 'GET', '/api/v2/AlertChannels', { account: 'prod' })).body.data as unknown[]).length;

    const byCli = await cli(['apply', two, '--auto-approve'], { env });
    expect(byCli.code).toBe(3);
    expect(byCli.stderr).toMatch(/refused: .* \(use --force to override\)/);
    expect(await count()).toBe(12);

    const planned = await planAgainstService(await desiredOf(two), serviceEnv(own), { dir: two, accounts: [] });
    try {
      expect(planned.plan.refusal?.code).toBe('safety-threshold');
      expect(byCli.stderr).toContain(planned.plan.refusal!.message);
      const before = own.requestCount();
      expect(((await readyForApply(planned).catch((e: unknown) => e)) as RunFailure).failure.kind).toBe('refused');
      expect(((await applyPlan(planned, {}).catch((e: unknown) => e)) as RunFailure).failure.kind).toBe('refused');
      expect(own.requestCount()).toBe(before);
    } finally {
      await planned.run.close();
    }
    expect(await count()).toBe(12);

    const forced = await cli(['apply', two, '--auto-approve', '--force'], { env });
    expect(forced.code, forced.stderr).toBe(0);
    expect(await count()).toBe(2);
  });
});

describe('budget memory', () => {
  it('is recalled before the first request and told what the run saw when it closes', async () => {
    const memory = recordingMemory();
    const planned = await planRun(setupWith(memory), { desired: await desiredOf(small), dir: small });
    expect(memory.recalls).toBeGreaterThan(0);
    expect(memory.remembered).toEqual([]);
    await planned.run.close();
    expect(memory.remembered).toHaveLength(1);
    expect(memory.remembered[0].map((b) => b.bucket)).toContain('GET AlertChannels');
  });

  it('a drained bucket it recalls makes the pre-flight wait, and refuses a run bounded below that: nothing sent', async () => {
    const clock = manualClock(Date.UTC(2026, 2, 1));
    const drained = ['GET AlertChannels', 'POST AlertChannels/search'].map((bucket) => ({ bucket, limit: 6, remaining: 0, resetSeconds: 600, observedAt: clock.now() }));
    const memory = recordingMemory(drained);
    const before = emu.requestCount();
    const err = await planRun(setupWith(memory, { flags: { maxDuration: 60 }, adjust: (o) => ({ ...o, now: clock.now }) }), { desired: await desiredOf(small), dir: small }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunError);
    const problem = (err as RunError).problem;
    expect(problem.kind === 'too-long' && problem.too.nothingSent).toBe(true);
    expect(problem.kind === 'too-long' && problem.too.seconds).toBeGreaterThan(60);
    expect(emu.requestCount()).toBe(before);
    // Without it, the same run is not refused.
    const planned = await planRun(setupWith(recordingMemory(), { flags: { maxDuration: 60 } }), { desired: await desiredOf(small), dir: small });
    await planned.run.close();
  });

  it("the Action's memory lives in RUNNER_TEMP and nowhere without it", async () => {
    const temp = await mkdtemp(join(tmpdir(), 'postureops-runner-'));
    cleanup.push(() => rm(temp, { recursive: true, force: true }));
    const now = Date.now();
    const seen = [{ bucket: 'GET AlertChannels', limit: 120, remaining: 7, resetSeconds: 30, observedAt: now }];
    const kept = actionBudgetMemory({ RUNNER_TEMP: temp })('https://svc.example', 'KEY');
    await kept.remember(seen, now);
    expect(await kept.recall(now)).toEqual(seen);
    expect((await readdir(join(temp, 'postureops'))).filter((f) => f.startsWith('rate-limits-'))).toHaveLength(1);
    expect(actionBudgetMemory({})('https://svc.example', 'KEY')).toBe(NO_BUDGET_MEMORY);
    // The Action's plan run keeps what it saw there for the next step of the job.
    const job = await mkdtemp(join(tmpdir(), 'postureops-runner-'));
    cleanup.push(() => rm(job, { recursive: true, force: true }));
    const planned = await planAgainstService(await desiredOf(small), { ...serviceEnv(emu), RUNNER_TEMP: job }, { dir: small, accounts: [] });
    await planned.run.close();
    const [file] = await readdir(join(job, 'postureops'));
    const savedFile = JSON.parse(await readFile(join(job, 'postureops', file), 'utf8')) as { buckets: BucketBudget[] };
    expect(savedFile.buckets.map((b) => b.bucket)).toContain('GET AlertChannels');
  });
});

describe('a run and its clock', () => {
  it('a maximum duration bounds the whole run: a later pre-flight counts the time already spent', async () => {
    const clock = manualClock(Date.UTC(2026, 2, 1));
    const run = Run.open(setupWith(NO_BUDGET_MEMORY, { flags: { maxDuration: 60 }, adjust: (o) => ({ ...o, now: clock.now }) }));
    try {
      await run.preflight([], 'read');
      clock.advance(61_000);
      const err = await run.preflight([], 'apply').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RunError);
      const problem = (err as RunError).problem;
      expect(problem.kind === 'too-long' && problem.too.spentSeconds).toBe(61);
      expect(problem.kind === 'too-long' && problem.too.what).toBe('apply');
    } finally {
      await run.close();
    }
  });

  it('two runs in one process keep their own start: the second is not charged for the first', async () => {
    const clock = manualClock(Date.UTC(2026, 2, 1));
    const setup = setupWith(NO_BUDGET_MEMORY, { flags: { maxDuration: 60 }, adjust: (o) => ({ ...o, now: clock.now }) });
    const first = Run.open(setup);
    await first.preflight([], 'read');
    clock.advance(120_000);
    const second = Run.open(setup);
    await expect(second.preflight([], 'read')).resolves.toBeUndefined();
    await Promise.all([first.close(), second.close()]);
  });

  it('tells the wait hook the time the run has left once it knows it must wait', async () => {
    const clock = manualClock(Date.UTC(2026, 2, 1));
    const drained = [{ bucket: 'GET AlertChannels', limit: 6, remaining: 0, resetSeconds: 600, observedAt: clock.now() }];
    let left: ((now: number) => number | undefined) | undefined;
    const run = Run.open(setupWith(recordingMemory(drained), { adjust: (o) => ({ ...o, now: clock.now }), waits: { onWait: () => undefined, setEstimate: (f) => (left = f) } }));
    try {
      await run.preflight([{ buckets: ['GET AlertChannels'], requests: 3 }], 'read');
      expect(left).toBeDefined();
    } finally {
      await run.close();
    }
    // A run the budget lets through at once has nothing to count down.
    let told = false;
    const quick = Run.open(setupWith(recordingMemory(), { waits: { onWait: () => undefined, setEstimate: () => (told = true) } }));
    await quick.preflight([{ buckets: ['GET AlertChannels'], requests: 3 }], 'read');
    await quick.close();
    expect(told).toBe(false);
  });
});
