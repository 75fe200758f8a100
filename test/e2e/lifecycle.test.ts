// Issue 11 items 3-5 end to end: the real CLI against one emulator. Each test works in accounts of
// its own (prune in one cannot touch another's), so the tests do not depend on each other's order.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { cli, oneLine, rawApi, serviceEnv } from './harness.js';

const ACCOUNTS = ['ren', 'pd', 'ign', 'tgt', 'prot', 'mv1', 'mv2'];

let emu: Awaited<ReturnType<typeof startEmulator>>;
let env: Record<string, string>;
const dirs: string[] = [];

beforeAll(async () => {
  emu = await startEmulator({ accounts: ACCOUNTS });
  env = serviceEnv(emu);
});

afterAll(async () => {
  await emu?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** A repository for `accounts` (the first is the default) with these files; rewrite files by calling again. */
async function repo(accounts: string[], files: Record<string, string>, extraRoot = '', dir?: string): Promise<string> {
  const target = dir ?? (await mkdtemp(join(tmpdir(), 'postureops-i11-')));
  if (!dir) dirs.push(target);
  const root = `accounts:\n${accounts.map((a) => `  - name: ${a}\n`).join('')}defaults:\n  account: ${accounts[0]}\n${extraRoot}`;
  await writeFile(join(target, 'postureops.yaml'), root);
  for (const [name, text] of Object.entries(files)) await writeFile(join(target, name), text);
  return target;
}

const webhook = (name: string, url: string, extra = '') => `kind: AlertChannel
name: ${name}
${extra}spec:
  type: Webhook
  data:
    webhookUrl: ${url}
`;
const ruleTo = (name: string, channel: string) => `kind: AlertRule
name: ${name}
spec:
  channels: [${channel}]
  severity: [critical]
  eventCategory: [Cloud]
`;

async function apply(dir: string, ...args: string[]) {
  const res = await cli(['apply', dir, '--auto-approve', ...args], { env });
  expect(res.code, res.stderr + res.stdout).toBe(0);
  return res;
}

async function planJson(dir: string, ...args: string[]) {
  const res = await cli(['plan', dir, '--format', 'json', ...args], { env });
  return { ...res, plan: res.stdout ? JSON.parse(res.stdout) : undefined };
}

const channels = async (account: string) => (await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account })).body.data as any[];
const rules = async (account: string) => (await rawApi(emu, 'GET', '/api/v2/AlertRules', { account })).body.data as any[];

describe('previousNames', () => {
  it('a renamed channel keeps its id and the rule that routes to it', async () => {
    const dir = await repo(['ren'], { 'c.yaml': webhook('ops-hook', 'https://ops.example.com/h'), 'r.yaml': ruleTo('to-ops', 'ops-hook') }, 'prune: true\n');
    await apply(dir);
    const before = (await channels('ren')).find((c) => c.name === 'ops-hook');
    expect(before).toBeDefined();

    // Renamed without previousNames: a create and a delete, shown together with the hint.
    await repo(['ren'], { 'c.yaml': webhook('ops-hook-eu', 'https://ops.example.com/h'), 'r.yaml': ruleTo('to-ops', 'ops-hook-eu') }, 'prune: true\n', dir);
    const naive = await planJson(dir);
    expect(naive.plan.changes.map((c: any) => [c.action, c.name, c.sameSpecAs])).toEqual([
      ['create', 'ops-hook-eu', 'ren/AlertChannel/ops-hook'],
      ['update', 'to-ops', undefined],
      ['delete', 'ops-hook', 'ren/AlertChannel/ops-hook-eu'],
    ]);
    expect(naive.stderr).toContain('previousNames: [ops-hook]');

    // With previousNames: one update of the name, and apply keeps the id.
    await repo(['ren'], { 'c.yaml': webhook('ops-hook-eu', 'https://ops.example.com/h', 'previousNames: [ops-hook]\n'), 'r.yaml': ruleTo('to-ops', 'ops-hook-eu') }, 'prune: true\n', dir);
    const renamed = await planJson(dir);
    expect(renamed.plan.changes.map((c: any) => [c.action, c.name, c.liveId, c.renamedFrom])).toEqual([['update', 'ops-hook-eu', before.intgGuid, 'ops-hook']]);
    const text = await cli(['plan', dir], { env });
    expect(text.stdout).toContain('renamed from ops-hook (same id)');

    await apply(dir);
    const after = await channels('ren');
    expect(after.map((c) => [c.name, c.intgGuid])).toEqual([['ops-hook-eu', before.intgGuid]]);
    expect((await rules('ren')).map((r) => [r.filters.name, r.intgGuidList])).toEqual([['to-ops', [before.intgGuid]]]);
    const again = await cli(['plan', dir, '--detailed-exitcode'], { env });
    expect(again.code, again.stdout).toBe(0);
  });
});

