// Issue 22 through the CLI: resource groups of every type, alert rules and report rules that name
// them (declared and default groups) apply in one run, plan clean, export to themselves with no
// GUID in a file; a rename keeps the GUID and the rules; a report unticked in the service is a
// change; a report rule routed to a Webhook is refused at file:line; a GUID in a file still works.

import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { makeRepo } from '../config/helpers.js';
import { cli, oneLine, rawApi, serviceEnv } from './harness.js';

const GROUPS = `kind: ResourceGroup
name: aws-eu
spec:
  resourceType: AWS
  description: European AWS
  query:
    all:
      - field: Account
        values: ["123456789012"]
      - any:
          - field: Region
            operation: STARTS_WITH
            values: [eu-]
          - field: Resource Tag
            key: region
            values: [europe]
---
kind: ResourceGroup
name: azure-prod
spec:
  resourceType: AZURE
  query: {any: [{field: Subscription Name, values: [prod]}, {field: Tenant ID, values: [t-1]}]}
---
kind: ResourceGroup
name: gcp-prod
spec:
  resourceType: GCP
  enabled: false
  query:
    filters:
      b: {field: Project ID, operation: EQUALS, values: [p-2, p-1]}
      a: {field: Resource Label, operation: EQUALS, key: env, values: [prod]}
    expression: {operator: OR, children: [{filterName: b}, {filterName: a}]}
---
kind: ResourceGroup
name: images
spec:
  resourceType: CONTAINER
  query: {all: [{field: Image Registry, values: [ghcr.io]}, {field: Image Tag, operation: INCLUDES, values: ["*"]}]}
---
kind: ResourceGroup
name: hosts
spec:
  resourceType: MACHINE
  query: {all: [{field: Machine Tag, key: role, values: [web]}]}
---
kind: ResourceGroup
name: oci
spec:
  resourceType: OCI
  query: {all: [{field: Compartment Name, values: [prod]}]}
---
kind: ResourceGroup
name: clusters
spec:
  resourceType: KUBERNETES
  query: {all: [{field: Cluster Name, operation: STARTS_WITH, values: [prod-]}, {field: Namespace, values: [default]}]}
`;

const RULES = `kind: AlertChannel
name: sec-mail
spec:
  type: EmailUser
  data:
    channelProps:
      recipients: [sec@example.com]
---
kind: AlertRule
name: cloud
spec:
  channels: [sec-mail]
  severity: [critical]
  resourceGroups: [aws-eu, azure-prod, All GCP Projects]
---
kind: ReportRule
name: weekly
spec:
  channels: [sec-mail]
  reports: [awsComplianceEvents, pci, trendReport]
  severity: [critical, high]
  resourceGroups: [aws-eu, clusters, All Machines]
---
kind: ReportRule
name: quiet
spec:
  enabled: false
  channels: [sec-mail]
  reports: [agentEvents]
`;

/** The ids the emulator gives (integration-style GUIDs and UUIDs): none may reach a file. */
const GUID = /[A-Z0-9_]+_[0-9A-F]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

async function files(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out[join(entry.parentPath, entry.name).slice(root.length + 1)] = await readFile(join(entry.parentPath, entry.name), 'utf8');
  }
  return out;
}

