// Routing semantics, table-driven: alert rules and channels read through their kinds' routing hooks
// (live-shaped and file-shaped specs), then the map, its diff and the requirements (src/model/routing.ts).

import { describe, expect, it } from 'vitest';
import { KINDS, kindOf } from '../../src/kinds/index.js';
import { routingDimensions, routingInputs, type RoutedResource } from '../../src/kinds/routing.js';
import type { JsonObject } from '../../src/model/json.js';
import {
  type CauseOf,
  cellOf,
  channelReceipts,
  checkRequirement,
  diffRouting,
  routingChangesByAccount,
  mergeRouting,
  routeAll,
  silencedCells,
  testMismatch,
  type RoutingMap,
  type RoutingRequirement,
  type RoutingWork,
} from '../../src/model/routing.js';

const dims = routingDimensions(KINDS);
const channel = (name: string, type = 'SlackChannel', enabled = true, account = 'prod'): RoutedResource => ({ kind: 'AlertChannel', account, name, spec: { type, enabled, data: {} } });
const rule = (name: string, spec: JsonObject, account = 'prod'): RoutedResource => ({ kind: 'AlertRule', account, name, spec: { enabled: true, ...spec } });
const mapOf = (resources: RoutedResource[], accounts = ['prod']): RoutingMap => routeAll(routingInputs(resources, accounts, KINDS), dims, 'configuration');
const reach = (map: RoutingMap, category: string, severity: string, account = 'prod'): string[] =>
  cellOf(map.accounts.find((a) => a.account === account)!, category, severity)?.channels ?? [];

describe('the routing hooks of the kinds', () => {
  it('channels, alert rules, report rules and data export rules take part, each in its role; the rule kind gives the dimensions', () => {
    expect(Object.fromEntries(KINDS.filter((k) => k.routing).map((k) => [k.kind, k.routing!.role]))).toEqual({ AlertChannel: 'channel', AlertRule: 'rule', ReportRule: 'consumer', DataExportRule: 'consumer' });
    expect(dims.severities.map((s) => s.name)).toEqual(['critical', 'high', 'medium', 'low', 'info']);
    expect(dims.categories).toContain('Cloud');
  });

  it('reads a live rule in every spelling the service uses (through the kind list, as the engine does)', async () => {
    const records = [
      { mcGuid: 'R1', intgGuidList: ['C1'], filters: { name: 'lower', enabled: 1, severity: [1], eventcategory: ['cloud'], resourcegroups: ['RG_1'] } },
      { mcGuid: 'R2', intgGuidList: ['C1'], filters: { name: 'newer', enabled: 1, severity: [2], category: ['Policy'], subCategory: ['Compliance'], sources: ['AWS'] } },
    ];
    const live = await kindOf('AlertRule').list({ account: 'prod', orgAccess: false, get: async () => ({ data: records }) });
    const parts = live.map((r) => kindOf('AlertRule').routing!.read(r.name, r.spec));
    expect(parts[0]).toEqual({
      role: 'rule',
      rule: { name: 'lower', enabled: true, channels: ['C1'], severities: [1], categories: ['Cloud'], resourceGroups: ['RG_1'], conditions: [] },
    });
    expect(parts[1].role === 'rule' && parts[1].rule.conditions).toEqual([
      { name: 'category', values: ['Policy'] },
      { name: 'subCategory', values: ['Compliance'] },
      { name: 'source', values: ['AWS'] },
    ]);
  });
});