describe('lifecycle', () => {
  const profile = (base: string) => `kind: AlertProfile
name: CUSTOM_KEEP_PROFILE
lifecycle:
  preventDestroy: true
spec:
  extends: ${base}
  alerts:
    - name: Kept
      eventName: Kept alert
      subject: "kept"
      description: "{{_OCCURRENCE}}"
`;

  it('preventDestroy refuses a replace with exit 3, even with --force, and changes nothing', async () => {
    const dir = await repo(['pd'], { 'p.yaml': profile('SVC_HE_FILES_DEFAULT_PROFILE') });
    await apply(dir);
    await repo(['pd'], { 'p.yaml': profile('SVC_HE_USER_DEFAULT_PROFILE') }, '', dir);
    const planned = await cli(['plan', dir, '--force'], { env });
    expect(planned.code).toBe(3);
    expect(planned.stdout).toContain('Plan refused (prevent-destroy)');
    expect(planned.stdout).toContain('pd/AlertProfile/CUSTOM_KEEP_PROFILE (replace)');
    const applied = await cli(['apply', dir, '--auto-approve', '--force'], { env });
    expect(applied.code).toBe(3);
    expect(applied.stderr).toContain('preventDestroy');
    const profiles = (await rawApi(emu, 'GET', '/api/v2/AlertProfiles', { account: 'pd' })).body.data as any[];
    expect(profiles.find((p) => p.alertProfileId === 'CUSTOM_KEEP_PROFILE')?.extends).toBe('SVC_HE_FILES_DEFAULT_PROFILE');
  });

  it('ignoreChanges hides a console edit of that member, and an update sends the live value back', async () => {
    const doc = (description: string) => `kind: AlertRule
name: shared-rule
lifecycle:
  ignoreChanges: [/severity]
spec:
  channels: [ign-hook]
  severity: [critical]
  eventCategory: [Cloud]
  description: ${description}
---
${webhook('ign-hook', 'https://i.example.com')}`;
    const dir = await repo(['ign'], { 'r.yaml': doc('mine') });
    await apply(dir);
    const [rule] = await rules('ign');
    const edited = await rawApi(emu, 'PATCH', `/api/v2/AlertRules/${rule.mcGuid}`, { account: 'ign', body: { filters: { severity: [1, 2, 3] } } });
    expect(edited.status).toBe(200);
    const quiet = await cli(['plan', dir, '--detailed-exitcode'], { env });
    expect(quiet.code, quiet.stdout).toBe(0);

    await repo(['ign'], { 'r.yaml': doc('changed') }, '', dir);
    const update = await planJson(dir);
    expect(update.plan.changes.map((c: any) => [c.action, c.changed])).toEqual([['update', ['description']]]);
    await apply(dir);
    const [after] = await rules('ign');
    expect([after.filters.description, after.filters.severity]).toEqual(['changed', [1, 2, 3]]);
  });
});

