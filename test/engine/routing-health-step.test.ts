// The routing step with channel health (issue 35): each channel's health from the records the plan
// read (their `state`), the cells it silences or degrades, and `healthy: true` requirements that
// refuse a plan only where it changes the cell or the cell was fine before; a channel the plan
// creates or changes counts as unknown until tested, and the channels a requirement relies on are
// named for `apply --test-channels`.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPlan, savePlan } from '../../src/run/plan-files.js';
import { plan } from '../../src/plan/steps/plan.js';
import { KINDS } from '../../src/kinds/index.js';
import type { LiveState } from '../../src/model/live.js';
import type { DesiredState } from '../../src/model/account.js';
import type { DesiredResource, LiveResource } from '../../src/model/resource.js';
import type { RoutingRequirement } from '../../src/model/routing.js';
import type { JsonObject } from '../../src/model/json.js';

const ACCOUNTS = [{ name: 'prod', orgAccess: false }];
const prune = Object.fromEntries(KINDS.map((k) => [k.kind, false]));
const T = Date.UTC(2026, 10, 20, 14, 0);
const channelSpec = (type: string, data: JsonObject = {}): JsonObject => ({ type, enabled: true, data });
const ruleSpec = (channels: string[], severity = [1]): JsonObject => ({ channels, severity, eventCategory: ['Cloud'], resourceGroups: [], description: '', enabled: true });
const healthy: JsonObject = { ok: true, lastSuccessfulTime: T };
const failing: JsonObject = { ok: false, lastSuccessfulTime: T, details: 'webhook revoked' };

const desiredOf = (resources: Omit<DesiredResource, 'envRefs'>[], requirements: RoutingRequirement[]): DesiredState => ({
  root: { file: 'postureops.yaml', accounts: ACCOUNTS, defaultAccount: 'prod', prune, routing: { requirements, tests: [] } },
  resources: resources.map((r) => ({ envRefs: {}, ...r })) as DesiredResource[],
});
const liveOf = (resources: LiveResource[]): LiveState => ({ accounts: ACCOUNTS, resources, calls: { total: 0, byBucket: {} } });
const pages: RoutingRequirement = { name: 'pages', accounts: '*', eventCategories: ['Cloud'], severities: ['critical'], reach: { types: ['PagerDutyApi'] }, allResources: false, healthy: true };

/** Live: pager (its health given) and slack (healthy); rule crit → both for Cloud/critical, rule low → slack for Cloud/low. */
function live(pagerInfo: JsonObject | undefined): LiveResource[] {
  return [
    { kind: 'AlertChannel', account: 'prod', name: 'pager', id: 'C1', spec: channelSpec('PagerDutyApi'), ...(pagerInfo ? { info: pagerInfo } : {}) },
    { kind: 'AlertChannel', account: 'prod', name: 'slack', id: 'C2', spec: channelSpec('SlackChannel'), info: healthy },
    { kind: 'AlertRule', account: 'prod', name: 'crit', id: 'R1', spec: ruleSpec(['pager', 'slack']) },
    { kind: 'AlertRule', account: 'prod', name: 'low', id: 'R2', spec: ruleSpec(['slack'], [4]) },
  ];
}
const declared = (crit: string[], low: string[] = ['slack'], pagerData: JsonObject = {}) => [
  { kind: 'AlertChannel', account: 'prod', name: 'pager', spec: channelSpec('PagerDutyApi', pagerData) },
  { kind: 'AlertChannel', account: 'prod', name: 'slack', spec: channelSpec('SlackChannel') },
  { kind: 'AlertRule', account: 'prod', name: 'crit', spec: ruleSpec(crit) },
  { kind: 'AlertRule', account: 'prod', name: 'low', spec: ruleSpec(low, [4]) },
];

