// Issue 23 end to end. A repository applied to the emulator, then a pull request that removes the
// only paging route of critical cloud alerts in prod: its plan is refused by the requirement (exit 3,
// --force plans it), its comment warns and draws the change; `routes` shows the map from the files
// and from the service; `routes test --expect` exits 0 and 1 as it should. The examples themselves:
// the same pull request on them is refused too (planned against an empty service: no apply needed).

import { cpSync, mkdtempSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { bareExamples, cli, exampleEnv, oneLine, serviceEnv } from './harness.js';

const ROOT = `accounts:
  - name: prod
  - name: staging
defaults:
  account: prod
routing:
  requirements:
    - name: prod-critical-pages
      accounts: prod
      eventCategory: [Cloud, Compliance]
      severity: [critical]
      reach: {types: [PagerDutyApi, VictorOps]}
variables: [PD_KEY, HOOK_URL]
`;
const CHANNELS = `kind: AlertChannel
name: oncall-pagerduty
spec:
  type: PagerDutyApi
  data:
    apiIntgKey: \${env:PD_KEY}
---
kind: AlertChannel
name: team-hook
account: "*"
spec:
  type: Webhook
  data:
    webhookUrl: \${env:HOOK_URL}
`;
const RULES = `kind: AlertRule
name: critical-to-oncall
spec:
  channels: [oncall-pagerduty, team-hook]
  severity: [critical, high]
  eventCategory: [Cloud, Compliance]
---
kind: AlertRule
name: staging-digest
account: staging
spec:
  channels: [team-hook]
  severity: [critical]
  eventCategory: [Cloud]
  resourceGroups: [stage-aws]
  enabled: true
---
kind: ResourceGroup
name: stage-aws
account: staging
spec:
  resourceType: AWS
  query:
    all:
      - field: Account
        values: ["123456789012"]
`;

describe('routing against the emulator', () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ['prod', 'staging'] });
    dir = mkdtempSync(join(tmpdir(), 'postureops-routing-'));
    await writeFile(join(dir, 'postureops.yaml'), ROOT);
    await writeFile(join(dir, 'channels.yaml'), CHANNELS);
    await writeFile(join(dir, 'rules.yaml'), RULES);
    env = { ...serviceEnv(emu), PD_KEY: 'pd-key-0815', HOOK_URL: 'https://hooks.example.com/team' };
    const applied = await cli(['apply', dir, '--auto-approve'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    // The pull request: critical cloud findings no longer page anyone in prod.
    const text = await readFile(join(dir, 'rules.yaml'), 'utf8');
    await writeFile(join(dir, 'rules.yaml'), text.replace('channels: [oncall-pagerduty, team-hook]', 'channels: [team-hook]'));
  });

  afterAll(async () => {
    await emu?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('validate fails at the requirement in postureops.yaml, naming every failing cell', async () => {
    const res = await cli(['validate', dir], { env });
    expect(res.code).toBe(1);
    expect(res.stdout).toContain('postureops.yaml:8:7: error[routing-requirement]');
    expect(oneLine(res.stdout)).toContain('routing requirement "prod-critical-pages" fails in 2 cells (none reaches a PagerDutyApi or VictorOps channel): prod: Cloud/critical, Compliance/critical');
  });

  it('plan shows the lost route and is refused (exit 3) by the requirement; --force plans it', async () => {
    const res = await cli(['plan', dir, '--format', 'json'], { env });
    expect(res.code, res.stderr).toBe(3);
    const plan = JSON.parse(res.stdout);
    expect(plan.refusal.code).toBe('routing-requirement');
    expect(plan.refusal.details).toEqual([
      'routing requirement "prod-critical-pages" fails in 2 cells (none reaches a PagerDutyApi or VictorOps channel): prod: Cloud/critical, Compliance/critical',
    ]);
    expect(plan.routing.accounts).toEqual(['prod', 'staging']);
    expect(plan.routing.changes).toEqual(
      ['Compliance/critical', 'Compliance/high', 'Cloud/critical', 'Cloud/high'].map((cell) => {
        const [eventCategory, severity] = cell.split('/');
        const causes = [{ key: 'prod/AlertRule/critical-to-oncall', action: 'update', role: 'rule', name: 'critical-to-oncall' }];
        return { account: 'prod', eventCategory, severity, before: ['oncall-pagerduty', 'team-hook'], after: ['team-hook'], gained: [], lost: ['oncall-pagerduty'], causes };
      }),
    );
    expect(plan.routing.failing[0]).toMatchObject({ requirement: 'prod-critical-pages', accounts: [{ account: 'prod', cells: ['Cloud/critical', 'Compliance/critical'] }] });
    const text = await cli(['plan', dir], { env });
    expect(text.code).toBe(3);
    expect(text.stdout).toContain('Routing changes (4 cells):');
    expect(oneLine(text.stdout)).toContain('prod -oncall-pagerduty: Compliance/critical, Compliance/high, Cloud/critical, Cloud/high');
    const forced = await cli(['plan', dir, '--force', '--format', 'json'], { env });
    expect(forced.code, forced.stderr).toBe(0);
    expect(JSON.parse(forced.stdout).refusal).toBeUndefined();
  });

  it('the comment has a Routing changes section: the changed cells, what changes them, and a diagram of the changed edges only', async () => {
    const res = await cli(['plan', dir, '--format', 'markdown'], { env });
    expect(res.code).toBe(3);
    const md = res.stdout;
    expect(md).toContain('**Plan refused (routing-requirement):**');
    expect(md).toContain('### Routing changes (4 cells)');
    const diagram = /```mermaid\n([\s\S]*?)\n```/.exec(md.slice(md.indexOf('### Routing changes')))![1];
    // Four cells lose the same channel for the same change: one node, one edge; the kept route is not drawn.
    expect(diagram.split('\n')).toEqual(['flowchart LR', '  k0["Compliance/critical, Compliance/high, Cloud/critical, Cloud/high"]', '  c0("oncall-pagerduty")', '  k0 -. lost .-> c0']);
    expect(md).toContain('| Event category | critical | high |\n| --- | --- | --- |\n| Compliance | −oncall-pagerduty | −oncall-pagerduty |\n| Cloud | −oncall-pagerduty | −oncall-pagerduty |');
    expect(md).toContain('- Compliance/critical, Compliance/high, Cloud/critical, Cloud/high: −oncall-pagerduty — via updated rule critical-to-oncall');
    expect(md).toContain('| oncall-pagerduty | — | Compliance: critical, high; Cloud: critical, high |');
  });

  it('warns at the top of the comment when a cell that reached a channel reaches none', async () => {
    const text = await readFile(join(dir, 'rules.yaml'), 'utf8');
    // Staging's only route of critical cloud findings is staging-digest: disable it.
    await writeFile(join(dir, 'rules.yaml'), text.replace('  enabled: true', '  enabled: false'));
    try {
      const res = await cli(['plan', dir, '--account', 'staging', '--format', 'markdown'], { env });
      expect(res.code, res.stderr).toBe(0);
      const warning = res.stdout.indexOf('> [!WARNING]');
      expect(warning).toBeGreaterThan(0);
      expect(warning).toBeLessThan(res.stdout.indexOf('| Account |'));
      expect(res.stdout).toContain('staging · Cloud/critical (was: team-hook)');
      expect(res.stdout).toContain('class k0 silenced');
    } finally {
      await writeFile(join(dir, 'rules.yaml'), text);
    }
  });

  it('routes shows the map from the files and from the service', async () => {
    const offline = await cli(['routes', dir, '--format', 'json'], { env: {} });
    expect(offline.code, offline.stderr).toBe(0);
    const files = JSON.parse(offline.stdout);
    expect(files.formatVersion).toBe(1);
    expect(files.source).toBe('configuration');
    expect(files.accounts.prod.Cloud.critical).toEqual(['team-hook']);
    expect(files.accounts.staging.App.low).toEqual([]);
    expect(files.details.prod.unusedChannels).toEqual(['oncall-pagerduty']);
    const live = await cli(['routes', dir, '--live', '--format', 'json'], { env });
    expect(live.code, live.stderr).toBe(0);
    const service = JSON.parse(live.stdout);
    expect(service.source).toBe('live');
    // The service still holds the route the pull request removes.
    expect(service.accounts.prod.Cloud.critical).toEqual(['oncall-pagerduty', 'team-hook']);
    expect(service.details.prod.unusedChannels).toEqual([]);
    // A rule's scope by the group's name, not its id: the routes read the resource groups too.
    expect(service.details.staging.routes).toEqual([
      { eventCategory: 'Cloud', severity: 'critical', channel: 'team-hook', channelType: 'Webhook', rule: 'staging-digest', resourceGroups: ['stage-aws'] },
    ]);
    expect(live.stderr).not.toContain('dangling');
  });

  it('routes test --expect exits 0 when the channels agree and 1 when they differ', async () => {
    const args = ['routes', 'test', dir, '--account', 'prod', '--category', 'Cloud', '--severity', 'critical', '--live'];
    const same = await cli([...args, '--expect', 'team-hook,oncall-pagerduty'], { env });
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toContain('oncall-pagerduty (PagerDutyApi) via rule critical-to-oncall');
    const differs = await cli([...args, '--expect', 'oncall-pagerduty'], { env });
    expect(differs.code).toBe(1);
    expect(differs.stdout).toContain('unexpected: team-hook');
    const offline = await cli(['routes', 'test', dir, '--account', 'prod', '--category', 'Cloud', '--severity', 'critical', '--expect', 'team-hook'], { env: {} });
    expect(offline.code, offline.stdout).toBe(0);
  });
});