describe('protect', () => {
  it('prune never deletes a protected resource; it is listed as unmanaged (protected)', async () => {
    const dir = await repo(['prot'], { 'c.yaml': webhook('keep-me', 'https://k.example.com') + '---\n' + webhook('drop-me', 'https://d.example.com') });
    await apply(dir);
    // One of the two is deleted: 50 %, allowed by the root file's own delete threshold.
    await repo(['prot'], { 'c.yaml': '' }, "prune: true\nprotect: ['prot/AlertChannel/keep-*']\nsafety: {accounts: {prot: {deletePercent: 50}}}\n", dir);
    const planned = await planJson(dir);
    expect(planned.plan.changes.map((c: any) => `${c.action} ${c.name}`)).toEqual(['delete drop-me']);
    expect(planned.plan.unmanaged.map((u: any) => [u.name, u.protected])).toEqual([['keep-me', true]]);
    await apply(dir);
    expect((await channels('prot')).map((c) => c.name)).toEqual(['keep-me']);
  });
});

describe('moves', () => {
  it('a channel moved to another account is one linked pair, created there before it is deleted here', async () => {
    const dir = await repo(['mv1', 'mv2'], { 'c.yaml': webhook('roaming', 'https://r.example.com', 'account: mv1\n') }, 'prune: true\n');
    await apply(dir);
    await repo(['mv1', 'mv2'], { 'c.yaml': webhook('roaming', 'https://r.example.com', 'account: mv2\n') }, 'prune: true\n', dir);
    const planned = await planJson(dir);
    expect(planned.plan.changes.map((c: any) => [c.action, c.account, c.movedFrom, c.movedTo])).toEqual([
      ['create', 'mv2', 'mv1/AlertChannel/roaming', undefined],
      ['delete', 'mv1', undefined, 'mv2/AlertChannel/roaming'],
    ]);
    const text = await cli(['plan', dir], { env });
    expect(text.stdout).toContain('moved to mv2/AlertChannel/roaming');
    expect(text.stdout).toContain('moved from mv1/AlertChannel/roaming');
  });
});

describe('--target', () => {
  it('plans exactly the targeted rule and the channel it depends on, says so, and applies only those', async () => {
    const files = {
      'c.yaml': webhook('t-a', 'https://a.example.com') + '---\n' + webhook('t-b', 'https://b.example.com'),
      'r.yaml': ruleTo('r-a', 't-a') + '---\n' + ruleTo('r-b', 't-b'),
    };
    const dir = await repo(['tgt'], files);
    const planned = await planJson(dir, '--target', 'AlertRule/r-a');
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.plan.changes.map((c: any) => `${c.action} ${c.kind}/${c.name}`)).toEqual(['create AlertChannel/t-a', 'create AlertRule/r-a']);
    expect([planned.plan.partial, planned.plan.targets]).toEqual([true, ['AlertRule/r-a']]);
    expect((await planJson(dir)).plan.partial).toBeUndefined();
    const text = await cli(['plan', dir, '--target', 'AlertRule/r-a'], { env });
    expect(text.stdout).toContain('Partial plan (--target AlertRule/r-a)');
    const md = await cli(['plan', dir, '--target', 'AlertRule/r-a', '--format', 'markdown'], { env });
    expect(md.stdout).toContain('Partial plan');

    await apply(dir, '--target', 'tgt/AlertRule/r-a');
    expect((await channels('tgt')).map((c) => c.name)).toEqual(['t-a']);
    expect((await rules('tgt')).map((r) => r.filters.name)).toEqual(['r-a']);

    // A selector that names nothing (a typo) is an error on plan and apply, and nothing is written.
    for (const command of ['plan', 'apply']) {
      const typo = await cli([command, dir, '--target', 'AlertRule/r-aa', ...(command === 'apply' ? ['--auto-approve'] : [])], { env });
      expect(typo.code, typo.stderr).toBe(1);
      expect(oneLine(typo.stderr)).toContain('--target AlertRule/r-aa names no declared or live resource');
      // Said once: the problems of a plan that cannot be made are printed by one hand only.
      expect(oneLine(typo.stderr).split('names no declared or live resource').length - 1, typo.stderr).toBe(1);
    }
    expect((await rules('tgt')).map((r) => r.filters.name)).toEqual(['r-a']);
    // One that names an up-to-date resource plans no change, with a warning.
    const quiet = await cli(['plan', dir, '--target', 'AlertRule/r-a', '--detailed-exitcode'], { env });
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(oneLine(quiet.stderr)).toContain('selects no change of this plan');
  });
});
