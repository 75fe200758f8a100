// `npm run bench -- --scale`: what the service's budget (120 requests per hour per user per
// functionality) makes of large organizations. The emulator runs on a virtual clock that jumps over
// every rate-limit wait, so hours of the service's time pass in seconds; its buckets are the default
// 120 an hour. Each scenario reads a repository of 500 accounts × 20 resources whose live state
// matches it (applied once beforehand with the limit lifted): a nightly drift check with one key and
// the lists only, with both read functionalities, with 4 shards of one key each, a pull request
// touching 3 accounts, and what a refresh of one GET per resource (the incumbent provider's way)
// would need. Each scenario is a service user of its own, whose buckets start full.

import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createClient } from '../../src/api/client.js';
import type { RequestLogEntry } from '../../src/api/types.js';
import { loadConfig } from '../../src/config/load.js';
import { manualClock, startEmulator, type KeyOptions, type ManualClock } from '../../src/emulator/index.js';
import { apply } from '../../src/ops/apply/apply.js';
import { fetchLive, type ReadPaths } from '../../src/ops/live/fetch.js';
import { sumCalls } from '../../src/plan/saved/merge-plans.js';
import { neededKinds } from '../../src/ops/live/needed-kinds.js';
import { plan } from '../../src/plan/steps/plan.js';
import { preflight, type RequestGroup } from '../../src/ops/budget/preflight.js';
import { accountWeights } from '../../src/plan/core/plan-scope.js';
import { assignShards } from '../../src/plan/core/shard.js';
import { KINDS } from '../../src/kinds/index.js';
import type { AccountConfig, DesiredState } from '../../src/model/account.js';
import type { CallStats } from '../../src/model/plan.js';
import { virtualTime } from '../api/helpers.js';
import { cli } from '../e2e/harness.js';
import { writeRepository } from './generate.js';

const ACCOUNTS = 500;
const PER_ACCOUNT = 20;
const SHARDS = 4;
const LIMIT = 120;

interface Outcome {
  scenario: string;
  accounts: number;
  keys: number;
  paths: string;
  requests: number;
  busiest: string;
  rateLimited: number;
  hours: number;
  changes: number;
}

function busiest(calls: CallStats): string {
  const [bucket, n] = Object.entries(calls.byBucket).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0] ?? ['-', 0];
  return `${bucket} ${n}`;
}