describe('resource groups and report rules by name', () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let dir: string;
  let env: Record<string, string>;
  const groups = async (): Promise<any[]> => (await rawApi(emu, 'GET', '/api/v2/ResourceGroups', { account: 'prod' })).body.data;
  const guidOf = async (name: string): Promise<string> => (await groups()).find((g) => (g.name ?? g.resourceName) === name)?.resourceGroupGuid;

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ['prod'] });
    env = serviceEnv(emu);
    dir = await makeRepo({ 'postureops.yaml': 'accounts:\n  - name: prod\n', 'groups.yaml': GROUPS, 'rules.yaml': RULES });
  });
  // One story, in order: each step builds on the state the one before left (a test per step would
  // depend on the order tests run in).
  const steps: [string, () => Promise<void>][] = [];
  const step = (name: string, fn: () => Promise<void>): void => {
    steps.push([name, fn]);
  };
  afterAll(async () => {
    await emu?.close();
    await rm(dir, { recursive: true, force: true });
  });

  step('applies groups and the rules that use them in one run, then plans clean', async () => {
    const valid = await cli(['validate', dir]);
    expect(valid.code, valid.stdout + valid.stderr).toBe(0);
    expect(valid.stdout + valid.stderr).not.toContain('warning');
    const applied = await cli(['apply', dir, '--auto-approve', '--no-lease', '--format', 'json'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    const results = JSON.parse(applied.stdout).results as { kind: string; name: string; status: string }[];
    expect(results.every((r) => r.status === 'done')).toBe(true);
    // Groups before the rules that name them.
    const at = (kind: string, name: string) => results.findIndex((r) => r.kind === kind && r.name === name);
    expect(at('ResourceGroup', 'aws-eu')).toBeLessThan(at('AlertRule', 'cloud'));
    expect(at('ResourceGroup', 'clusters')).toBeLessThan(at('ReportRule', 'weekly'));

    // The service holds GUIDs, defaults included.
    const rules = (await rawApi(emu, 'GET', '/api/v2/AlertRules', { account: 'prod' })).body.data;
    expect(rules[0].filters.resourcegroups.sort()).toEqual([await guidOf('aws-eu'), await guidOf('azure-prod'), (await groups()).find((g) => g.resourceName === 'All GCP Projects').guid].sort());
    const reports = (await rawApi(emu, 'GET', '/api/v2/ReportRules', { account: 'prod' })).body.data;
    const weekly = reports.find((r: any) => r.filters.name === 'weekly');
    expect(Object.entries(weekly.reportNotificationTypes).filter(([, v]) => v === true).map(([k]) => k).sort()).toEqual(['awsComplianceEvents', 'pci', 'trendReport']);
    expect(weekly.reportNotificationTypes.hipaa).toBe(false);

    const again = await cli(['plan', dir, '--detailed-exitcode'], { env });
    expect(again.code, again.stdout + again.stderr).toBe(0);
  });

  step('exports to itself: names, no GUID, default groups only as references; validate and plan clean', async () => {
    const out = join(dir, '..', `${dir.split('/').pop()}-export`);
    const res = await cli(['export', '--out', out, '--account', 'prod'], { env });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).not.toContain('warning');
    const written = await files(out);
    for (const [path, text] of Object.entries(written)) expect(text, path).not.toMatch(GUID);
    const groupsFile = written[join('prod', 'resource-groups.yaml')];
    expect(groupsFile.match(/^kind: ResourceGroup$/gm)).toHaveLength(7);
    expect(groupsFile).not.toContain('All ');
    expect(written[join('prod', 'alert-rules.yaml')]).toContain('All GCP Projects');
    expect(written[join('prod', 'report-rules.yaml')]).toContain('All Machines');
    const valid = await cli(['validate', out]);
    expect(valid.code, valid.stdout + valid.stderr).toBe(0);
    expect(valid.stdout + valid.stderr).not.toContain('warning');
    const plan = await cli(['plan', out, '--detailed-exitcode'], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    await rm(out, { recursive: true, force: true });
  });

  step('renames a group with previousNames: same GUID, its rules keep it', async () => {
    const before = await guidOf('aws-eu');
    await writeFile(join(dir, 'groups.yaml'), GROUPS.replace('name: aws-eu\n', 'name: aws-europe\npreviousNames: [aws-eu]\n'));
    await writeFile(join(dir, 'rules.yaml'), RULES.replaceAll('aws-eu', 'aws-europe'));
    const plan = await cli(['plan', dir, '--format', 'json'], { env });
    const changes = JSON.parse(plan.stdout).changes as { action: string; kind: string; name: string }[];
    expect(changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual(['update ResourceGroup aws-europe']);
    const applied = await cli(['apply', dir, '--auto-approve', '--no-lease'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(await guidOf('aws-europe')).toBe(before);
    const rules = (await rawApi(emu, 'GET', '/api/v2/AlertRules', { account: 'prod' })).body.data;
    expect(rules[0].filters.resourcegroups).toContain(before);
    expect((await cli(['plan', dir, '--detailed-exitcode'], { env })).code).toBe(0);
  });

  step('shows a report unticked in the service as a change, and ticks it again', async () => {
    const weekly = (await rawApi(emu, 'GET', '/api/v2/ReportRules', { account: 'prod' })).body.data.find((r: any) => r.filters.name === 'weekly');
    const patched = await rawApi(emu, 'PATCH', `/api/v2/ReportRules/${weekly.mcGuid}`, { account: 'prod', body: { reportNotificationTypes: { pci: false } } });
    expect(patched.status).toBe(200);
    const plan = await cli(['plan', dir, '--format', 'json'], { env });
    const changes = JSON.parse(plan.stdout).changes as { action: string; kind: string; name: string }[];
    expect(changes.map((c) => `${c.action} ${c.kind} ${c.name}`)).toEqual(['update ReportRule weekly']);
    const text = await cli(['plan', dir], { env });
    expect(text.stdout).toMatch(/reports[\s\S]*pci/);
    expect((await cli(['apply', dir, '--auto-approve', '--no-lease'], { env })).code).toBe(0);
    expect((await cli(['plan', dir, '--detailed-exitcode'], { env })).code).toBe(0);
  });

  step('takes a GUID in place of a name with a warning naming the group, and plans no change', async () => {
    const guid = await guidOf('clusters');
    await writeFile(join(dir, 'rules.yaml'), RULES.replaceAll('aws-eu', 'aws-europe').replace('[aws-europe, clusters, All Machines]', `[aws-europe, "${guid}", All Machines]`));
    const plan = await cli(['plan', dir, '--detailed-exitcode'], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    // Once among the plan's warnings (stderr lists the diagnostics too).
    expect(oneLine(plan.stdout).split(`names ResourceGroup ${guid} by its id: that is ResourceGroup "clusters"`)).toHaveLength(2);
    await writeFile(join(dir, 'rules.yaml'), RULES.replaceAll('aws-eu', 'aws-europe'));
  });

  step('does not delete a group a live rule outside the repository still uses', async () => {
    const channels = (await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' })).body.data;
    const other = await rawApi(emu, 'POST', '/api/v2/AlertRules', {
      account: 'prod',
      body: { type: 'Event', intgGuidList: [channels[0].intgGuid], filters: { name: 'console-made', enabled: 1, severity: [1], eventCategory: [], resourceGroups: [await guidOf('hosts')] } },
    });
    expect(other.status).toBe(201);
    await writeFile(join(dir, 'groups.yaml'), GROUPS.replace('name: aws-eu\n', 'name: aws-europe\n').replace(/---\nkind: ResourceGroup\nname: hosts[\s\S]*?(?=---)/, ''));
    await writeFile(join(dir, 'postureops.yaml'), 'accounts:\n  - name: prod\nprune: {ResourceGroup: true}\n');
    const plan = await cli(['plan', dir, '--format', 'json'], { env });
    const body = JSON.parse(plan.stdout);
    expect(body.changes.map((c: any) => `${c.action} ${c.kind} ${c.name}`)).toEqual(['delete ResourceGroup hosts']);
    expect(body.refusal.code).toBe('in-use');
    expect(body.refusal.details.join('\n')).toContain('AlertRule console-made (not declared in this configuration)');
    // Default groups are never planned for deletion, prune or not.
    expect(JSON.stringify(body.changes)).not.toContain('All ');
  });

  step('deletes groups after the rules stop using them, in one apply', async () => {
    const made = (await rawApi(emu, 'GET', '/api/v2/AlertRules', { account: 'prod' })).body.data.find((r: any) => r.filters.name === 'console-made');
    expect((await rawApi(emu, 'DELETE', `/api/v2/AlertRules/${made.mcGuid}`, { account: 'prod' })).status).toBe(204);
    const without = (text: string, name: string) => text.split('---\n').filter((d) => !d.startsWith(`kind: ResourceGroup\nname: ${name}\n`)).join('---\n');
    await writeFile(join(dir, 'groups.yaml'), without(without(GROUPS.replace('name: aws-eu\n', 'name: aws-europe\n'), 'hosts'), 'clusters'));
    await writeFile(join(dir, 'rules.yaml'), RULES.replaceAll('aws-eu', 'aws-europe').replace('[aws-europe, clusters, All Machines]', '[aws-europe, All Machines]'));
    const applied = await cli(['apply', dir, '--auto-approve', '--no-lease', '--format', 'json'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    const results = (JSON.parse(applied.stdout).results as { action: string; kind: string; name: string; status: string }[]).map((r) => `${r.action} ${r.kind} ${r.name} ${r.status}`);
    // The report rule lets go of `clusters` before the group goes (the service answers 409 otherwise).
    expect(results).toEqual(['delete ResourceGroup hosts done', 'update ReportRule weekly done', 'delete ResourceGroup clusters done']);
    expect((await groups()).map((g) => g.name ?? g.resourceName)).not.toContain('clusters');
    expect((await cli(['plan', dir, '--detailed-exitcode'], { env })).code).toBe(0);
  });

  it('in one story: apply, export, rename, a report unticked, a GUID for a name, a group in use, deletes once the rules let go', async () => {
    for (const [name, fn] of steps) {
      try {
        await fn();
      } catch (err) {
        throw new Error(`step "${name}": ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  });
});

describe('a report rule routed to a Webhook', () => {
  it('is refused at the file and line that names it', async () => {
    const dir = await makeRepo({
      'postureops.yaml': 'accounts:\n  - name: prod\n',
      'hook.yaml': 'kind: AlertChannel\nname: soc-hook\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/soc\n',
      'report.yaml': 'kind: ReportRule\nname: weekly\nspec:\n  reports: [pci]\n  channels:\n    - soc-hook\n',
    });
    const res = await cli(['validate', dir]);
    expect(res.code).toBe(1);
    expect(oneLine(res.stdout + res.stderr)).toMatch(/report\.yaml:6:7: error\[reference-not-allowed\]: ReportRule `weekly` names AlertChannel `soc-hook`, whose type is Webhook/);
    await rm(dir, { recursive: true, force: true });
  });

  it('is refused by plan when the Webhook is only live', async () => {
    const emu = await startEmulator({ accounts: ['prod'] });
    const created = await rawApi(emu, 'POST', '/api/v2/AlertChannels', { account: 'prod', body: { name: 'live-hook', type: 'Webhook', enabled: 1, data: { webhookUrl: 'https://hooks.example.com/x' } } });
    expect(created.status).toBe(201);
    const dir = await makeRepo({
      'postureops.yaml': 'accounts:\n  - name: prod\n',
      'report.yaml': 'kind: ReportRule\nname: weekly\nspec:\n  reports: [pci]\n  channels: [live-hook]\n',
    });
    const res = await cli(['plan', dir], { env: serviceEnv(emu) });
    expect(res.code).toBe(1);
    expect(oneLine(res.stdout + res.stderr)).toMatch(/report\.yaml:5:14: error\[reference-not-allowed\]: ReportRule weekly refers to AlertChannel live-hook, whose type is Webhook/);
    await emu.close();
    await rm(dir, { recursive: true, force: true });
  });
});
