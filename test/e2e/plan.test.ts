// Issue 4 end to end: live state seeded through the API, then `postureops plan` against the emulator.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { KINDS } from '../../src/kinds/index.js';
import { cli, oneLine, rawApi, readsByCollection, serviceEnv } from './harness.js';

const SLACK_SECRET = 'https://hooks.slack.com/services/T0SECRET/B0SECRET/very-secret-token-4711';
const PD_SECRET = 'pd-integration-key-secret-0815';

const ROOT = `accounts:
  - name: prod
  - name: staging
defaults:
  account: prod
variables: [SLACK_URL, PD_KEY, AUDIT_HOOK_TOKEN]
`;
const CHANNELS = `kind: AlertChannel
name: ops-slack
account: "*"
spec:
  type: SlackChannel
  data:
    slackUrl: \${env:SLACK_URL}
---
kind: AlertChannel
name: oncall-pagerduty
account: [prod, staging]
spec:
  type: PagerDutyApi
  data:
    apiIntgKey: \${env:PD_KEY}
---
kind: AlertChannel
name: audit-webhook
account: "*"
spec:
  type: Webhook
  enabled: true
  data:
    webhookUrl: https://audit.example.com/hook/\${env:AUDIT_HOOK_TOKEN}
`;
const RULES = `kind: AlertRule
name: critical-cloud
account: "*"
spec:
  channels: [ops-slack, oncall-pagerduty]
  severity: [critical, high]
  eventCategory: [Cloud, Compliance]
  description: Critical cloud findings to on-call
`;