export async function scale(record: (what: string, value: string) => void): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'postureops-scale-'));
  const repo = join(dir, 'repo');
  let emu: Awaited<ReturnType<typeof startEmulator>> | undefined;
  try {
    const generated = await writeRepository(repo, { accounts: ACCOUNTS, resources: ACCOUNTS * PER_ACCOUNT });
    const desired = (await loadConfig(repo, { env: generated.env })).state!;
    const names = desired.root.accounts.map((a) => a.name);
    const kindsOf = neededKinds(desired, KINDS);

    // One service user per scenario (per shard): each starts with full buckets.
    const key = (name: string): KeyOptions => ({ keyId: name.toUpperCase().replace(/-/g, '_'), secret: `${name}-secret`, role: 'org-admin', user: `${name}@example.com` });
    const users = ['loader', 'list-only', 'both', 'pull-request', ...Array.from({ length: SHARDS }, (_, i) => `shard-${i + 1}`)];
    const keys = new Map(users.map((u) => [u, key(u)]));
    const clock = manualClock(Date.UTC(2026, 10, 22, 2, 0, 0));
    emu = await startEmulator({ accounts: names, rateLimit: 1_000_000_000, clock, keys: [...keys.values()] });
    const sleep = virtualTime(clock);

    // The live state, applied once with the rate limit out of the way.
    const t0 = performance.now();
    const loader = keys.get('loader')!;
    const setupClient = createClient({ baseUrl: emu.url, keyId: loader.keyId, secret: loader.secret, concurrency: 16 });
    const first = plan(desired, await fetchLive(setupClient, desired.root.accounts, KINDS, { kindsOf }), {}).plan!;
    const report = await apply(first, setupClient, { env: generated.env, concurrency: 16 });
    await setupClient.close();
    process.stderr.write(`scale: ${report.summary.done} resources applied in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    // From here on the service's real budget, on a clock that only moves while a client waits.
    emu.setRateLimit(LIMIT);
    const service = emu;
    const outcomes: Outcome[] = [];

    async function run(scenario: string, parts: { accounts: AccountConfig[]; user: string }[], readPaths: ReadPaths): Promise<void> {
      const start = clock.now();
      let rateLimited = 0;
      let changes = 0;
      {
        const stats = await Promise.all(
          parts.map(async (part) => {
            const key = keys.get(part.user)!;
            const client = createClient({
              baseUrl: service.url,
              keyId: key.keyId,
              secret: key.secret,
              now: clock.now,
              sleep,
              maxWaitSeconds: 86_400,
              log: (e: RequestLogEntry) => (rateLimited += e.status === 429 ? 1 : 0),
            });
            try {
              const live = await fetchLive(client, part.accounts, KINDS, { readPaths, kindsOf });
              const p = plan(desired, live, { accounts: part.accounts.map((a) => a.name), apiCalls: live.calls }).plan!;
              changes += p.changes.length;
              return live.calls;
            } finally {
              await client.close();
            }
          }),
        );
        const calls = sumCalls(stats);
        // Keys have buckets of their own: the busiest bucket of any one key decides the hours.
        const perKey = stats.map((s) => busiest(s)).sort((a, b) => Number(b.split(' ').pop()) - Number(a.split(' ').pop()));
        outcomes.push({
          scenario,
          accounts: parts.reduce((n, p) => n + p.accounts.length, 0),
          keys: parts.length,
          paths: readPaths === 'both' ? 'list + search' : 'list',
          requests: calls.total,
          busiest: perKey[0],
          rateLimited,
          hours: (clock.now() - start) / 3_600_000,
          changes,
        });
      }
    }

    const all = desired.root.accounts;
    const t1 = performance.now();
    await run('nightly drift', [{ accounts: all, user: 'list-only' }], 'list');
    await run('nightly drift', [{ accounts: all, user: 'both' }], 'both');
    const weights = accountWeights(desired);
    const shards = assignShards(all.map((a) => ({ name: a.name, weight: weights.get(a.name) ?? 0 })), SHARDS).map((shard, i) => ({ accounts: all.filter((a) => shard.includes(a.name)), user: `shard-${i + 1}` }));
    await run(`nightly drift, ${SHARDS} shards`, shards, 'both');
    // A pull request that changes documents of 3 accounts, planned by the CLI with --changed-since.
    outcomes.push(await pullRequest(repo, all.slice(10, 13), { url: service.url, key: keys.get('pull-request')!, env: generated.env, clock, sleep, cache: join(dir, 'cache') }));
    process.stderr.write(`scale: scenarios simulated in ${((performance.now() - t1) / 1000).toFixed(1)} s\n`);

    // One GET per resource, as the incumbent provider refreshes: each GET shares its kind's list bucket.
    const perResource = perResourceRefresh(desired);
    outcomes.push({
      scenario: 'refresh one GET per resource (arithmetic)',
      accounts: ACCOUNTS,
      keys: 1,
      paths: 'GET by id',
      requests: perResource.requests,
      busiest: perResource.busiest,
      rateLimited: 0,
      hours: perResource.seconds / 3600,
      changes: 0,
    });

    process.stdout.write(
      `\nScale (service clock, ${LIMIT} requests per hour per functionality; ${ACCOUNTS} accounts × ${PER_ACCOUNT} resources, live state in step):\n\n` +
        '| scenario | accounts | keys | read functionalities | requests | busiest bucket of one key | 429s | hours on the service clock | changes |\n|---|---|---|---|---|---|---|---|---|\n',
    );
    for (const o of outcomes) {
      process.stdout.write(`| ${o.scenario} | ${o.accounts} | ${o.keys} | ${o.paths} | ${o.requests} | ${o.busiest} | ${o.rateLimited} | ${o.hours.toFixed(2)} | ${o.changes} |\n`);
    }
    record('scale simulation (wall time)', `${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    await emu?.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Commits the repository, edits one document file of each of `accounts`, and plans `--changed-since HEAD` through the CLI. */
async function pullRequest(
  repo: string,
  accounts: AccountConfig[],
  service: { url: string; key: KeyOptions; env: Record<string, string>; clock: ManualClock; sleep: (ms: number) => Promise<void>; cache: string },
): Promise<Outcome> {
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'init.defaultBranch=main', '-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...args], { cwd: repo, stdio: 'pipe', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'base');
  for (const account of accounts) {
    const folder = join(repo, 'accounts', account.name);
    const file = join(folder, (await readdir(folder)).sort()[0]);
    await writeFile(file, (await readFile(file, 'utf8')).replace('https://hooks.example.com/', 'https://hooks.example.com/changed/'));
  }
  const start = service.clock.now();
  let rateLimited = 0;
  const res = await cli(['plan', repo, '--changed-since', 'HEAD', '--format', 'json'], {
    env: { ...service.env, SVC_BASE_URL: service.url, SVC_API_KEY_ID: service.key.keyId, SVC_API_SECRET: service.key.secret, POSTUREOPS_CACHE_DIR: service.cache },
    clientOptions: (o) => ({
      ...o,
      now: service.clock.now,
      sleep: service.sleep,
      log: (e) => {
        o.log?.(e);
        if (e.status === 429) rateLimited++;
      },
    }),
  });
  if (res.code !== 0) throw new Error(`the pull request's plan failed (${res.code}): ${res.stderr}`);
  const planned = JSON.parse(res.stdout) as { apiCalls: CallStats; summary: Record<string, number>; scope: { skipped: unknown[] } };
  return {
    scenario: `pull request touching 3 accounts (plan --changed-since; ${planned.scope.skipped.length} skipped)`,
    accounts: accounts.length,
    keys: 1,
    paths: 'list + search',
    requests: planned.apiCalls.total,
    busiest: busiest(planned.apiCalls),
    rateLimited,
    hours: (service.clock.now() - start) / 3_600_000,
    changes: planned.summary.create + planned.summary.update + planned.summary.replace + planned.summary.delete,
  };
}

function perResourceRefresh(desired: DesiredState): { requests: number; busiest: string; seconds: number } {
  const perBucket = new Map<string, number>();
  for (const r of desired.resources) {
    const kind = KINDS.find((k) => k.kind === r.kind)!;
    const bucket = `GET ${kind.collection}`;
    perBucket.set(bucket, (perBucket.get(bucket) ?? 0) + 1);
  }
  const groups: RequestGroup[] = [...perBucket].map(([bucket, requests]) => ({ buckets: [bucket], requests }));
  const estimate = preflight(groups, [], Date.now());
  const [bucket, n] = [...perBucket].sort((a, b) => b[1] - a[1])[0];
  return { requests: estimate.total + 1, busiest: `${bucket} ${n}`, seconds: estimate.seconds };
}
