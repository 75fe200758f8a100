// The engine with the registered kinds against the emulator: fetch, plan, apply, plan again.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import type { ApiClient } from '../../src/api/types.js';
import type { DesiredState } from '../../src/model/account.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { apply } from '../../src/ops/apply/apply.js';
import { fetchLive } from '../../src/ops/live/fetch.js';
import { declaredParents } from '../../src/ops/live/needed-kinds.js';
import { plan } from '../../src/plan/steps/plan.js';
import { withBudget } from '../../src/ops/budget/budget.js';
import { checkStale } from '../../src/plan/saved/plan-file.js';
import type { Plan } from '../../src/model/plan.js';
import { KINDS, kindForDocument } from '../../src/kinds/index.js';
import type { DesiredResource } from '../../src/model/resource.js';
import type { JsonObject } from '../../src/model/json.js';
import { readsByCollection } from '../e2e/harness.js';

const SLACK = 'https://hooks.slack.com/services/T0/B0/real-kinds-secret-1';
const PD = 'pd-real-kinds-secret-2';
const ENV = { SLACK_URL: SLACK, PD_KEY: PD };
const ACCOUNTS = [
  { name: 'prod', orgAccess: false },
  { name: 'staging', orgAccess: false },
];

function fromDoc(kind: string, name: string, spec: JsonObject, envRefs: Record<string, string> = {}, account = 'prod'): DesiredResource[] {
  const { resources, diagnostics } = kindForDocument(kind)!.fromDocument({
    kind,
    name,
    account,
    spec,
    envRefs,
    source: { file: 'config.yaml', line: 1, column: 1 },
    positions: {},
  });
  expect(diagnostics).toEqual([]);
  return resources;
}

function desiredState(extraRuleChannel?: string): DesiredState {
  return {
    root: {
      file: 'postureops.yaml',
      accounts: ACCOUNTS,
      defaultAccount: 'prod',
      prune: Object.fromEntries(KINDS.map((k) => [k.kind, k.kind === 'AlertRule'])),
    },
    resources: [
      ...fromDoc('AlertChannel', 'ops-slack', { type: 'SlackChannel', data: { slackUrl: SLACK } }, { '/data/slackUrl': '${env:SLACK_URL}' }),
      ...fromDoc('AlertChannel', 'pager', { type: 'PagerDutyApi', data: { apiIntgKey: PD } }, { '/data/apiIntgKey': '${env:PD_KEY}' }),
      ...fromDoc('AlertChannel', 'ops-slack', { type: 'SlackChannel', data: { slackUrl: SLACK } }, { '/data/slackUrl': '${env:SLACK_URL}' }, 'staging'),
      ...fromDoc('AlertRule', 'critical', { channels: ['pager', extraRuleChannel ?? 'ops-slack'], severity: ['critical', 'high'], eventCategory: ['Cloud', 'Compliance'] }),
      ...fromDoc('AlertProfile', 'CUSTOM_FILES', {
        extends: 'SVC_HE_FILES_DEFAULT_PROFILE',
        alerts: [
          { name: 'A', eventName: 'Changed file', subject: '{{PATH}} changed on {{MID}}', description: '{{_OCCURRENCE}}' },
          { name: 'B', eventName: 'Another', subject: '{{MID}}', description: 'plain' },
        ],
      }),
    ],
  };
}

// A fresh emulator per case: the cases that need applied state apply it themselves.
let emulator: RunningEmulator;
let client: ApiClient;

beforeEach(async () => {
  emulator = await startEmulator({ accounts: ['prod', 'staging'] });
  client = createClient({ baseUrl: emulator.url, keyId: emulator.keyId, secret: emulator.secret });
});

afterEach(async () => {
  await client?.close();
  await emulator?.close();
});

async function planNow(desired: DesiredState, options: { rotate?: string[] } = {}): Promise<Plan> {
  // As a plan run reads: the exceptions of the policies the state declares exceptions for only.
  const live = await fetchLive(client, ACCOUNTS, KINDS, { parentsOf: declaredParents(desired, KINDS) });
  const result = withBudget(plan(desired, live, { ...options, apiCalls: live.calls }), KINDS, client.budget());
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return result.plan!;
}

/** Plans the desired state on the empty emulator and applies it; returns that first plan. */
async function applyFirst(): Promise<Plan> {
  const first = await planNow(desiredState());
  const report = await apply(first, client, { env: ENV });
  expect(report.results.map((r) => r.status)).toEqual(['done', 'done', 'done', 'done', 'done']);
  return first;
}

describe('plan engine with the registered kinds', () => {
  it('plans creates in dependency order, one list call per path per account, no secret in the plan', async () => {
    const first = await planNow(desiredState());
    expect(first.changes.map((c) => `${c.action} ${c.key}`)).toEqual([
      'create prod/AlertChannel/ops-slack',
      'create prod/AlertChannel/pager',
      'create prod/AlertRule/critical',
      'create prod/AlertProfile/CUSTOM_FILES',
      'create staging/AlertChannel/ops-slack',
    ]);
    expect(first.changes[3].children?.map((c) => c.name)).toEqual(['CUSTOM_FILES.A', 'CUSTOM_FILES.B']);
    expect(first.changes[2].dependsOn).toEqual(['prod/AlertChannel/ops-slack', 'prod/AlertChannel/pager']);
    // Profiles and templates share one call: 10 list paths per account, token exchange aside.
    expect(readsByCollection(first.apiCalls.byBucket)).toEqual({
      AlertChannels: 2,
      AlertRules: 2,
      AlertProfiles: 2,
      CloudAccounts: 2,
      ContainerRegistries: 2,
      AgentAccessTokens: 2,
      ResourceGroups: 2,
      ReportRules: 2,
      DataExportRules: 2,
      VulnerabilityExceptions: 2,
      Queries: 2,
      Policies: 2,
    });
    const text = JSON.stringify(first);
    expect(text.includes(SLACK)).toBe(false);
    expect(text.includes(PD)).toBe(false);
    expect(first.budget.find((b) => b.bucket === 'POST AlertChannels')?.needed).toBe(3);
  });

  it('applies, then plans no changes (write-only secrets are not compared)', async () => {
    const first = await applyFirst();
    const again = await planNow(desiredState());
    expect(again.changes).toEqual([]);
    expect(again.unmanaged).toEqual([]);
    expect(checkStale(first, await fetchLive(client, ACCOUNTS, KINDS))?.code).toBe('stale');
  });

  it('rotation pushes the write-only key; a drifted rule is an update of its channels', async () => {
    await applyFirst();
    const rotated = await planNow(desiredState(), { rotate: ['prod/AlertChannel/pager'] });
    expect(rotated.changes.map((c) => [c.action, c.key, c.rotate, c.changed])).toEqual([['update', 'prod/AlertChannel/pager', true, ['data']]]);

    const drift = await planNow(desiredState('pager'));
    const rule = drift.changes.find((c) => c.kind === 'AlertRule')!;
    expect(rule.action).toBe('update');
    expect(rule.changed).toEqual(['channels']);
    expect(rule.refs?.map((r) => r.name)).toEqual(['pager']);
    expect(rule.refs?.[0].id).toMatch(/^PROD_/);
    const live = await fetchLive(client, ACCOUNTS, KINDS);
    expect(checkStale(drift, live)).toBeUndefined();
  });
});
