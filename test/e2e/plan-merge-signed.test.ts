// Shard plans travel between jobs as files: with POSTUREOPS_PLAN_KEY set, each shard's plan is signed,
// `merge` checks every shard's MAC and signs the merged plan, and `apply --plan` of the merged plan
// derives its changes again over all the shards' accounts and applies them.

import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { cli, rawApi, serviceEnv, webhookRepo } from './harness.js';

const KEY = 'merge-key-0123456789abcdef0123456789abcdef';

describe('signed shard plans, merged and applied', () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  const cleanup: Array<() => Promise<void>> = [];
  let dir: string;
  const env = (key: string | null = KEY): Record<string, string> => ({ ...serviceEnv(emu), ...(key !== null ? { POSTUREOPS_PLAN_KEY: key } : {}) });

  // Each test its own service and repository: none depends on what another applied.
  beforeEach(async () => {
    emu = await startEmulator({ accounts: ['prod', 'staging', 'dev'] });
    cleanup.push(() => emu.close());
    dir = await webhookRepo(['prod', 'staging', 'dev'], 2, cleanup);
  });
  afterEach(async () => {
    for (const c of cleanup.splice(0)) await c();
  });

  it('merge signs the merged plan; apply --plan of it derives the same changes and applies them', async () => {
    const shards = [join(dir, 'shard-1.json'), join(dir, 'shard-2.json')];
    for (const [i, file] of shards.entries()) {
      const res = await cli(['plan', dir, '--shard', `${i + 1}/2`, '--out', file], { env: env() });
      expect(res.code, res.stderr).toBe(0);
      expect(JSON.parse(await readFile(file, 'utf8')).mac).toMatch(/^[0-9a-f]{64}$/);
    }
    const merged = join(dir, 'merged.json');
    const m = await cli(['merge', ...shards, '--out', merged], { env: env() });
    expect(m.code, m.stderr).toBe(0);
    expect(m.stderr).toContain('signed with POSTUREOPS_PLAN_KEY');
    expect(m.stdout + m.stderr).not.toContain(KEY);
    const plan = JSON.parse(await readFile(merged, 'utf8'));
    expect(plan.mac).toMatch(/^[0-9a-f]{64}$/);
    expect(plan.changes).toHaveLength(6);

    const applied = await cli(['apply', dir, '--plan', merged, '--auto-approve', '--format', 'json'], { env: env() });
    expect(applied.code, applied.stderr).toBe(0);
    expect(JSON.parse(applied.stdout).summary).toMatchObject({ create: 6, done: 6, failed: 0 });
    expect((await cli(['plan', dir, '--detailed-exitcode'], { env: env() })).code).toBe(0);
  });

  it('unsigned: a change added in an account the plan changed nothing in makes that account derived again, and is refused', async () => {
    expect((await cli(['apply', dir, '--auto-approve'], { env: env(null) })).code).toBe(0);
    const file = join(dir, 'nothing.json');
    expect((await cli(['plan', dir, '--out', file, '--detailed-exitcode'], { env: env(null) })).code).toBe(0);
    const { checksum: _c, ...plan } = JSON.parse(await readFile(file, 'utf8'));
    expect(plan.changes).toEqual([]);
    const live = (await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'staging' })).body.data.find((c: { name: string }) => c.name === 'hook-01');
    plan.changes.push({ key: 'staging/AlertChannel/hook-01', action: 'delete', kind: 'AlertChannel', account: 'staging', name: 'hook-01', liveId: live.intgGuid, writeOnly: [], sensitive: [], dependsOn: [], liveDigest: 'x' });
    await writeFile(file, JSON.stringify({ ...plan, checksum: createHash('sha256').update(JSON.stringify(plan)).digest('hex') }));
    const res = await cli(['apply', dir, '--plan', file, '--auto-approve'], { env: env(null) });
    expect(res.code, res.stderr).toBe(3);
    expect(res.stderr).toContain('delete "staging/AlertChannel/hook-01": in the saved plan, but the repository and the live state ask for no such change');
    expect((await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'staging' })).body.data.map((c: { name: string }) => c.name)).toContain('hook-01');
  });

  it('merge refuses (exit 3) a shard whose MAC does not match the key, and one without a MAC', async () => {
    const signed = join(dir, 'signed.json');
    expect((await cli(['plan', dir, '--shard', '1/2', '--out', signed], { env: env() })).code).toBe(0);
    const other = await cli(['merge', signed], { env: env('another-key-0123456789abcdef0123456789') });
    expect(other.code, other.stderr).toBe(3);
    expect(other.stderr).toContain('plan-file-mac-wrong');
    expect(other.stderr).toContain('nothing was merged');

    const bare = join(dir, 'bare.json');
    expect((await cli(['plan', dir, '--shard', '2/2', '--out', bare], { env: env(null) })).code).toBe(0);
    const unsigned = await cli(['merge', signed, bare], { env: env() });
    expect(unsigned.code, unsigned.stderr).toBe(3);
    expect(unsigned.stderr).toContain('plan-file-mac-missing');
    // Without a key, the same files merge, and the merged plan is unsigned (apply derives it again all the same).
    const out = join(dir, 'unsigned-merged.json');
    const ok = await cli(['merge', signed, bare, '--out', out], { env: env(null) });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toContain('unsigned: POSTUREOPS_PLAN_KEY is not set');
    expect(JSON.parse(await readFile(out, 'utf8')).mac).toBeUndefined();
  });
});