describe('routing semantics', () => {
  // Each case: resources of account prod, then expected channels per `Category/severity` cell.
  const cases: { name: string; resources: RoutedResource[]; expect: Record<string, string[]> }[] = [
    {
      name: 'a rule reaches its channels for its categories and severities only',
      resources: [channel('a'), rule('r', { channels: ['a'], severity: [1, 2], eventCategory: ['Cloud'] })],
      expect: { 'Cloud/critical': ['a'], 'Cloud/high': ['a'], 'Cloud/medium': [], 'App/critical': [] },
    },
    {
      name: 'an empty or absent eventCategory matches every category',
      resources: [channel('a'), channel('b'), rule('r1', { channels: ['a'], severity: [1], eventCategory: [] }), rule('r2', { channels: ['b'], severity: [1] })],
      expect: { 'Cloud/critical': ['a', 'b'], 'User/critical': ['a', 'b'], 'User/high': [] },
    },
    {
      name: 'an empty or absent severity matches every severity',
      resources: [channel('a'), rule('r', { channels: ['a'], severity: [], eventCategory: ['App'] })],
      expect: { 'App/critical': ['a'], 'App/info': ['a'], 'Cloud/info': [] },
    },
    {
      name: 'a disabled rule routes nothing',
      resources: [channel('a'), rule('r', { channels: ['a'], severity: [1], enabled: false })],
      expect: { 'Cloud/critical': [] },
    },
    {
      name: 'a disabled channel receives nothing; the rule still reaches its enabled ones',
      resources: [channel('a', 'SlackChannel', false), channel('b'), rule('r', { channels: ['a', 'b'], severity: [1] })],
      expect: { 'Cloud/critical': ['b'] },
    },
    {
      name: 'a rule naming a channel the account lacks reaches nothing through it',
      resources: [rule('r', { channels: ['ghost'], severity: [1] })],
      expect: { 'Cloud/critical': [] },
    },
    {
      name: 'resource groups scope a route to part of the cell: the channel is reached, scoped',
      resources: [channel('a'), rule('r', { channels: ['a'], severity: [1], resourceGroups: ['prod-aws-eu'] })],
      expect: { 'Cloud/critical': ['a'] },
    },
    {
      name: 'the newer category/subCategory/source filters narrow like resource groups; empty ones match all',
      resources: [channel('a'), channel('b'), rule('r1', { channels: ['a'], severity: [1], category: ['Policy'] }), rule('r2', { channels: ['b'], severity: [1], subCategory: [], source: [] })],
      expect: { 'Cloud/critical': ['a', 'b'] },
    },
    {
      name: 'two channels sharing a name: the name is reached when one of them is enabled',
      resources: [channel('twin', 'Webhook', false), channel('twin', 'SlackChannel', true), rule('r', { channels: ['twin'], severity: [1] })],
      expect: { 'Cloud/critical': ['twin'] },
    },
    {
      name: 'a category the service knows and this version does not becomes a row of its own',
      resources: [channel('a'), rule('r', { channels: ['a'], severity: [1], eventCategory: ['Identity'] })],
      expect: { 'Identity/critical': ['a'], 'Cloud/critical': [] },
    },
  ];

  for (const c of cases) {
    it(c.name, () => {
      const map = mapOf(c.resources);
      for (const [cell, channels] of Object.entries(c.expect)) {
        const [category, severity] = cell.split('/');
        expect(reach(map, category, severity), cell).toEqual(channels);
      }
    });
  }

  it('keeps the scope as written on the route, and only unscoped routes count as reaching the whole cell', () => {
    const map = mapOf([channel('a'), channel('b'), rule('scoped', { channels: ['a'], severity: [1], resourceGroups: ['RG_GUID_1', 'prod-eu'], source: ['AWS'] }), rule('all', { channels: ['b'], severity: [1] })]);
    const cell = cellOf(map.accounts[0], 'Cloud', 'critical')!;
    expect(cell.channels).toEqual(['a', 'b']);
    expect(cell.unscoped).toEqual(['b']);
    expect(cell.routes.find((r) => r.rule === 'scoped')).toEqual({
      rule: 'scoped',
      channel: 'a',
      channelType: 'SlackChannel',
      resourceGroups: ['RG_GUID_1', 'prod-eu'],
      conditions: [{ name: 'source', values: ['AWS'] }],
    });
    expect(cell.routes.find((r) => r.rule === 'all')).toEqual({ rule: 'all', channel: 'b', channelType: 'SlackChannel' });
  });

  it('lists unused channels, rules whose channels are all disabled, disabled rules and unknown channels', () => {
    const map = mapOf([
      channel('used'),
      channel('idle'),
      channel('off', 'Webhook', false),
      channel('only-disabled-rule'),
      rule('live', { channels: ['used'], severity: [1] }),
      rule('muted', { channels: ['off'], severity: [1] }),
      rule('dormant', { channels: ['only-disabled-rule'], severity: [1], enabled: false }),
      rule('broken', { channels: ['ghost'], severity: [1] }),
      channel('reports-only', 'EmailUser'),
      { kind: 'ReportRule', account: 'prod', name: 'weekly', spec: { enabled: true, channels: ['reports-only'] } },
      { kind: 'ReportRule', account: 'prod', name: 'off', spec: { enabled: false, channels: ['idle'] } },
    ]);
    const acc = map.accounts[0];
    expect(acc.unusedChannels).toEqual(['idle', 'only-disabled-rule']);
    expect(acc.silentRules).toEqual(['broken', 'muted']);
    expect(acc.disabledRules).toEqual(['dormant']);
    expect(acc.unknownChannels).toEqual([{ rule: 'broken', channel: 'ghost' }]);
  });

  it('keeps accounts apart', () => {
    const map = mapOf([channel('a', 'SlackChannel', true, 'staging'), rule('r', { channels: ['a'], severity: [1] }, 'staging'), channel('a')], ['prod', 'staging']);
    expect(reach(map, 'Cloud', 'critical', 'prod')).toEqual([]);
    expect(reach(map, 'Cloud', 'critical', 'staging')).toEqual(['a']);
  });
});

