// --changed-since and --shard end to end: a git repository in a temp folder, the real CLI, the
// emulator in-process. Only the changed accounts are read; shards are disjoint and complete.

import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, mkdir, unlink, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { cli, oneLine, readsByCollection, serviceEnv } from './harness.js';

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const git = (cwd: string, ...args: string[]): string => execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' });

const accountName = (i: number): string => `acct-${String(i).padStart(3, '0')}`;
const hook = (name: string, account: string | string[], n = 1): string =>
  `kind: AlertChannel\nname: ${name}\naccount: ${JSON.stringify(account)}\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/${name}/${n}\n`;

/** 100 accounts, one file per account with one channel; channels pruned (a deleted document's channel goes). */
async function repository(cleanup: Array<() => Promise<void>>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'postureops-scope-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const names = Array.from({ length: 100 }, (_, i) => accountName(i + 1));
  await writeFile(join(dir, 'postureops.yaml'), `accounts:\n${names.map((a) => `  - name: ${a}\n`).join('')}defaults:\n  account: ${names[0]}\nprune: {AlertChannel: true}\n`);
  await mkdir(join(dir, 'accounts'));
  for (const a of names) await writeFile(join(dir, 'accounts', `${a}.yaml`), hook(`hook-${a}`, a));
  await writeFile(join(dir, 'README.md'), 'the configuration\n');
  git(dir, 'init', '-q');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  return dir;
}

