// The plan's routing step: the state after a plan is the live state with its changes made (updates
// keep what the file leaves out, --target narrows, unread accounts are not compared), requirements
// refuse unless --force, and a saved plan's routing is checked like the rest of the file.

import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPlan, savePlan } from '../../src/run/plan-files.js';
import { plan } from '../../src/plan/steps/plan.js';
import { routing } from '../../src/plan/steps/routing.js';
import { FAKE_KINDS } from './plan-fakes.js';
import type { LiveState } from '../../src/model/live.js';
import { KINDS } from '../../src/kinds/index.js';
import type { Kind } from '../../src/kinds/types.js';
import type { Decision } from '../../src/plan/steps/shared.js';
import type { Change } from '../../src/model/plan.js';
import type { JsonObject } from '../../src/model/json.js';
import type { DesiredState } from '../../src/model/account.js';
import { DiagnosticsError } from '../../src/model/diagnostics.js';
import type { DesiredResource, LiveResource } from '../../src/model/resource.js';
import type { RoutingRequirement, RoutingWork } from '../../src/model/routing.js';
import { renderDriftMarkdown } from '../../src/render/drift-markdown.js';

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
    expect(routing.changes).toEqual([{ account: 'prod', eventCategory: 'Cloud', severity: 'critical', before: ['pager', 'slack'], after: ['slack'], gained: [], lost: ['pager'], causes: [{ key: 'prod/AlertRule/crit', action: 'update', role: 'rule', name: 'crit' }] }]);
    expect(result.plan!.refusal).toBeUndefined();
    // Two maps of one rule matching one cell each.
    expect(work.ruleCells).toBe(2);
  });

  it('maps again only the accounts whose rules or channels the plan changes: another keeps its live map, still checked', () => {
    const stagingLive: LiveResource[] = [
      { kind: 'AlertChannel', account: 'staging', name: 'pager', id: 'C3', spec: channelSpec('PagerDutyApi') },
      { kind: 'AlertRule', account: 'staging', name: 'crit', id: 'R2', spec: ruleSpec(['pager']) },
    ];
    const stagingDeclared = stagingLive.map(({ kind, account, name, spec }) => ({ kind, account, name, spec }));
    const hooks: RoutingRequirement = { name: 'hooks', accounts: ['staging'], eventCategories: ['Cloud'], severities: ['critical'], reach: { types: ['Webhook'] }, allResources: false };
    const work: RoutingWork = { ruleCells: 0, requirementCells: 0 };
    const result = plan(desiredOf([...declared(['slack']), ...stagingDeclared], [hooks]), liveOf([...live, ...stagingLive]), { routingWork: work, force: true });
    const routing = result.plan!.routing!;
    // The map before visits the rule of each account, the map after only prod's.
    expect(work.ruleCells).toBe(3);
    expect(routing.changes.map((c) => [c.account, c.lost])).toEqual([['prod', ['pager']]]);
    // The unchanged account is in the state after: its requirement is checked there.
    expect(routing.failing).toEqual([{ requirement: 'hooks', accounts: [{ account: 'staging', cells: ['Cloud/critical'] }] }]);
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
    expect(result.plan!.routing!.changes).toEqual([{ account: 'prod', eventCategory: 'Cloud', severity: 'critical', before: ['pager', 'slack'], after: ['pager'], gained: [], lost: ['slack'], causes: [{ key: 'prod/AlertChannel/slack', action: 'update', role: 'channel', name: 'slack' }] }]);
  });

  it('does not compare an account whose channels and rules were not read', () => {
    const result = plan(desiredOf(declared(['slack']), [{ ...pages, accounts: '*' }]), liveOf(live, [{ account: 'staging', kinds: ['AlertChannel', 'AlertRule'] }]), {});
    expect(result.plan!.routing!.accounts).toEqual(['prod']);
    expect(result.plan!.routing!.failing).toEqual([{ requirement: 'pages', accounts: [{ account: 'prod', cells: ['Cloud/critical'] }] }]);
  });
});