describe('routing changes and requirements', () => {
  const before = mapOf([channel('pager', 'PagerDutyApi'), channel('slack'), rule('crit', { channels: ['pager', 'slack'], severity: [1], eventCategory: ['Cloud'] })]);
  const after = mapOf([channel('pager', 'PagerDutyApi'), channel('slack'), rule('crit', { channels: ['slack'], severity: [1, 2], eventCategory: ['Cloud'] })]);

  it('names the cells that gain or lose channels, and those silenced', () => {
    expect(diffRouting(before, after)).toEqual([
      { account: 'prod', eventCategory: 'Cloud', severity: 'critical', before: ['pager', 'slack'], after: ['slack'], gained: [], lost: ['pager'] },
      { account: 'prod', eventCategory: 'Cloud', severity: 'high', before: [], after: ['slack'], gained: ['slack'], lost: [] },
    ]);
    const none = mapOf([channel('pager', 'PagerDutyApi'), channel('slack')]);
    expect(silencedCells(diffRouting(before, none)).map((c) => `${c.eventCategory}/${c.severity}`)).toEqual(['Cloud/critical']);
  });

  it('names the changes behind each changed cell: the rule or channel whose route it gains or loses, deletions first, rules before channels', () => {
    const causes = new Map([
      ['rule crit', { key: 'prod/AlertRule/crit', action: 'update' as const, role: 'rule' as const, name: 'crit' }],
      ['channel slack', { key: 'prod/AlertChannel/slack', action: 'update' as const, role: 'channel' as const, name: 'slack' }],
      ['channel pager', { key: 'prod/AlertChannel/pager', action: 'delete' as const, role: 'channel' as const, name: 'pager' }],
    ]);
    const causeOf: CauseOf = (account, role, name) => (account === 'prod' ? causes.get(`${role} ${name}`) : undefined);
    const [critical, high] = diffRouting(before, after, causeOf);
    // Cloud/critical loses the route crit → pager: both the rule and the channel changed.
    expect(critical!.causes!.map((c) => `${c.action} ${c.role} ${c.name}`)).toEqual(['delete channel pager', 'update rule crit']);
    // Cloud/high gains crit → slack; a cell whose routes are the same names nothing.
    expect(high!.causes!.map((c) => `${c.action} ${c.role} ${c.name}`)).toEqual(['update rule crit', 'update channel slack']);
    expect(diffRouting(before, after, () => undefined)[0]).not.toHaveProperty('causes');
  });

  it('the channels of a map with what they receive: cells and rules', () => {
    const receipts = channelReceipts(before, (_, ch) => ch.name === 'pager');
    expect(receipts).toEqual([{ account: 'prod', name: 'pager', type: 'PagerDutyApi', enabled: true, cells: ['Cloud/critical'], rules: ['crit'] }]);
    expect(channelReceipts(mapOf([channel('idle')]), () => true)[0]).toMatchObject({ name: 'idle', cells: [], rules: [] });
  });

  it('per account: the changed rows and columns, per channel the cells gained and lost, and the diagram edges of cells that change alike', () => {
    const wide = mapOf([channel('a'), channel('b'), rule('all', { channels: ['a', 'b'], severity: [1, 2], eventCategory: ['Cloud', 'App'] })]);
    const [acc] = routingChangesByAccount(diffRouting(mapOf([channel('a'), channel('b')]), wide));
    expect(acc!.categories).toEqual(['App', 'Cloud']);
    expect(acc!.severities).toEqual(['critical', 'high']);
    expect(acc!.channels).toEqual([
      { channel: 'a', gained: ['App/critical', 'App/high', 'Cloud/critical', 'Cloud/high'], lost: [] },
      { channel: 'b', gained: ['App/critical', 'App/high', 'Cloud/critical', 'Cloud/high'], lost: [] },
    ]);
    // Four cells gain the same two channels: one node, two edges (not eight).
    expect(acc!.alike).toHaveLength(1);
    expect(acc!.edges).toBe(2);
  });

  const req = (r: Partial<RoutingRequirement>): RoutingRequirement => ({ name: 'req', accounts: '*', eventCategories: ['Cloud'], severities: ['critical'], reach: { types: ['PagerDutyApi'] }, allResources: false, ...r });

  it.each([
    ['by type, met', req({}), before, undefined],
    ['by type, broken', req({}), after, ['Cloud/critical']],
    ['by channel name', req({ reach: { channels: ['slack'] } }), after, undefined],
    ['over "*" categories and severities', req({ eventCategories: '*', severities: '*', reach: { channels: ['slack'] } }), after, 38],
    ['an account it does not name is not checked', req({ accounts: ['staging'] }), after, undefined],
  ] as const)('requirement %s', (_name, requirement, map, expected) => {
    const failure = checkRequirement(requirement, map);
    if (expected === undefined) expect(failure).toBeUndefined();
    else if (typeof expected === 'number') expect(failure!.accounts[0].cells).toHaveLength(expected);
    else expect(failure!.accounts).toEqual([{ account: 'prod', cells: expected }]);
  });

  it('a disabled channel sharing a reached name does not lend it its type', () => {
    const twins = mapOf([channel('twin', 'PagerDutyApi', false), channel('twin', 'SlackChannel'), rule('crit', { channels: ['twin'], severity: [1], eventCategory: ['Cloud'] })]);
    expect(reach(twins, 'Cloud', 'critical')).toEqual(['twin']);
    expect(checkRequirement(req({}), twins)?.accounts).toEqual([{ account: 'prod', cells: ['Cloud/critical'] }]);
  });

  it('with allResources, a route scoped by resource group does not count', () => {
    const scoped = mapOf([channel('pager', 'PagerDutyApi'), rule('crit', { channels: ['pager'], severity: [1], resourceGroups: ['prod-eu'] })]);
    expect(checkRequirement(req({}), scoped)).toBeUndefined();
    expect(checkRequirement(req({ allResources: true }), scoped)?.accounts).toEqual([{ account: 'prod', cells: ['Cloud/critical'] }]);
  });

  it('the routing of shards joins in account order, failures of one requirement together', () => {
    const cell = (account: string) => ({ account, eventCategory: 'Cloud', severity: 'critical', before: ['a'], after: [], gained: [], lost: ['a'] });
    const order = ['prod', 'staging', 'dev'];
    const byRank = (a: string, b: string) => order.indexOf(a) - order.indexOf(b);
    const merged = mergeRouting(
      [
        { accounts: ['dev'], changes: [cell('dev')], failing: [{ requirement: 'r', accounts: [{ account: 'dev', cells: ['Cloud/critical'] }] }] },
        undefined,
        { accounts: ['prod'], changes: [cell('prod')], failing: [{ requirement: 'r', accounts: [{ account: 'prod', cells: ['Cloud/critical'] }] }] },
      ],
      byRank,
    );
    expect(merged!.accounts).toEqual(['prod', 'dev']);
    expect(merged!.changes.map((c) => c.account)).toEqual(['prod', 'dev']);
    expect(merged!.failing).toEqual([{ requirement: 'r', accounts: [{ account: 'prod', cells: ['Cloud/critical'] }, { account: 'dev', cells: ['Cloud/critical'] }] }]);
    expect(mergeRouting([undefined], byRank)).toBeUndefined();
  });

  it('a route test compares the exact set', () => {
    const test = { account: 'prod', eventCategory: 'Cloud', severity: 'critical', expect: ['slack', 'pager'] };
    expect(testMismatch(test, before)).toBeUndefined();
    expect(testMismatch(test, after)).toEqual({ got: ['slack'], missing: ['pager'], extra: [] });
  });

  it('checks requirements over an account with 1,000 rules in work linear in rules × cells', () => {
    const resources: RoutedResource[] = [channel('pager', 'PagerDutyApi')];
    for (let i = 0; i < 20; i++) resources.push(channel(`ch-${i}`));
    for (let i = 0; i < 1000; i++) {
      resources.push(rule(`rule-${i}`, { channels: [`ch-${i % 20}`], severity: [(i % 5) + 1], eventCategory: [dims.categories[i % dims.categories.length]], resourceGroups: i % 3 === 0 ? [`rg-${i}`] : [] }));
    }
    const work: RoutingWork = { ruleCells: 0, requirementCells: 0 };
    const map = routeAll(routingInputs(resources, ['prod'], KINDS), dims, 'configuration', work);
    const requirements = Array.from({ length: 10 }, (_, i) => req({ name: `r${i}`, eventCategories: '*', severities: '*', reach: { channels: [`ch-${i}`] } }));
    const failures = requirements.map((r) => checkRequirement(r, map, work));
    const cells = dims.categories.length * dims.severities.length;
    // Each rule names one category and one severity: one cell each, not a pass over every cell.
    expect(work.ruleCells).toBe(1000);
    expect(work.requirementCells).toBe(requirements.length * cells);
    expect(failures.every((f) => f !== undefined)).toBe(true);
    expect(map.accounts[0].cells.reduce((n, c) => n + c.routes.length, 0)).toBe(1000);
  });
});
