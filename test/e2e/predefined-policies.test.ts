// Issue 32's PredefinedPolicies through the CLI: entries by id and by tag set the state of the
// emulator's predefined policies in one bulk PATCH; the second plan is clean; policies no entry
// selects keep theirs; a console edit is drift; a tag that selects nothing is a warning, an unknown
// id an error at its line; prune never touches them; export writes the state back and plans clean.

import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { makeRepo } from '../config/helpers.js';
import { cli, oneLine, rawApi, serviceEnv, story } from './harness.js';

// Ten predefined policies in the emulator: the first apply changes six, over the default share of 30 %.
const ROOT = 'accounts:\n  - name: prod\nsafety:\n  kinds:\n    PredefinedPolicies: {updatePercent: 100}\n';
const STATE = `kind: PredefinedPolicies
name: predefined
spec:
  policies:
    - tag: framework:cis-aws-1-4-0
      enabled: true
    - policy: svc-global-39
      enabled: false
    - policy: svc-global-87
      severity: HIGH
    - tag: framework:cis-aws-1-4-*
      severity: critical
    - policy: svc-global-2
      enabled: 0
`;

describe('PredefinedPolicies: the state of the predefined policies', () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let dir: string;
  let env: Record<string, string>;
  const policies = async (): Promise<Record<string, { enabled: boolean; severity: string }>> =>
    Object.fromEntries((await rawApi(emu, 'GET', '/api/v2/Policies', { account: 'prod' })).body.data.map((p: any) => [p.policyId, { enabled: p.enabled, severity: p.severity }]));
  const bulkWrites = async (): Promise<number> => {
    const logs = (await rawApi(emu, 'GET', '/api/v2/AuditLogs', { account: 'prod' })).body.data as { userAction?: string; message?: string }[];
    return logs.filter((l) => JSON.stringify(l).includes('Update policies')).length;
  };

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ['prod'] });
    env = serviceEnv(emu);
    dir = await makeRepo({ 'postureops.yaml': ROOT, 'policies.yaml': STATE });
  });
  afterAll(async () => {
    await emu?.close();
    await rm(dir, { recursive: true, force: true });
  });
  const { step, run } = story();

  step('plans one update per selected policy whose state differs, applies them in one bulk request, then plans clean', async () => {
    const before = await policies();
    const valid = await cli(['validate', dir]);
    expect(valid.code, valid.stdout + valid.stderr).toBe(0);
    const plan = await cli(['plan', dir, '--format', 'json'], { env });
    expect(plan.code, plan.stderr).toBe(0);
    const changes = JSON.parse(plan.stdout).changes as { action: string; kind: string; name: string; changed?: string[] }[];
    // In the plan's order (by name). cis-aws: 1 (enabled, critical already), 2 (disabled: stays so, low → critical), 8 (high → critical),
    // 46 and 218 (disabled Manual policies: enabled, critical); 39 disabled; 87 medium → high.
    expect(changes.map((c) => `${c.action} ${c.kind} ${c.name}`), JSON.stringify(changes.map((c) => c.name))).toEqual([
      'update PredefinedPolicies svc-global-2',
      'update PredefinedPolicies svc-global-218',
      'update PredefinedPolicies svc-global-39',
      'update PredefinedPolicies svc-global-46',
      'update PredefinedPolicies svc-global-8',
      'update PredefinedPolicies svc-global-87',
    ]);
    const applied = await cli(['apply', dir, '--auto-approve', '--no-lease', '--format', 'json'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    expect((JSON.parse(applied.stdout).results as { status: string }[]).every((r) => r.status === 'done')).toBe(true);
    expect(await bulkWrites()).toBe(1);
    const after = await policies();
    expect(after['svc-global-1']).toEqual({ enabled: true, severity: 'critical' });
    expect(after['svc-global-2']).toEqual({ enabled: false, severity: 'critical' });
    expect(after['svc-global-8']).toEqual({ enabled: true, severity: 'critical' });
    expect(after['svc-global-39']).toEqual({ enabled: false, severity: 'medium' });
    expect(after['svc-global-46']).toEqual({ enabled: true, severity: 'critical' });
    expect(after['svc-global-87']).toEqual({ enabled: true, severity: 'high' });
    // What no entry selects keeps its state.
    for (const id of ['svc-global-73', 'svc-global-100', 'svc-global-270']) expect(after[id], id).toEqual(before[id]);
    const again = await cli(['plan', dir, '--detailed-exitcode'], { env });
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });

  step('shows a console edit as drift, attributed to who made it, and puts it back', async () => {
    expect((await rawApi(emu, 'PATCH', '/api/v2/Policies/svc-global-39', { account: 'prod', body: { enabled: true } })).status).toBe(200);
    const plan = await cli(['plan', dir, '--format', 'json'], { env });
    const changes = JSON.parse(plan.stdout).changes as { action: string; name: string; diff?: unknown }[];
    expect(changes.map((c) => `${c.action} ${c.name}`)).toEqual(['update svc-global-39']);
    expect(JSON.stringify(changes[0])).toContain('"lastChange":{"by":"admin@example.com"');
    expect((await cli(['apply', dir, '--auto-approve', '--no-lease'], { env })).code).toBe(0);
    expect((await policies())['svc-global-39'].enabled).toBe(false);
  });

  step('a tag that selects nothing is a warning; an unknown id is an error at its line', async () => {
    await writeFile(join(dir, 'policies.yaml'), `${STATE}    - tag: framework:none\n      enabled: true\n    - policy: svc-global-5\n      enabled: true\n`);
    const plan = await cli(['plan', dir], { env });
    expect(plan.code).toBe(1);
    const text = oneLine(plan.stdout + plan.stderr);
    expect(text).toMatch(/policies\.yaml:15:\d+.*warning.*no predefined policy of account prod carries the tag "framework:none"/);
    expect(text).toMatch(/policies\.yaml:17:\d+.*error.*account prod has no predefined policy svc-global-5/);
    await writeFile(join(dir, 'policies.yaml'), STATE);
  });

  step('prune on every kind neither deletes nor lists the policies no entry selects', async () => {
    await writeFile(join(dir, 'postureops.yaml'), `${ROOT}prune: true\n`);
    const plan = await cli(['plan', dir, '--format', 'json', '--detailed-exitcode'], { env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(plan.stdout).unmanaged ?? [])).not.toContain('PredefinedPolicies');
    await writeFile(join(dir, 'postureops.yaml'), ROOT);
  });

  step('exports the state as one document that validates and plans clean', async () => {
    const out = `${dir}-export`;
    const res = await cli(['export', '--out', out, '--account', 'prod'], { env });
    expect(res.code, res.stderr).toBe(0);
    const text = await readFile(join(out, 'prod', 'predefined-policies.yaml'), 'utf8');
    expect(text.match(/^kind: PredefinedPolicies$/gm)).toHaveLength(1);
    expect(text).toContain('policy: svc-global-270');
    const valid = await cli(['validate', out]);
    expect(valid.code, valid.stdout + valid.stderr).toBe(0);
    const plan = await cli(['plan', out, '--detailed-exitcode'], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    await rm(out, { recursive: true, force: true });
  });

  it('runs the story in order', run);
});