describe('plan against seeded live state in two accounts', () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ['prod', 'staging'] });
    dir = await mkdtemp(join(tmpdir(), 'postureops-plan-'));
    await writeFile(join(dir, 'postureops.yaml'), ROOT);
    await writeFile(join(dir, 'channels.yaml'), CHANNELS);
    await writeFile(join(dir, 'rules.yaml'), RULES);
    env = { ...serviceEnv(emu), SLACK_URL: SLACK_SECRET, PD_KEY: PD_SECRET, AUDIT_HOOK_TOKEN: 'audit-token-1234' };

    // Converge, then move the live state away from the files in known ways.
    const applied = await cli(['apply', dir, '--auto-approve'], { env });
    expect(applied.code, applied.stderr).toBe(0);

    const prodChannels = (await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' })).body.data;
    const webhook = prodChannels.find((c: { name: string }) => c.name === 'audit-webhook');
    // changed: the prod webhook disabled by hand
    expect((await rawApi(emu, 'PATCH', `/api/v2/AlertChannels/${webhook.intgGuid}`, { account: 'prod', body: { enabled: 0 } })).status).toBe(200);
    // drifted rule: severity widened in prod
    const rule = (await rawApi(emu, 'GET', '/api/v2/AlertRules', { account: 'prod' })).body.data[0];
    const filters = {
      name: rule.filters.name,
      description: rule.filters.description,
      enabled: 1,
      resourceGroups: rule.filters.resourcegroups ?? [],
      eventCategory: rule.filters.eventcategory,
      severity: [1, 2, 3],
    };
    expect((await rawApi(emu, 'PATCH', `/api/v2/AlertRules/${rule.mcGuid}`, { account: 'prod', body: { filters } })).status).toBe(200);
    // unmanaged: a channel created in the staging console
    const created = await rawApi(emu, 'POST', '/api/v2/AlertChannels', {
      account: 'staging',
      body: { name: 'console-made', type: 'Webhook', enabled: 1, data: { webhookUrl: 'https://console.example.com' } },
    });
    expect(created.status).toBe(201);
    // missing: the staging webhook deleted by hand
    const stagingChannels = (await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'staging' })).body.data;
    const stagingWebhook = stagingChannels.find((c: { name: string }) => c.name === 'audit-webhook');
    expect([200, 204]).toContain((await rawApi(emu, 'DELETE', `/api/v2/AlertChannels/${stagingWebhook.intgGuid}`, { account: 'staging' })).status);
  });

  afterAll(async () => {
    await emu?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('lists exactly the expected changes, in a valid order, with the drifted field', async () => {
    const res = await cli(['plan', dir, '--format', 'json', '--detailed-exitcode'], { env });
    expect(res.code, res.stderr).toBe(2);
    const plan = JSON.parse(res.stdout);
    expect(plan.formatVersion).toBe(2);
    const brief = plan.changes.map((c: any) => `${c.action} ${c.account}/${c.kind}/${c.name}`);
    expect(brief.sort()).toEqual(
      ['create staging/AlertChannel/audit-webhook', 'update prod/AlertChannel/audit-webhook', 'update prod/AlertRule/critical-cloud'].sort(),
    );
    expect(plan.summary).toMatchObject({ create: 1, update: 2, replace: 0, delete: 0 });
    const ruleChange = plan.changes.find((c: any) => c.kind === 'AlertRule');
    expect(ruleChange.diff.map((op: any) => op.path).join(' ')).toContain('/severity');
    const webhookChange = plan.changes.find((c: any) => c.kind === 'AlertChannel' && c.action === 'update');
    expect(webhookChange.changed).toEqual(['enabled']);
    expect(plan.unmanaged).toEqual([expect.objectContaining({ account: 'staging', kind: 'AlertChannel', name: 'console-made' })]);
  });

  it('gives byte-identical output for the same input', async () => {
    const a = await cli(['plan', dir, '--format', 'json'], { env });
    const b = await cli(['plan', dir, '--format', 'json'], { env });
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    const ta = await cli(['plan', dir, '--format', 'markdown'], { env });
    const tb = await cli(['plan', dir, '--format', 'markdown'], { env });
    expect(ta.stdout).toBe(tb.stdout);
  });

  it('reads each kind it needs once per account, through the list or its search, and says what it left unread', async () => {
    const res = await cli(['plan', dir, '--format', 'json'], { env });
    const doc = JSON.parse(res.stdout);
    const calls = doc.apiCalls.byBucket;
    // Only channels and rules are declared, and prune is off: the other lists are not spent, but
    // for the groups the rules name (their ids become names).
    expect(readsByCollection(calls)).toEqual({ AlertChannels: 2, AlertRules: 2, ResourceGroups: 2 });
    // Six reads over two functionalities each: both are used.
    expect(Object.keys(calls).filter((b) => b.endsWith('/search')).length).toBeGreaterThan(0);
    expect(doc.apiCalls.total).toBe(7);
    const read = ['AlertChannel', 'AlertRule', 'ResourceGroup'];
    const unread = KINDS.map((k) => k.kind).filter((k) => !read.includes(k));
    expect(doc.unread).toEqual([{ account: 'prod', kinds: unread }, { account: 'staging', kinds: unread }].map((u) => ({ ...u, kinds: expect.arrayContaining(u.kinds) })));
    const text = await cli(['plan', dir, '--no-color', '--verbose'], { env });
    expect(text.stdout).toMatch(/Not read \(nothing of them is declared there, pruned, or referred to\):\n  /);
    expect(oneLine(text.stdout)).toMatch(/Not read \(nothing of them is declared there, pruned, or referred to\): .*CloudAccount.* in prod, staging/);
  });

  it('shows no secret set through ${env:...} in any rendering or saved plan', async () => {
    const planFile = join(dir, 'saved.plan.json');
    const outputs: string[] = [];
    for (const format of ['text', 'json', 'markdown']) {
      const res = await cli(['plan', dir, '--format', format, '--out', planFile, '--verbose'], { env });
      outputs.push(res.stdout, res.stderr);
    }
    outputs.push(await readFile(planFile, 'utf8'));
    // Rotation sends write-only secrets: still none in the output.
    const rotated = await cli(['plan', dir, '--format', 'json', '--rotate', 'AlertChannel/oncall-pagerduty'], { env });
    outputs.push(rotated.stdout, rotated.stderr);
    expect(JSON.parse(rotated.stdout).changes.some((c: any) => c.name === 'oncall-pagerduty' && c.rotate)).toBe(true);
    for (const text of outputs) {
      expect(text).not.toContain(SLACK_SECRET);
      expect(text).not.toContain(PD_SECRET);
      expect(text).not.toContain(emu.secret);
    }
  });
});
