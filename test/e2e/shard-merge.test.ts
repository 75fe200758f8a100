// Two shards of a 200-account repository planned through the real CLI (--shard 1/2, 2/2, --out),
// merged with `postureops merge`: disjoint, complete, and the pull-request comment of the merged plan
// is the unsharded one byte for byte.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { loadPlan } from '../../src/run/plan-files.js';
import { planBody } from '../../src/github/bodies.js';
import { cli, rawApi, serviceEnv } from './harness.js';

const N = 200;
const names = Array.from({ length: N }, (_, i) => `acct-${String(i + 1).padStart(3, '0')}`);

function repositoryFiles(): Record<string, string> {
  const root = `accounts:\n${names.map((a) => `  - name: ${a}\n`).join('')}defaults:\n  account: ${names[0]}\n`;
  const channel = (name: string, account: string | string[], url: string) =>
    `kind: AlertChannel\nname: ${name}\naccount: ${JSON.stringify(account)}\nspec:\n  type: Webhook\n  data:\n    webhookUrl: ${url}\n`;
  // Uneven weights: every account has the shared channel; every third one its own; every seventh a rule.
  const own = names.filter((_, i) => i % 3 === 0).map((a) => channel(`own-${a}`, a, `https://hooks.example.com/${a}`));
  const rules = names
    .filter((_, i) => i % 7 === 0)
    .map((a) => `kind: AlertRule\nname: route-${a}\naccount: ${a}\nspec:\n  channels: [shared]\n  severity: [critical]\n  eventCategory: [Cloud]\n`);
  return {
    'postureops.yaml': root,
    'shared.yaml': channel('shared', '*', 'https://hooks.example.com/shared'),
    'own.yaml': own.join('---\n'),
    'rules.yaml': rules.join('---\n'),
  };
}

describe('two shards of a 200-account repository', () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let dir: string;
  let out: string;
  const env = (): Record<string, string> => serviceEnv(emu);

  beforeAll(async () => {
    emu = await startEmulator({ accounts: names, rateLimit: 1_000_000 });
    dir = await mkdtemp(join(tmpdir(), 'postureops-shards-'));
    out = await mkdtemp(join(tmpdir(), 'postureops-shard-plans-'));
    for (const [file, text] of Object.entries(repositoryFiles())) await writeFile(join(dir, file), text);
    // Live state to disagree with: a changed shared channel and an unmanaged one in a few accounts.
    for (const a of ['acct-002', 'acct-101', 'acct-200']) {
      expect((await rawApi(emu, 'POST', '/api/v2/AlertChannels', { account: a, body: { name: 'shared', type: 'Webhook', enabled: 1, data: { webhookUrl: 'https://old.example.com' } } })).status).toBe(201);
      expect((await rawApi(emu, 'POST', '/api/v2/AlertChannels', { account: a, body: { name: 'console-made', type: 'Webhook', enabled: 1, data: { webhookUrl: 'https://console.example.com' } } })).status).toBe(201);
    }
  });
  afterAll(async () => {
    await emu.close();
    await rm(dir, { recursive: true, force: true });
    await rm(out, { recursive: true, force: true });
  });

  it('plan disjoint, complete halves whose merged comment equals the unsharded plan byte for byte', async () => {
    // In-process emulator and client share one thread: more requests in flight make the 2 × 200 reads quicker.
    const fast = ['--concurrency', '32'];
    const planned = (args: string[]) => cli(['plan', dir, ...fast, ...args], { env: env() });
    const full = await planned(['--out', join(out, 'full.json')]);
    const one = await planned(['--shard', '1/2', '--out', join(out, 'shard-1.json')]);
    const two = await planned(['--shard', '2/2', '--out', join(out, 'shard-2.json')]);
    for (const r of [full, one, two]) expect(r.code, r.stderr).toBe(0);
    const [unsharded, s1, s2] = await Promise.all(['full.json', 'shard-1.json', 'shard-2.json'].map((f) => loadPlan(join(out, f))));
    const a1 = s1.accounts.map((a) => a.name);
    const a2 = s2.accounts.map((a) => a.name);
    expect(a1.filter((a) => a2.includes(a))).toEqual([]);
    expect([...a1, ...a2].sort()).toEqual(names);
    expect(Math.abs(a1.length - a2.length)).toBeLessThanOrEqual(2);
    expect(s1.scope?.skipped.map((s) => s.account)).toEqual(a2);
    expect(s1.scope?.skipped[0].reason).toBe('in shard 2 of 2');

    const merged = await cli(['merge', join(out, 'shard-1.json'), join(out, 'shard-2.json'), '--out', join(out, 'merged.json'), '--format', 'json'], { env: env() });
    expect(merged.code, merged.stderr).toBe(0);
    const plan = await loadPlan(join(out, 'merged.json'));
    expect(plan.scope).toBeUndefined();
    expect(plan.changes.map((c) => c.key)).toEqual(unsharded.changes.map((c) => c.key));
    expect(plan.summary).toEqual(unsharded.summary);
    expect(plan.summary.update).toBe(3);
    expect(plan.summary.unmanaged).toBe(3);
    const stamp = { folder: 'posture', sha: 'c0ffee0000000000000000000000000000000001', runUrl: 'https://github.example/acme/posture/actions/runs/1' };
    expect(planBody(stamp, plan).text).toBe(planBody(stamp, unsharded).text);
    expect(JSON.parse(merged.stdout).summary).toEqual(unsharded.summary);

    // Not the shards of one plan: refused with what is wrong, exit 1.
    const twice = await cli(['merge', join(out, 'shard-1.json'), join(out, 'shard-1.json')]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/are both shard 1 of 2: the shards overlap/);
    const missing = await cli(['merge', join(out, 'shard-2.json')]);
    expect(missing.stderr).toMatch(/shard 1 of 2 is missing/);
    const unshardedIn = await cli(['merge', join(out, 'full.json'), join(out, 'shard-2.json')]);
    expect(unshardedIn.stderr).toMatch(/full\.json is not the plan of a shard/);
  });

  it('refuses shards planned from different configurations', async () => {
    const other = await mkdtemp(join(tmpdir(), 'postureops-shards-other-'));
    try {
      for (const [file, text] of Object.entries(repositoryFiles())) await writeFile(join(other, file), file === 'shared.yaml' ? text.replace('/shared', '/changed') : text);
      const [a, b] = await Promise.all([
        cli(['plan', dir, '--shard', '1/2', '--account', 'acct-001', '--account', 'acct-002', '--out', join(out, 'x-1.json')], { env: env() }),
        cli(['plan', other, '--shard', '2/2', '--account', 'acct-001', '--account', 'acct-002', '--out', join(out, 'x-2.json')], { env: env() }),
      ]);
      expect(a.code, a.stderr).toBe(0);
      expect(b.code, b.stderr).toBe(0);
      const r = await cli(['merge', join(out, 'x-1.json'), join(out, 'x-2.json')]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/were planned from different configurations/);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });
});
