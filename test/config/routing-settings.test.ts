// postureops.yaml `routing`: requirements and route tests read with their lines, refused where they
// name what does not exist, and checked by `validate` against the configuration (offline).

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { checkRouting } from '../../src/config/routing.js';

const CHANNELS = `kind: AlertChannel
name: pager
spec:
  type: PagerDutyApi
  data:
    apiIntgKey: \${env:PD}
---
kind: AlertChannel
name: team
spec:
  type: Webhook
  enabled: false
  data:
    webhookUrl: https://hooks.example.com/team
`;
const RULES = `kind: AlertRule
name: crit
spec:
  channels: [pager, team]
  severity: [critical]
  eventCategory: [Cloud]
`;

let dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  dirs = [];
});

async function load(routing: string) {
  const dir = await mkdtemp(join(tmpdir(), 'postureops-routing-config-'));
  dirs.push(dir);
  await writeFile(join(dir, 'postureops.yaml'), `accounts:\n  - name: prod\n  - name: staging\ndefaults:\n  account: prod\nsecrets:\n  literals: allow\n${routing}variables: [PD]\n`);
  await writeFile(join(dir, 'channels.yaml'), CHANNELS);
  await writeFile(join(dir, 'rules.yaml'), RULES);
  return loadConfig(dir, { env: { PD: 'key' } });
}

describe('routing settings', () => {
  it('reads requirements and tests with their lines, categories and severities in canonical spelling', async () => {
    const res = await load(`routing:
  requirements:
    - name: pages
      accounts: prod
      eventCategory: [cloud]
      severity: [1, high]
      reach: {types: [PagerDutyApi]}
  tests:
    - account: prod
      eventCategory: Cloud
      severity: 1
      expect: [pager]
`);
    expect(res.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const routing = res.state!.root.routing!;
    expect(routing.requirements[0]).toMatchObject({ name: 'pages', accounts: ['prod'], eventCategories: ['Cloud'], severities: ['critical', 'high'], reach: { types: ['PagerDutyApi'] }, allResources: false });
    expect(routing.requirements[0].source).toMatchObject({ line: 10, column: 7 });
    expect(routing.tests[0]).toMatchObject({ account: 'prod', eventCategory: 'Cloud', severity: 'critical', expect: ['pager'] });
    expect(routing.tests[0].source).toMatchObject({ line: 16 });
  });

  it.each([
    ['an undeclared account', `routing:\n  requirements:\n    - {name: a, accounts: [prod, prdo], eventCategory: "*", severity: "*", reach: {channels: [x]}}\n`, 'account-not-declared', 10],
    ['a severity that is none', `routing:\n  requirements:\n    - {name: a, accounts: "*", eventCategory: "*", severity: [urgent], reach: {channels: [x]}}\n`, 'invalid-value', 10],
    ['a reach that asks for nothing', `routing:\n  requirements:\n    - {name: a, accounts: "*", eventCategory: "*", severity: "*", reach: {}}\n`, undefined, 10],
    ['a test of an undeclared account', `routing:\n  tests:\n    - {account: qa, eventCategory: Cloud, severity: critical, expect: []}\n`, 'account-not-declared', 10],
  ])('refuses %s at its line', async (_name, routing, code, line) => {
    const res = await load(routing);
    const errors = res.diagnostics.filter((d) => d.severity === 'error');
    if (code) expect(errors.map((d) => d.code)).toContain(code);
    expect(errors.find((d) => code === undefined || d.code === code)).toMatchObject({ file: expect.stringMatching(/postureops\.yaml$/), line });
    expect(res.state).toBeUndefined();
  });

  it('validate: a failing requirement and a failing test are errors at their lines, a disabled channel counting for nothing', async () => {
    const res = await load(`routing:
  requirements:
    - name: pages
      accounts: "*"
      eventCategory: [Cloud]
      severity: [critical]
      reach: {types: [PagerDutyApi]}
    - name: team-hears
      accounts: prod
      eventCategory: [Cloud]
      severity: [critical]
      reach: {channels: [team]}
  tests:
    - name: cloud-critical
      account: prod
      eventCategory: Cloud
      severity: critical
      expect: [pager, team]
`);
    const diagnostics = checkRouting(res.state!);
    expect(diagnostics.map((d) => [d.code, d.line, d.message])).toEqual([
      ['routing-requirement', 10, 'routing requirement "pages" fails in 1 cell (none reaches a PagerDutyApi channel): staging: Cloud/critical'],
      ['routing-requirement', 15, 'routing requirement "team-hears" fails in 1 cell (none reaches channel team): prod: Cloud/critical'],
      ['routing-test', 21, 'route test "cloud-critical" fails: prod Cloud/critical reaches [pager], expected [pager, team] (missing team)'],
    ]);
    expect(diagnostics.every((d) => d.severity === 'error' && d.file!.endsWith('postureops.yaml'))).toBe(true);
  });

  it('no routing section, no check', async () => {
    const res = await load('');
    expect(res.state!.root.routing).toBeUndefined();
    expect(checkRouting(res.state!)).toEqual([]);
  });
});