describe('plan --changed-since', () => {
  const cleanup: Array<() => Promise<void>> = [];
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let dir: string;

  beforeAll(async () => {
    emu = await startEmulator({ accounts: Array.from({ length: 100 }, (_, i) => accountName(i + 1)), rateLimit: 100_000 });
    dir = await repository(cleanup);
  });
  afterAll(async () => {
    await emu.close();
    for (const c of cleanup.reverse()) await c();
  });

  it('a change touching 3 of 100 accounts reads only those 3 (one token exchange, the lists of 3 accounts) and says which it skipped', async () => {
    git(dir, 'checkout', '-q', '-B', 'change-3');
    await writeFile(join(dir, 'accounts', 'acct-007.yaml'), hook('hook-acct-007', 'acct-007', 2)); // unstaged edit
    await writeFile(join(dir, 'accounts', 'new.yaml'), hook('hook-extra', 'acct-042')); // untracked
    await writeFile(join(dir, 'README.md'), 'not a document\n'); // counts for nothing
    await unlink(join(dir, 'accounts', 'acct-099.yaml')); // deleted: its account must be planned
    try {
      const before = emu.requestCount();
      const r = await cli(['plan', dir, '--changed-since', 'main', '--format', 'json'], { env: serviceEnv(emu) });
      // Off a terminal: one line per phase, nothing else.
      expect(r.stderr).toBe(`Loading the files in ${dir}\nReading live state of acct-007, acct-042, acct-099: 3 accounts\n`);
      expect(r.code).toBe(0);
      const requests = emu.requestCount() - before;
      const plan = JSON.parse(r.stdout);
      // One token exchange and each list once per account read: 3 accounts, so 1 + 3 × lists
      // (≤ 16 with at most 5 lists per account).
      expect(plan.apiCalls.total).toBe(requests);
      // A list and its search read the same records: per collection, 3 reads whichever path took them.
      const reads = Object.entries(readsByCollection(plan.apiCalls.byBucket));
      expect(reads.length).toBeGreaterThan(0);
      for (const [, n] of reads) expect(n).toBe(3);
      expect(requests).toBeLessThanOrEqual(16);
      expect(requests).toBe(1 + 3 * reads.length);
      expect([...new Set(plan.changes.map((c: { account: string }) => c.account))].sort()).toEqual(['acct-007', 'acct-042']);
      expect(plan.scope.changedSince.ref).toBe('main');
      expect(plan.scope.changedSince.commit).toBe(git(dir, 'rev-parse', 'main').trim());
      expect(plan.scope.skipped).toHaveLength(97);
      expect(plan.scope.skipped.map((s: { account: string }) => s.account)).not.toContain('acct-099');
      expect(plan.scope.skipped[0]).toEqual({ account: 'acct-001', reason: `no document of it changed since main (${plan.scope.changedSince.commit.slice(0, 7)})` });
    } finally {
      git(dir, 'checkout', '-q', '--', '.');
      git(dir, 'clean', '-qfd');
      git(dir, 'checkout', '-q', 'main');
    }
  });

  it('a document moved to another account plans both; "*" and the root file count for every account', async () => {
    git(dir, 'checkout', '-q', '-B', 'move');
    try {
      await writeFile(join(dir, 'accounts', 'acct-010.yaml'), hook('hook-acct-010', 'acct-011'));
      git(dir, 'commit', '-qam', 'move');
      const moved = JSON.parse((await cli(['plan', dir, '--changed-since', 'main', '--format', 'json'], { env: serviceEnv(emu) })).stdout);
      expect(moved.scope.skipped).toHaveLength(98);
      expect(moved.scope.skipped.map((s: { account: string }) => s.account)).not.toContain('acct-010');

      await rename(join(dir, 'accounts', 'acct-020.yaml'), join(dir, 'accounts', 'shared.yaml'));
      await writeFile(join(dir, 'accounts', 'shared.yaml'), hook('hook-acct-020', '*'));
      const star = await cli(['plan', dir, '--changed-since', 'HEAD', '--account', 'acct-001', '--account', 'acct-002', '--format', 'json'], { env: serviceEnv(emu) });
      const starPlan = JSON.parse(star.stdout);
      expect(starPlan.scope).toMatchObject({ skipped: [] });
      // Each of the two accounts: its own channel and the one now in "*" (the live state is empty).
      expect(starPlan.summary.create).toBe(4);
      await writeFile(join(dir, 'postureops.yaml'), (await readFile(join(dir, 'postureops.yaml'), 'utf8')) + '# any change of the root file\n');
      const root = JSON.parse((await cli(['plan', dir, '--changed-since', 'HEAD', '--shard', '1/50', '--format', 'json'], { env: serviceEnv(emu) })).stdout);
      expect(root.scope.skipped.every((s: { reason: string }) => /^in shard \d+ of 50$/.test(s.reason))).toBe(true);
      expect(root.scope.skipped).toHaveLength(98);
    } finally {
      git(dir, 'checkout', '-q', '-f', 'main');
      git(dir, 'clean', '-qfd');
    }
  });

  it('a plan saved with --changed-since applies with apply --plan, and then shows no changes', async () => {
    git(dir, 'checkout', '-q', '-B', 'saved');
    const file = join(dir, '..', `${dir.split('/').pop()}-plan.json`);
    cleanup.push(() => rm(file, { force: true }));
    try {
      await writeFile(join(dir, 'accounts', 'acct-005.yaml'), hook('hook-acct-005', 'acct-005', 5));
      const planned = await cli(['plan', dir, '--changed-since', 'main', '--out', file], { env: serviceEnv(emu) });
      expect(planned.code, planned.stderr).toBe(0);
      const applied = await cli(['apply', dir, '--plan', file, '--auto-approve'], { env: serviceEnv(emu) });
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stdout).toContain('1 done');
      const again = await cli(['plan', dir, '--changed-since', 'main', '--detailed-exitcode'], { env: serviceEnv(emu) });
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('1 of 100 accounts planned; 99 skipped');
    } finally {
      git(dir, 'checkout', '-q', '--', '.');
      git(dir, 'checkout', '-q', 'main');
    }
  });

  it('nothing changed: no account is read, not even a token exchanged, and the plan says all were skipped', async () => {
    const before = emu.requestCount();
    const r = await cli(['plan', dir, '--changed-since', 'HEAD', '--format', 'json', '--detailed-exitcode'], { env: serviceEnv(emu) });
    expect(r.code).toBe(0);
    expect(emu.requestCount() - before).toBe(0);
    const plan = JSON.parse(r.stdout);
    expect(plan.scope.skipped).toHaveLength(100);
    expect(plan.changes).toEqual([]);
    const text = await cli(['plan', dir, '--changed-since', 'main'], { env: serviceEnv(emu) });
    expect(text.stdout).toContain('Scope (--changed-since main (');
    expect(oneLine(text.stdout)).toContain('0 of 100 accounts planned; 100 skipped (not read, not planned, not pruned).');
    expect(oneLine(text.stdout)).toMatch(/no document of it changed since main \([0-9a-f]{7}\) \(100\): acct-001, acct-002, /);
  });

  it('an unknown ref, or a folder outside git, is a clear error (exit 1, no stack)', async () => {
    const r = await cli(['plan', dir, '--changed-since', 'no-such-branch'], { env: serviceEnv(emu) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--changed-since no-such-branch: no such commit/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const outside = await mkdtemp(join(tmpdir(), 'postureops-nogit-'));
    cleanup.push(() => rm(outside, { recursive: true, force: true }));
    await writeFile(join(outside, 'postureops.yaml'), 'accounts:\n  - name: acct-001\n');
    const n = await cli(['plan', outside, '--changed-since', 'main'], { env: { ...serviceEnv(emu), GIT_CEILING_DIRECTORIES: tmpdir() } });
    expect(n.code).toBe(1);
    expect(n.stderr).toMatch(/is not in a git repository/);
  });
});
