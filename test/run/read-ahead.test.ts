// The live read started while the files load (src/run/read-ahead.ts), in-process against the
// emulator: a list is asked for before the last file is loaded (seen through the loader's progress
// hook and the client's request log, no timing), the requests and the plan are those of a read after
// the load, a file with an error stops it (and an error in the first file means nothing was sent),
// and the runs that must not read ahead (a bound on the duration, a budget that would wait) do not.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BucketBudget } from '../../src/api/types.js';
import { loadConfig } from '../../src/config/load.js';
import type { LoadProgress } from '../../src/config/types.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { type BudgetMemory, NO_BUDGET_MEMORY } from '../../src/run/budget-memory.js';
import { RunError } from '../../src/run/errors.js';
import { type Planned, planRun, type PlanRequest } from '../../src/run/plan-run.js';
import type { RunSetup } from '../../src/run/run.js';
import { GENERATED_ENV, writeRepository } from '../bench/generate.js';
import { cli, serviceEnv } from '../e2e/harness.js';
import { exitFor } from '../../cmd/pipeline.js';

let emu: RunningEmulator;
let dir: string;
let files: number;
const cleanup: string[] = [];

/** What happened, in order: `file` for each file the loader told, `list` for each list answered. */
type Event = 'file' | 'list' | 'token' | 'other';

function setupFor(events: Event[], onList: () => void, extra: Partial<RunSetup> = {}): RunSetup {
  return {
    env: serviceEnv(emu),
    flags: {},
    memory: () => NO_BUDGET_MEMORY,
    log: (e) => {
      const list = e.method === 'GET' || e.path.endsWith('/search');
      events.push(list ? 'list' : e.path.endsWith('/access/tokens') ? 'token' : 'other');
      if (list) onList();
    },
    ...extra,
  };
}

/** Event-loop turns, no clock: long enough for a request on loopback, bounded when none comes. */
async function turns(n: number, until: { done: boolean }): Promise<void> {
  for (let i = 0; i < n && !until.done; i++) await new Promise<void>((r) => setImmediate(r));
}

/**
 * A plan run whose loader records each file, and after the first one lets the event loop run until
 * a list is answered (or 10,000 turns pass, when nothing was asked for).
 */
async function tracedPlan(repo: string, extra: Partial<RunSetup> = {}, request: Partial<PlanRequest> = {}) {
  const events: Event[] = [];
  const seen = { done: false };
  const setup = setupFor(events, () => (seen.done = true), extra);
  let told = 0;
  const desired = (progress?: LoadProgress) =>
    loadConfig(repo, {
      env: GENERATED_ENV,
      ...(progress
        ? {
            onProgress: {
              root: (root) => progress.root(root),
              file: async (documents, errors) => {
                events.push('file');
                await progress.file(documents, errors);
                if (++told === 1) await turns(10_000, seen);
              },
            },
          }
        : {}),
    });
  const before = emu.requestCount();
  const planned: Planned | Error = await planRun(setup, { dir: repo, desired, ...request }).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
  if (!(planned instanceof Error)) await planned.run.close();
  return { planned, events, sent: emu.requestCount() - before };
}

/** Requests per collection: `GET AlertChannels` and `POST AlertChannels/search` together. */
function perCollection(byBucket: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [bucket, n] of Object.entries(byBucket)) {
    const collection = bucket.replace(/^[A-Z]+ /, '').replace(/\/search$/, '');
    out[collection] = (out[collection] ?? 0) + n;
  }
  return out;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'postureops-ahead-'));
  cleanup.push(dir);
  const repo = await writeRepository(dir, { accounts: 6, resources: 240 });
  files = repo.files - 1;
  emu = await startEmulator({ accounts: repo.accounts, rateLimit: 1_000_000 });
});
afterAll(async () => {
  await emu.close();
  for (const d of cleanup) await rm(d, { recursive: true, force: true });
});

