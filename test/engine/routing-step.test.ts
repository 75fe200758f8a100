// The plan's routing step: the state after a plan is the live state with its changes made (updates
// keep what the file leaves out, --target narrows, unread accounts are not compared), requirements
// refuse unless --force, and a saved plan's routing is checked like the rest of the file.

import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPlan } from '../../src/engine/saved/plan-file.js';
import { plan } from '../../src/engine/plan/plan.js';
import type { LiveState } from '../../src/engine/types.js';
import { KINDS } from '../../src/kinds/index.js';
import type { DesiredState } from '../../src/model/account.js';
import { DiagnosticsError } from '../../src/model/diagnostics.js';
import type { DesiredResource, LiveResource } from '../../src/model/resource.js';
import type { RoutingRequirement, RoutingWork } from '../../src/model/routing.js';

const ACCOUNTS = [
  { name: 'prod', orgAccess: false },
  { name: 'staging', orgAccess: false },
];
const prune = Object.fromEntries(KINDS.map((k) => [k.kind, false]));
const channelSpec = (type: string, enabled = true) => ({ type, enabled, data: {} });
const ruleSpec = (channels: string[], extra: Record<string, unknown> = {}) => ({ channels, severity: [1], eventCategory: ['Cloud'], resourceGroups: [], description: '', enabled: true, ...extra });

const desiredOf = (resources: Omit<DesiredResource, 'envRefs'>[], requirements: RoutingRequirement[] = []): DesiredState => ({
  root: { file: 'postureops.yaml', accounts: ACCOUNTS, defaultAccount: 'prod', prune, routing: { requirements, tests: [] } },
  resources: resources.map((r) => ({ envRefs: {}, ...r })) as DesiredResource[],
});
const liveOf = (resources: LiveResource[], unread?: LiveState['unread']): LiveState => ({ accounts: ACCOUNTS, resources, calls: { total: 0, byBucket: {} }, ...(unread ? { unread } : {}) });

const live: LiveResource[] = [
  { kind: 'AlertChannel', account: 'prod', name: 'pager', id: 'C1', spec: channelSpec('PagerDutyApi') },
  { kind: 'AlertChannel', account: 'prod', name: 'slack', id: 'C2', spec: channelSpec('SlackChannel') },
  // The live rule carries a newer filter the file does not declare (an update keeps it).
  { kind: 'AlertRule', account: 'prod', name: 'crit', id: 'R1', spec: { ...ruleSpec(['pager', 'slack']), source: ['AWS'] } },
];
const declared = (channels: string[], rule: Record<string, unknown> = {}) => [
  { kind: 'AlertChannel', account: 'prod', name: 'pager', spec: channelSpec('PagerDutyApi') },
  { kind: 'AlertChannel', account: 'prod', name: 'slack', spec: channelSpec('SlackChannel') },
  { kind: 'AlertRule', account: 'prod', name: 'crit', spec: ruleSpec(channels, rule) },
];
const pages: RoutingRequirement = { name: 'pages', accounts: ['prod'], eventCategories: ['Cloud'], severities: ['critical'], reach: { types: ['PagerDutyApi'] }, allResources: false };

describe('the routing step of plan', () => {
  it('compares before and after: an update that drops a channel loses it in the cell', () => {
    const work: RoutingWork = { ruleCells: 0, requirementCells: 0 };
    const result = plan(desiredOf(declared(['slack'])), liveOf(live), { routingWork: work });
    const routing = result.plan!.routing!;
    expect(routing.accounts).toEqual(['prod', 'staging']);
    expect(routing.changes).toEqual([{ account: 'prod', eventCategory: 'Cloud', severity: 'critical', before: ['pager', 'slack'], after: ['slack'], gained: [], lost: ['pager'] }]);
    expect(result.plan!.refusal).toBeUndefined();
    // Two maps of one rule matching one cell each.
    expect(work.ruleCells).toBe(2);
  });

  it('refuses a plan that leaves a requirement failing, and --force plans it', () => {
    const refused = plan(desiredOf(declared(['slack']), [pages]), liveOf(live), {});
    expect(refused.plan!.refusal).toMatchObject({ code: 'routing-requirement' });
    expect(refused.plan!.refusal!.details).toEqual(['routing requirement "pages" fails in 1 cell (none reaches a PagerDutyApi channel): prod: Cloud/critical']);
    expect(refused.plan!.routing!.failing).toEqual([{ requirement: 'pages', accounts: [{ account: 'prod', cells: ['Cloud/critical'] }] }]);
    const forced = plan(desiredOf(declared(['slack']), [pages]), liveOf(live), { force: true });
    expect(forced.plan!.refusal).toBeUndefined();
    expect(forced.plan!.routing!.failing).toHaveLength(1);
    const kept = plan(desiredOf(declared(['pager', 'slack']), [pages]), liveOf(live), {});
    expect(kept.plan!.refusal).toBeUndefined();
    expect(kept.plan!.routing!.changes).toEqual([]);
  });

  it('disabling the channel counts as losing it; deleting nothing undeclared (prune off) keeps live rules routing', () => {
    const resources = declared(['pager', 'slack']);
    resources[0] = { ...resources[0], spec: channelSpec('PagerDutyApi', false) };
    const extra: LiveResource = { kind: 'AlertRule', account: 'prod', name: 'console-made', id: 'R9', spec: ruleSpec(['pager']) };
    const result = plan(desiredOf(resources, [pages]), liveOf([...live, extra]), {});
    expect(result.plan!.routing!.changes.map((c) => c.lost)).toEqual([['pager']]);
    expect(result.plan!.refusal?.code).toBe('routing-requirement');
  });

  it('a --target plan makes only the targeted changes', () => {
    const resources = declared(['slack']);
    resources[1] = { ...resources[1], spec: channelSpec('SlackChannel', false) };
    const result = plan(desiredOf(resources), liveOf(live), { targets: ['AlertChannel/slack'] });
    expect(result.plan!.changes.map((c) => c.key)).toEqual(['prod/AlertChannel/slack']);
    expect(result.plan!.routing!.changes).toEqual([{ account: 'prod', eventCategory: 'Cloud', severity: 'critical', before: ['pager', 'slack'], after: ['pager'], gained: [], lost: ['slack'] }]);
  });

  it('does not compare an account whose channels and rules were not read', () => {
    const result = plan(desiredOf(declared(['slack']), [{ ...pages, accounts: '*' }]), liveOf(live, [{ account: 'staging', kinds: ['AlertChannel', 'AlertRule'] }]), {});
    expect(result.plan!.routing!.accounts).toEqual(['prod']);
    expect(result.plan!.routing!.failing).toEqual([{ requirement: 'pages', accounts: [{ account: 'prod', cells: ['Cloud/critical'] }] }]);
  });
});

describe('a saved plan with routing', () => {
  it('is refused when its routing is damaged', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'postureops-routing-plan-'));
    try {
      const body = { formatVersion: 2, accounts: [], summary: {}, unmanaged: [], diagnostics: [], apiCalls: {}, budget: [], changes: [], routing: { accounts: ['prod'], changes: [{ account: 'prod', before: 'x' }] } };
      const file = join(dir, 'plan.json');
      await writeFile(file, JSON.stringify({ ...body, checksum: createHash('sha256').update(JSON.stringify(body)).digest('hex') }));
      const err = await loadPlan(file).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DiagnosticsError);
      expect((err as DiagnosticsError).diagnostics[0].message).toContain('routing must be');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