describe('the destinations a reviewer must see', () => {
  it('a channel the plan creates is a new destination, with the cells it will receive; a live channel no file declares is listed with what it receives now', () => {
    const hook = { kind: 'AlertChannel', account: 'prod', name: 'hook', spec: channelSpec('Webhook') };
    const toHook = { kind: 'AlertRule', account: 'prod', name: 'to-hook', spec: ruleSpec(['hook'], { severity: [2] }) };
    const byHand: LiveResource = { kind: 'AlertChannel', account: 'prod', name: 'by-hand', id: 'C9', spec: channelSpec('Webhook') };
    const sneaky: LiveResource = { kind: 'AlertRule', account: 'prod', name: 'sneaky', id: 'R9', spec: ruleSpec(['by-hand']) };
    const result = plan(desiredOf([...declared(['pager', 'slack']), hook, toHook]), liveOf([...live, byHand, sneaky]), {});
    const routing = result.plan!.routing!;
    expect(routing.newChannels).toEqual([{ account: 'prod', name: 'hook', type: 'Webhook', enabled: true, cells: ['Cloud/high'], rules: ['to-hook'] }]);
    expect(routing.undeclaredChannels).toEqual([{ account: 'prod', name: 'by-hand', type: 'Webhook', enabled: true, cells: ['Cloud/critical'], rules: ['sneaky'] }]);
    expect(routing.changes).toEqual([
      { account: 'prod', eventCategory: 'Cloud', severity: 'high', before: [], after: ['hook'], gained: ['hook'], lost: [], causes: [{ key: 'prod/AlertRule/to-hook', action: 'create', role: 'rule', name: 'to-hook' }, { key: 'prod/AlertChannel/hook', action: 'create', role: 'channel', name: 'hook' }] },
    ]);
  });

  it('a renamed channel is no new destination, and its change is found by its old name too', () => {
    const renamed = [{ kind: 'AlertChannel', account: 'prod', name: 'pager-2', previousNames: ['pager'], spec: channelSpec('PagerDutyApi') }, declared([])[1]!, { ...declared([])[2]!, spec: ruleSpec(['pager-2', 'slack']) }];
    const result = plan(desiredOf(renamed as Omit<DesiredResource, 'envRefs'>[]), liveOf(live), {});
    expect(result.plan!.changes.find((c) => c.name === 'pager-2')?.renamedFrom).toBe('pager');
    expect(result.plan!.routing).not.toHaveProperty('newChannels');
    expect(result.plan!.routing!.changes).toEqual([]);
  });
});

describe('a console rename in a drift check', () => {
  // The console renamed slack to ops-chat (same id, same settings) and points crit at it.
  const renamedLive: LiveResource[] = [live[0]!, { ...live[1]!, name: 'ops-chat' }, { ...live[2]!, spec: { ...ruleSpec(['pager', 'ops-chat']), source: ['AWS'] } }];

  it('prune off: the unmanaged twin of a create is linked to it, and the issue reads it as a rename with the console side live', () => {
    const made = plan(desiredOf(declared(['pager', 'slack'])), liveOf(renamedLive), {}).plan!;
    expect(made.unmanaged).toEqual([expect.objectContaining({ name: 'ops-chat', sameSpecAs: 'prod/AlertChannel/slack' })]);
    const md = renderDriftMarkdown(made);
    const differs = md.slice(md.indexOf('### What differs'), md.indexOf('<details>'));
    expect(differs).toContain("- prod · AlertChannel: **renamed in the console**: the console has **ops-chat**, the repository **slack** (no file declares it: an apply would create the repository's beside it)");
    expect(differs).not.toContain('the repository has it, the console does not');
    expect(differs).not.toContain('no file declares it (left alone)');
    expect(md.indexOf('### Destinations only the console has (1)')).toBeLessThan(md.indexOf('### What differs'));
    expect(md).toContain("- prod · **ops-chat** (SlackChannel) (renamed in the console from the repository's slack): receives 1 cell (Cloud: critical) through rule crit");
  });

  it('prune on: the paired create and delete are one line', () => {
    const d = desiredOf(declared(['pager', 'slack']));
    const made = plan({ ...d, root: { ...d.root, prune: { ...prune, AlertChannel: true } } }, liveOf(renamedLive), {}).plan!;
    expect(made.changes.map((c) => `${c.action} ${c.name}`).sort()).toEqual(['create slack', 'delete ops-chat', 'update crit']);
    const md = renderDriftMarkdown(made);
    const differs = md.slice(md.indexOf('### What differs'), md.indexOf('<details>'));
    expect(differs.match(/ops-chat/g)).toHaveLength(1);
    expect(differs).toContain('the console has **ops-chat**, the repository **slack** (same settings)');
    expect(differs).toContain('- prod · AlertRule **crit**: the console and the repository differ in channels');
  });

  it('two creates with the spec of one unmanaged resource are not a rename', () => {
    const twins = [...declared(['pager', 'slack']), { kind: 'AlertChannel', account: 'prod', name: 'slack-2', spec: channelSpec('SlackChannel') }];
    const made = plan(desiredOf(twins), liveOf(renamedLive), {}).plan!;
    expect(made.unmanaged[0]).not.toHaveProperty('sameSpecAs');
  });
});