describe('routing requirements of the examples', () => {
  it('a pull request removing the only paging route of critical alerts in prod is refused', async () => {
    const emu = await startEmulator({ accounts: ['prod', 'staging'] });
    const dir = join(mkdtempSync(join(tmpdir(), 'postureops-routing-examples-')), 'examples');
    try {
      cpSync(bareExamples(), dir, { recursive: true });
      const rules = join(dir, 'rules', 'prod.yaml');
      const text = await readFile(rules, 'utf8');
      expect(text).toContain('channels: [oncall-pagerduty, security-slack]');
      await writeFile(rules, text.replace('channels: [oncall-pagerduty, security-slack]', 'channels: [security-slack]'));
      const env = { ...serviceEnv(emu), ...exampleEnv() };
      const res = await cli(['plan', dir, '--format', 'json'], { env });
      expect(res.code, res.stderr).toBe(3);
      const plan = JSON.parse(res.stdout);
      expect(plan.refusal.details).toEqual([
        'routing requirement "prod-critical-pages" fails in 3 cells (none reaches a PagerDutyApi or VictorOps channel): prod: Cloud/critical, Compliance/critical, K8sActivity/critical',
      ]);
    } finally {
      await emu.close();
      await rm(join(dir, '..'), { recursive: true, force: true });
    }
  });
});