describe('health in the routing step', () => {
  it('reads each channel from the records read: the failing pager degrades Cloud/critical, in delivery', () => {
    const result = plan(desiredOf(declared(['pager', 'slack']), []), liveOf(live(failing)), {});
    expect(result.plan!.routing!.delivery).toEqual([
      { account: 'prod', failing: [{ name: 'pager', type: 'PagerDutyApi', health: { state: 'failing', lastSuccess: T, detail: 'webhook revoked' } }], silent: [], degraded: ['Cloud/critical'] },
    ]);
  });

  it('an outage blocks no unrelated change: the failing cell is shown as an outage, not refused', () => {
    const result = plan(desiredOf(declared(['pager', 'slack'], ['slack', 'pager']), [pages]), liveOf(live(failing)), {});
    expect(result.plan!.changes.map((c) => c.key)).toEqual(['prod/AlertRule/low']);
    expect(result.plan!.refusal).toBeUndefined();
    expect(result.plan!.routing!.outages).toEqual([{ requirement: 'pages', accounts: [{ account: 'prod', cells: ['Cloud/critical'] }], healthy: true }]);
    expect(result.plan!.routing!.failing).toBeUndefined();
  });

  it('refuses a plan that changes the cell and leaves it without a healthy channel, naming the failing channel', () => {
    const result = plan(desiredOf(declared(['pager']), [pages]), liveOf(live(failing)), {});
    expect(result.plan!.refusal?.code).toBe('routing-requirement');
    expect(result.plan!.refusal!.details).toEqual([
      'routing requirement "pages" fails in 1 cell (none reaches a healthy PagerDutyApi channel): prod: Cloud/critical',
      'failing channels (as the service reports them): prod/pager',
    ]);
    expect(plan(desiredOf(declared(['pager']), [pages]), liveOf(live(failing)), { force: true }).plan!.refusal).toBeUndefined();
  });

  it('a healthy pager changed by the plan is unknown until tested: the cell was fine before, so the plan is refused', () => {
    const result = plan(desiredOf(declared(['pager', 'slack'], ['slack'], { note: 'x' }), [pages]), liveOf(live(healthy)), {});
    expect(result.plan!.changes.map((c) => c.key)).toEqual(['prod/AlertChannel/pager']);
    expect(result.plan!.refusal!.details[1]).toContain('unknown until tested (this plan creates or changes them): prod/pager');
    // The channel the requirement relies on, for apply --test-channels.
    expect(result.plan!.routing!.requiredChannels).toEqual([{ account: 'prod', name: 'pager', requirements: ['pages'] }]);
  });

  it('a plan repairing the failing pager is not refused: the cell was not fine before and its routes do not change', () => {
    const result = plan(desiredOf(declared(['pager', 'slack'], ['slack'], { note: 'x' }), [pages]), liveOf(live(failing)), {});
    expect(result.plan!.changes.map((c) => c.key)).toEqual(['prod/AlertChannel/pager']);
    expect(result.plan!.refusal).toBeUndefined();
    expect(result.plan!.routing!.outages?.[0].accounts).toEqual([{ account: 'prod', cells: ['Cloud/critical'] }]);
  });

  it('a plan routing the silent cell to a new pager is a repair: shown as an outage until tested, not refused', () => {
    const withNew = [
      ...declared(['pager2', 'slack']),
      { kind: 'AlertChannel', account: 'prod', name: 'pager2', spec: channelSpec('PagerDutyApi') },
    ];
    const result = plan(desiredOf(withNew, [pages]), liveOf(live(failing)), {});
    expect(result.plan!.changes.map((c) => c.key).sort()).toEqual(['prod/AlertChannel/pager2', 'prod/AlertRule/crit']);
    expect(result.plan!.refusal).toBeUndefined();
    expect(result.plan!.routing!.outages).toEqual([{ requirement: 'pages', accounts: [{ account: 'prod', cells: ['Cloud/critical'] }], healthy: true }]);
    expect(result.plan!.routing!.requiredChannels).toEqual([{ account: 'prod', name: 'pager2', requirements: ['pages'] }]);
    // The same change where the cell had a healthy pager before is refused: it was fine, and now is untested.
    expect(plan(desiredOf(withNew, [pages]), liveOf(live(healthy)), {}).plan!.refusal?.code).toBe('routing-requirement');
  });

  it('never succeeded (lastSuccessfulTime 0) and no state are unknown, not failing: no silent cell, and not healthy either', () => {
    for (const info of [{ ok: false, lastSuccessfulTime: 0, details: 'x' } as JsonObject, undefined]) {
      const result = plan(desiredOf(declared(['pager']), [pages]), liveOf(live(info)), {});
      expect(result.plan!.routing!.delivery).toBeUndefined();
      expect(result.plan!.refusal!.details[0]).toContain('none reaches a healthy PagerDutyApi channel');
    }
    const fine = plan(desiredOf(declared(['pager']), [pages]), liveOf(live(healthy)), {});
    expect(fine.plan!.refusal).toBeUndefined();
  });

  it('a saved plan keeps delivery, outages and the required channels, read back as they were', async () => {
    const made = plan(desiredOf(declared(['pager', 'slack'], ['slack', 'pager'], { note: 'x' }), [pages]), liveOf(live(failing)), {}).plan!;
    expect(made.routing!.delivery).toBeDefined();
    expect(made.routing!.outages).toBeDefined();
    expect(made.routing!.requiredChannels).toBeDefined();
    const dir = await mkdtemp(join(tmpdir(), 'postureops-health-plan-'));
    try {
      const file = join(dir, 'plan.json');
      await savePlan(file, made);
      expect((await loadPlan(file)).routing).toEqual(made.routing);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