describe('a saved plan with routing', () => {
  it('keeps the causes and the destinations through the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'postureops-routing-plan-'));
    try {
      const hook = { kind: 'AlertChannel', account: 'prod', name: 'hook', spec: channelSpec('Webhook') };
      const made = plan(desiredOf([...declared(['slack']), hook, { kind: 'AlertRule', account: 'prod', name: 'h', spec: ruleSpec(['hook']) }]), liveOf(live), {}).plan!;
      expect(made.routing!.changes[0]!.causes!.length).toBeGreaterThan(0);
      const file = join(dir, 'plan.json');
      await savePlan(file, made);
      expect((await loadPlan(file)).routing).toEqual(made.routing);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

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

describe('the routing step: the state after each kind of change', () => {
  const pruneRules = { ...prune, AlertRule: true };
  const prunedOf = (resources: Omit<DesiredResource, 'envRefs'>[], requirements: RoutingRequirement[] = []): DesiredState => {
    const d = desiredOf(resources, requirements);
    return { ...d, root: { ...d.root, prune: pruneRules } };
  };

  it('a live rule the plan deletes no longer routes: its cell loses every channel', () => {
    const result = plan(prunedOf(declared([]).slice(0, 2)), liveOf(live), {});
    expect(result.plan!.changes.map((c) => [c.action, c.key])).toEqual([['delete', 'prod/AlertRule/crit']]);
    expect(result.plan!.routing!.changes).toEqual([{ account: 'prod', eventCategory: 'Cloud', severity: 'critical', before: ['pager', 'slack'], after: [], gained: [], lost: ['pager', 'slack'], causes: [{ key: 'prod/AlertRule/crit', action: 'delete', role: 'rule', name: 'crit' }] }]);
    // The cell a requirement asks for is checked even when no rule is left to route it.
    const checked = plan(prunedOf(declared([]).slice(0, 2), [pages]), liveOf(live), {}).plan!;
    expect(checked.routing!.failing).toEqual([{ requirement: 'pages', accounts: [{ account: 'prod', cells: ['Cloud/critical'] }] }]);
  });

  it('rules the plan creates route in the state after, each beside the other and the live one', () => {
    const resources = [
      ...declared(['pager', 'slack']),
      { kind: 'AlertRule', account: 'prod', name: 'high', spec: ruleSpec(['slack'], { severity: [2] }) },
      { kind: 'AlertRule', account: 'prod', name: 'medium', spec: ruleSpec(['pager'], { severity: [3] }) },
    ];
    const result = plan(desiredOf(resources), liveOf(live), {});
    expect(result.plan!.routing!.changes).toEqual([
      { account: 'prod', eventCategory: 'Cloud', severity: 'high', before: [], after: ['slack'], gained: ['slack'], lost: [], causes: [{ key: 'prod/AlertRule/high', action: 'create', role: 'rule', name: 'high' }] },
      { account: 'prod', eventCategory: 'Cloud', severity: 'medium', before: [], after: ['pager'], gained: ['pager'], lost: [], causes: [{ key: 'prod/AlertRule/medium', action: 'create', role: 'rule', name: 'medium' }] },
    ]);
    expect(result.plan!.routing).not.toHaveProperty('failing');
  });

  it('an update keeps the live members the file leaves out: the rule still routes only the categories it had', () => {
    const { eventCategory: _left, ...partial } = ruleSpec(['slack']);
    const resources = [...declared(['pager', 'slack']).slice(0, 2), { kind: 'AlertRule', account: 'prod', name: 'crit', spec: partial }];
    const result = plan(desiredOf(resources), liveOf(live), {});
    expect(result.plan!.routing!.changes).toEqual([{ account: 'prod', eventCategory: 'Cloud', severity: 'critical', before: ['pager', 'slack'], after: ['slack'], gained: [], lost: ['pager'], causes: [{ key: 'prod/AlertRule/crit', action: 'update', role: 'rule', name: 'crit' }] }]);
  });

  it('a live rule in an account whose routing kinds were not read is neither compared nor changed', () => {
    const elsewhere: LiveResource = { ...live[2], account: 'staging', id: 'R5' };
    const result = plan(prunedOf(declared(['pager', 'slack'])), liveOf([...live, elsewhere], [{ account: 'staging', kinds: ['AlertChannel', 'AlertRule'] }]), {});
    expect(result.plan!.routing!.accounts).toEqual(['prod']);
    expect(result.plan!.routing!.changes).toEqual([]);
  });

  it('the refusal counts the requirements that fail, in words for one', () => {
    const slackToo: RoutingRequirement = { ...pages, name: 'chat', reach: { types: ['SlackChannel'] } };
    const one = plan(desiredOf(declared(['slack']), [pages]), liveOf(live), {}).plan!.refusal!;
    expect(one.message).toBe('after this plan, a routing requirement fails (postureops.yaml `routing.requirements`)');
    const two = plan(desiredOf(declared(['pager']).map((r) => (r.kind === 'AlertRule' ? { ...r, spec: ruleSpec([], { enabled: false }) } : r)), [pages, slackToo]), liveOf(live), {}).plan!.refusal!;
    expect(two.message).toBe('after this plan, 2 routing requirements fail (postureops.yaml `routing.requirements`)');
    expect(two.details).toHaveLength(2);
  });

  it('a requirement on a category no rule names is checked on a row of its own, and fails', () => {
    const custom: RoutingRequirement = { ...pages, name: 'custom', eventCategories: ['CustomCategory'] };
    const result = plan(desiredOf(declared(['pager', 'slack']), [custom]), liveOf(live), {});
    expect(result.plan!.routing!.failing).toEqual([{ requirement: 'custom', accounts: [{ account: 'prod', cells: ['CustomCategory/critical'] }] }]);
  });

  it('no accounts to compare, or kinds without routing → no routing at all', () => {
    const unread = plan(desiredOf(declared(['slack'])), liveOf(live, ACCOUNTS.map((a) => ({ account: a.name, kinds: ['AlertChannel', 'AlertRule'] }))), {});
    expect(unread.plan!.routing).toBeUndefined();
    // Kinds without routing (the planner's fakes): nothing to compare, whatever lives.
    expect(routing({ accounts: ACCOUNTS, live, decisions: new Map(), changes: [], kinds: FAKE_KINDS, requirements: [pages], force: false })).toEqual({});
  });
});

describe('the routing step: the spec a change leaves in the state after', () => {
  const RULE = KINDS.find((k) => k.kind === 'AlertRule')!;
  const decisionFor = (kind: Kind, name: string, spec: Record<string, unknown>, action: Change['action']): Decision => ({
    key: `prod/AlertRule/${name}`,
    desired: { kind: 'AlertRule', account: 'prod', name, spec: spec as JsonObject, envRefs: {} },
    kind,
    rotate: false,
    action,
  });
  const changeOf = (d: Decision, liveId?: string): Change =>
    ({ key: d.key, action: d.action!, kind: 'AlertRule', account: 'prod', name: d.desired.name, ...(liveId ? { liveId } : {}) }) as unknown as Change;
  const step = (kinds: readonly Kind[], decisions: Decision[], changes: Change[]) =>
    routing({ accounts: ACCOUNTS.slice(0, 1), live, decisions: new Map(decisions.map((d) => [d.key, d])), changes, kinds, requirements: [], force: false }).routing!.changes;

  it('a replace takes the desired spec whole: a filter the file leaves out is not carried over from the live rule', () => {
    // Without its event category the new rule matches every category (an empty filter matches all).
    const { eventCategory: _left, ...partial } = ruleSpec(['pager']);
    const replaced = decisionFor(RULE, 'crit', partial, 'replace');
    const changes = step(KINDS, [replaced], [changeOf(replaced, 'R1')]);
    const cloud = changes.find((c) => c.eventCategory === 'Cloud')!;
    expect(cloud).toEqual({ account: 'prod', eventCategory: 'Cloud', severity: 'critical', before: ['pager', 'slack'], after: ['pager'], gained: [], lost: ['slack'], causes: [{ key: 'prod/AlertRule/crit', action: 'replace', role: 'rule', name: 'crit' }] });
    // Every other category gains the channel: an update would have kept the rule on Cloud alone.
    expect(changes.length).toBeGreaterThan(1);
    expect(changes.filter((c) => c.eventCategory !== 'Cloud').every((c) => c.before.length === 0 && c.gained.join() === 'pager')).toBe(true);
  });

  it('works with a routing kind that declares no open members: its creates, replaces and updates take the desired spec', () => {
    const { openMembers: _open, ...closedCompare } = RULE.compare ?? {};
    const Closed: Kind = { ...RULE, compare: closedCompare };
    const updated = decisionFor(Closed, 'crit', ruleSpec(['slack']), 'update');
    const created = decisionFor(Closed, 'high', ruleSpec(['pager'], { severity: [2] }), 'create');
    const changes = step([...KINDS.filter((k) => k.kind !== 'AlertRule'), Closed], [updated, created], [changeOf(updated, 'R1'), changeOf(created)]);
    expect(changes).toEqual([
      { account: 'prod', eventCategory: 'Cloud', severity: 'critical', before: ['pager', 'slack'], after: ['slack'], gained: [], lost: ['pager'], causes: [{ key: 'prod/AlertRule/crit', action: 'update', role: 'rule', name: 'crit' }] },
      { account: 'prod', eventCategory: 'Cloud', severity: 'high', before: [], after: ['pager'], gained: ['pager'], lost: [], causes: [{ key: 'prod/AlertRule/high', action: 'create', role: 'rule', name: 'high' }] },
    ]);
  });
});