describe('the live read while the files load', () => {
  it('asks for a list before the last file is loaded, and sends what a read after the load sends', async () => {
    expect(files).toBeGreaterThan(5);
    const ahead = await tracedPlan(dir);
    if (ahead.planned instanceof Error) throw ahead.planned;
    const fileEvents = ahead.events.filter((e) => e === 'file');
    expect(fileEvents.length).toBe(files);
    expect(ahead.events.indexOf('list')).toBeGreaterThan(-1);
    expect(ahead.events.indexOf('list')).toBeLessThan(ahead.events.lastIndexOf('file'));

    // The same configuration loaded first, then read: the same requests and the same plan.
    const loaded = await loadConfig(dir, { env: GENERATED_ENV });
    const before = emu.requestCount();
    const after = await planRun(setupFor([], () => {}), { dir, desired: loaded.state! });
    await after.run.close();
    expect(ahead.sent).toBe(emu.requestCount() - before);
    // Per collection (the client sends each read by its list or its search, whichever has more left).
    expect(perCollection(ahead.planned.plan.apiCalls.byBucket)).toEqual(perCollection(after.plan.apiCalls.byBucket));
    expect(ahead.planned.plan.apiCalls.total).toBe(after.plan.apiCalls.total);
    expect(JSON.stringify(ahead.planned.plan.changes)).toBe(JSON.stringify(after.plan.changes));
    expect(ahead.planned.plan.changes.length).toBe(240);
  });

  it('stops at a file with an error and says what it sent; an error in the first file sends nothing', async () => {
    const broken = 'kind: AlertChannel\nname: broken\naccount: "*"\nspec:\n  type: Webhook\n';
    const last = join(dir, 'zz-broken.yaml');
    await writeFile(last, broken);
    try {
      const late = await tracedPlan(dir);
      expect(late.planned).toBeInstanceOf(RunError);
      const problem = (late.planned as RunError).problem;
      expect(problem.kind).toBe('invalid');
      expect(problem.kind === 'invalid' && problem.sent).toBe(late.sent);
      expect(late.sent).toBeGreaterThan(1);
    } finally {
      await rm(last);
    }
    const first = join(dir, 'a-broken.yaml');
    await writeFile(first, broken);
    try {
      const early = await tracedPlan(dir);
      expect(early.planned).toBeInstanceOf(RunError);
      const problem = (early.planned as RunError).problem;
      expect(problem.kind === 'invalid' && problem.sent).toBeUndefined();
      expect(early.sent).toBe(0);
    } finally {
      await rm(first);
    }
  });

  it('reads after the load under a maximum duration, or when the budget known would make it wait', async () => {
    const bounded = await tracedPlan(dir, { flags: { maxDuration: 3600 } });
    if (bounded.planned instanceof Error) throw bounded.planned;
    expect(bounded.events.indexOf('list')).toBeGreaterThan(bounded.events.lastIndexOf('file'));

    // An earlier run drained the alert channels' list and search: the pre-flight comes first.
    const now = Date.now();
    const drained = (bucket: string): BucketBudget => ({ bucket, limit: 120, remaining: 0, resetSeconds: 30, observedAt: now });
    const memory: BudgetMemory = { recall: async () => [drained('GET AlertChannels'), drained('POST AlertChannels/search')], remember: async () => {} };
    const waiting = await tracedPlan(dir, { memory: () => memory, flags: { maxWait: 1 } });
    expect(waiting.events.filter((e) => e === 'file').length).toBe(files);
    expect(waiting.events.slice(0, files)).toEqual(Array(files).fill('file'));
  });

  it('reads after the load for the accounts asked for, and not for an account the root does not declare', async () => {
    const one = await tracedPlan(dir, {}, { accounts: ['acc-001'] });
    if (one.planned instanceof Error) throw one.planned;
    expect(one.planned.plan.accounts.map((a) => a.name)).toEqual(['acc-001']);
    expect(one.events.indexOf('list')).toBeLessThan(one.events.lastIndexOf('file'));
    const unknown = await tracedPlan(dir, {}, { accounts: ['nope'] });
    expect(unknown.planned).toBeInstanceOf(RunError);
    expect((unknown.planned as RunError).problem.kind).toBe('unknown-account');
    expect(unknown.sent).toBe(0);
  });

  it('the CLI says what was sent ahead of a configuration with errors, and that nothing was when nothing was', async () => {
    const said = await exitFor({ env: {} } as Parameters<typeof exitFor>[0], { kind: 'invalid', diagnostics: [], sent: 3 });
    expect(said.message).toBe('the configuration has errors; nothing was written (3 requests to read the live state had been sent while the files loaded)');
    const first = join(dir, 'a-broken.yaml');
    await writeFile(first, 'kind: AlertChannel\nname: broken\naccount: "*"\nspec:\n  type: Webhook\n');
    try {
      const before = emu.requestCount();
      const res = await cli(['plan', dir], { env: { ...serviceEnv(emu), ...GENERATED_ENV } });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain('the configuration has errors; nothing was sent to the service');
      expect(emu.requestCount()).toBe(before);
    } finally {
      await rm(first);
    }
  });
});
