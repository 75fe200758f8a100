// The routing map, its diff and the channel receipts against a plain reference: the code as it was
// before it was made faster (each cell's routes sorted on their own, the diff's route sets by key, a
// walk of every cell per channel), on generated accounts with what makes the order subtle: names
// that repeat, disabled twins, unknown channels and severities, scoped routes, health, rule names
// shared by two rules, and causes that tie in the order. The output must be the same, byte for byte.

import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/emulator/faults.js';
import { KINDS } from '../../src/kinds/index.js';
import { routingDimensions } from '../../src/kinds/routing.js';
import { compareText } from '../../src/model/compare.js';
import {
  channelReceipts,
  diffRouting,
  groupChanges,
  routeAccount,
  routingChangesByAccount,
  type AccountRouting,
  type CauseOf,
  type ChannelHealth,
  type ChannelReceipt,
  type RoutingCause,
  type RoutingCellChange,
  type RoutingChannel,
  type RoutingDimensions,
  type RoutingInput,
  type RoutingMap,
  type RoutingRule,
  type RoutingWork,
  type Route,
  type RoutingCell,
  healthByName,
} from '../../src/model/routing.js';

// --- The reference: the earlier code, kept plain ------------------------------------------------

const sortedUnique = (items: Iterable<string>): string[] => [...new Set(items)].sort(compareText);

function referenceAccount(input: RoutingInput, dims: RoutingDimensions, work: RoutingWork, asked: readonly string[]): AccountRouting {
  const known = new Set(dims.categories);
  const extra = sortedUnique([...input.rules.flatMap((r) => r.categories), ...asked].filter((c) => !known.has(c)));
  const categories = [...dims.categories, ...extra];
  const severityName = new Map(dims.severities.map((s) => [s.code, s.name]));
  const channelsByName = new Map<string, RoutingChannel[]>();
  for (const c of input.channels) channelsByName.set(c.name, [...(channelsByName.get(c.name) ?? []), c]);
  const enabledType = (name: string): string | undefined => {
    const on = (channelsByName.get(name) ?? []).filter((c) => c.enabled);
    return on.length === 0 ? undefined : sortedUnique(on.map((c) => c.type)).join('|');
  };
  const routes = new Map<string, Route[]>();
  const used = new Set<string>();
  const silent: string[] = [];
  const disabled: string[] = [];
  const unknown: { rule: string; channel: string }[] = [];
  for (const rule of input.rules) {
    if (!rule.enabled) {
      disabled.push(rule.name);
      continue;
    }
    const targets: { channel: string; type: string }[] = [];
    for (const channel of sortedUnique(rule.channels)) {
      used.add(channel);
      if (!channelsByName.has(channel)) {
        unknown.push({ rule: rule.name, channel });
        continue;
      }
      const type = enabledType(channel);
      if (type !== undefined) targets.push({ channel, type });
    }
    if (targets.length === 0) {
      if (rule.channels.length > 0) silent.push(rule.name);
      continue;
    }
    const cats = rule.categories.length === 0 ? categories : sortedUnique(rule.categories);
    const sevs = rule.severities.length === 0 ? dims.severities.map((s) => s.name) : sortedUnique(rule.severities.map((s) => severityName.get(s) ?? String(s)));
    const scope: Pick<Route, 'resourceGroups' | 'conditions'> = {
      ...(rule.resourceGroups.length > 0 ? { resourceGroups: [...rule.resourceGroups] } : {}),
      ...(rule.conditions.length > 0 ? { conditions: rule.conditions.map((c) => ({ name: c.name, values: [...c.values] })) } : {}),
    };
    for (const cat of cats) {
      for (const sev of sevs) {
        work.ruleCells++;
        const key = `${cat}\u0000${sev}`;
        const fresh = targets.map((t) => ({ rule: rule.name, channel: t.channel, channelType: t.type, ...scope }));
        routes.set(key, [...(routes.get(key) ?? []), ...fresh]);
      }
    }
  }
  for (const c of input.consumers ?? []) if (c.enabled) for (const ch of c.channels) used.add(ch);
  const knowsHealth = input.channels.some((c) => c.health !== undefined);
  const health = knowsHealth ? healthByName(input.channels) : undefined;
  const cells: RoutingCell[] = [];
  for (const cat of categories) {
    for (const sev of dims.severities.map((s) => s.name)) {
      const list = (routes.get(`${cat}\u0000${sev}`) ?? []).sort((a, b) => compareText(a.channel, b.channel) || compareText(a.rule, b.rule));
      const cell: RoutingCell = {
        eventCategory: cat,
        severity: sev,
        channels: sortedUnique(list.map((r) => r.channel)),
        unscoped: sortedUnique(list.filter((r) => !r.resourceGroups && !r.conditions).map((r) => r.channel)),
        routes: list,
      };
      if (health) {
        const failing = cell.channels.filter((c) => health.get(c)?.state === 'failing').length;
        if (failing > 0) cell.delivery = failing === cell.channels.length ? 'silent' : 'degraded';
      }
      cells.push(cell);
    }
  }
  return {
    account: input.account,
    categories,
    severities: dims.severities.map((s) => s.name),
    cells,
    channels: [...input.channels].sort((a, b) => compareText(a.name, b.name) || compareText(a.type, b.type)),
    unusedChannels: sortedUnique(input.channels.map((c) => c.name).filter((n) => !used.has(n))),
    silentRules: sortedUnique(silent),
    disabledRules: sortedUnique(disabled),
    unknownChannels: unknown.sort((a, b) => compareText(a.rule, b.rule) || compareText(a.channel, b.channel)),
    ...(knowsHealth ? { health: true } : {}),
  };
}

const ORDER = ['delete', 'replace', 'update', 'create'];

function referenceDiff(before: RoutingMap, after: RoutingMap, causeOf: CauseOf): RoutingCellChange[] {
  const routeKey = (r: Route): string => JSON.stringify([r.rule, r.channel]);
  const out: RoutingCellChange[] = [];
  const cellsBy = (acc: AccountRouting | undefined) => new Map((acc?.cells ?? []).map((c) => [`${c.eventCategory}\u0000${c.severity}`, c]));
  for (const acc of after.accounts) {
    const prev = before.accounts.find((a) => a.account === acc.account);
    const prevCells = cellsBy(prev);
    const nowCells = cellsBy(acc);
    const push = (was: RoutingCell | undefined, now: RoutingCell | undefined) => {
      const cell = (now ?? was)!;
      const wasChannels = was?.channels ?? [];
      const nowChannels = now?.channels ?? [];
      const gained = nowChannels.filter((c) => !wasChannels.includes(c));
      const lost = wasChannels.filter((c) => !nowChannels.includes(c));
      if (gained.length === 0 && lost.length === 0) return;
      const change: RoutingCellChange = { account: acc.account, eventCategory: cell.eventCategory, severity: cell.severity, before: [...wasChannels], after: [...nowChannels], gained, lost };
      const wasRoutes = was?.routes ?? [];
      const nowRoutes = now?.routes ?? [];
      const wasKeys = new Set(wasRoutes.map(routeKey));
      const nowKeys = new Set(nowRoutes.map(routeKey));
      const moved = [...wasRoutes.filter((r) => !nowKeys.has(routeKey(r))), ...nowRoutes.filter((r) => !wasKeys.has(routeKey(r)))];
      const found = new Map<string, RoutingCause>();
      for (const r of moved) for (const c of [causeOf(acc.account, 'rule', r.rule), causeOf(acc.account, 'channel', r.channel)]) if (c) found.set(c.key, c);
      const causes = [...found.values()].sort((a, b) => ORDER.indexOf(a.action) - ORDER.indexOf(b.action) || compareText(b.role, a.role) || compareText(a.name, b.name));
      if (causes.length > 0) change.causes = causes;
      out.push(change);
    };
    for (const [key, cell] of nowCells) push(prevCells.get(key), cell);
    for (const [key, cell] of prevCells) if (!nowCells.has(key)) push(cell, undefined);
  }
  return out;
}

function referenceReceipts(map: RoutingMap, wanted: (account: string, channel: RoutingChannel) => boolean): ChannelReceipt[] {
  const out: ChannelReceipt[] = [];
  for (const acc of map.accounts) {
    const seen = new Set<string>();
    for (const ch of acc.channels) {
      if (seen.has(ch.name) || !wanted(acc.account, ch)) continue;
      seen.add(ch.name);
      const cells: string[] = [];
      const rules = new Set<string>();
      for (const cell of acc.cells) {
        const routes = cell.routes.filter((r) => r.channel === ch.name);
        if (routes.length === 0) continue;
        cells.push(`${cell.eventCategory}/${cell.severity}`);
        for (const r of routes) rules.add(r.rule);
      }
      out.push({ account: acc.account, name: ch.name, type: ch.type, enabled: ch.enabled, cells, rules: sortedUnique(rules) });
    }
  }
  return out;
}

// --- Generated accounts -------------------------------------------------------------------------

const dims = routingDimensions(KINDS);

function generator(seed: number) {
  // The same accounts on every run.
  const rnd = mulberry32(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)];
  const some = <T>(items: readonly T[], most: number): T[] => Array.from({ length: int(most + 1) }, () => pick(items));
  const channelNames = ['pager', 'slack', 'mail', 'hook', 'jira', 'Zeta', 'a-b', 'a'];
  const ruleNames = ['r1', 'r2', 'r3', 'R', 'rule', 'r10'];
  const categories = [...dims.categories, 'Custom', 'Other'];
  const health = (): ChannelHealth | undefined =>
    pick([undefined, { state: 'healthy', lastSuccess: 5 }, { state: 'failing', lastSuccess: int(3), detail: 'down' }, { state: 'unknown', reason: 'never' }] as const);
  const channel = (withHealth: boolean): RoutingChannel => {
    const h = withHealth ? health() : undefined;
    return { name: pick(channelNames), type: pick(['SlackChannel', 'PagerDutyApi', 'Webhook']), enabled: rnd() < 0.8, ...(h ? { health: h } : {}) };
  };
  const rule = (): RoutingRule => ({
    name: pick(ruleNames),
    enabled: rnd() < 0.85,
    channels: some([...channelNames, 'missing'], 3),
    severities: rnd() < 0.3 ? [] : some([1, 2, 3, 4, 5, 7], 3),
    categories: rnd() < 0.3 ? [] : some(categories, 3),
    resourceGroups: rnd() < 0.7 ? [] : some(['rg1', 'rg2'], 2),
    conditions: rnd() < 0.8 ? [] : [{ name: 'source', values: some(['AWS', 'GCP'], 2).concat('AWS') }],
  });
  const input = (account: string, withHealth: boolean): RoutingInput => ({
    account,
    channels: Array.from({ length: int(7) }, () => channel(withHealth)),
    rules: Array.from({ length: int(9) }, rule),
    ...(rnd() < 0.5 ? { consumers: [{ name: 'report', enabled: rnd() < 0.7, channels: some(channelNames, 2) }] } : {}),
  });
  /** The state after a plan: rules and channels edited, dropped and added. */
  const edited = (i: RoutingInput): RoutingInput => ({
    ...i,
    channels: [...i.channels.filter(() => rnd() < 0.8).map((c) => (rnd() < 0.2 ? { ...c, enabled: !c.enabled } : c)), ...Array.from({ length: int(3) }, () => channel(false))],
    rules: [...i.rules.filter(() => rnd() < 0.8).map((r) => (rnd() < 0.3 ? { ...r, channels: some(channelNames, 3) } : r)), ...Array.from({ length: int(3) }, rule)],
  });
  /** Causes by (account, role, name): shared by two names (a rename), some tying in the order. */
  const causes = (accounts: readonly string[]): CauseOf => {
    const table = new Map<string, RoutingCause>();
    let n = 0;
    for (const account of accounts) {
      for (const role of ['rule', 'channel'] as const) {
        for (const name of role === 'rule' ? ruleNames : [...channelNames, 'missing']) {
          if (rnd() < 0.25) continue;
          const earlier = [...table.values()].filter((c) => c.role === role);
          const cause: RoutingCause =
            rnd() < 0.15 && earlier.length > 0 ? pick(earlier) : { key: `k${n++}`, action: pick(['create', 'update', 'replace', 'delete'] as const), role, name: rnd() < 0.2 ? 'tie' : name };
          table.set(JSON.stringify([account, role, name]), cause);
        }
      }
    }
    return (account, role, name) => table.get(JSON.stringify([account, role, name]));
  };
  const asked = () => some(['Custom', 'Asked', ...dims.categories], 2);
  return { rnd, int, input, edited, causes, asked };
}

const json = (x: unknown): string => JSON.stringify(x);

describe('routing against its reference', () => {
  it('the map of an account: cells, their routes in order, channels, health, idle channels and rules, work', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const g = generator(seed);
      const input = g.input('prod', g.rnd() < 0.5);
      const asked = g.asked();
      const work: RoutingWork = { ruleCells: 0, requirementCells: 0 };
      const expected: RoutingWork = { ruleCells: 0, requirementCells: 0 };
      expect(json(routeAccount(input, dims, work, asked)), `seed ${seed}`).toBe(json(referenceAccount(input, dims, expected, asked)));
      expect(work).toEqual(expected);
    }
  });

  it('the diff of two maps with the changes behind each cell, and the receipts of their channels', () => {
    let changed = 0;
    let withCauses = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const g = generator(seed);
      const accounts = ['a', 'b', 'c'].slice(0, 1 + g.int(3));
      const beforeInputs = accounts.map((a) => g.input(a, true));
      // An account only in one of the maps is compared with an empty one.
      const afterInputs = [...beforeInputs.map(g.edited), ...(g.rnd() < 0.3 ? [g.input('new', false)] : [])].filter(() => g.rnd() < 0.9);
      const map = (inputs: RoutingInput[]): RoutingMap => ({ source: 'live', accounts: inputs.map((i) => routeAccount(i, dims)) });
      const before = map(beforeInputs);
      const after = map(afterInputs);
      const causeOf = g.causes([...accounts, 'new']);
      const got = diffRouting(before, after, causeOf);
      expect(json(got), `seed ${seed}`).toBe(json(referenceDiff(before, after, causeOf)));
      expect(json(diffRouting(before, after)), `seed ${seed}`).toBe(json(referenceDiff(before, after, () => undefined)));
      expect(json(groupChanges(got)), `seed ${seed}`).toBe(json(referenceGroups(got, true)));
      expect(json(routingChangesByAccount(got)), `seed ${seed}`).toBe(json(referenceByAccount(got)));
      changed += got.length;
      withCauses += got.filter((c) => c.causes).length;
      const wanted = (account: string, ch: RoutingChannel) => (account.length + ch.name.length + ch.type.length + (ch.enabled ? 1 : 0)) % 3 !== 0;
      expect(json(channelReceipts(after, wanted)), `seed ${seed}`).toBe(json(referenceReceipts(after, wanted)));
      expect(json(channelReceipts(before, () => true)), `seed ${seed}`).toBe(json(referenceReceipts(before, () => true)));
    }
    // The generated maps do differ, and mostly for known causes.
    expect(changed).toBeGreaterThan(500);
    expect(withCauses).toBeGreaterThan(changed / 2);
  });

  it('an account the same object in both maps has no change', () => {
    const g = generator(7);
    const acc = routeAccount(g.input('prod', true), dims);
    const other = routeAccount(g.input('prod', true), dims);
    expect(diffRouting({ source: 'live', accounts: [acc] }, { source: 'live', accounts: [acc] })).toEqual([]);
    expect(json(diffRouting({ source: 'live', accounts: [acc] }, { source: 'live', accounts: [other] }))).toBe(
      json(referenceDiff({ source: 'live', accounts: [acc] }, { source: 'live', accounts: [other] }, () => undefined)),
    );
  });
});

function referenceGroups(changes: readonly RoutingCellChange[], byCause: boolean) {
  const groups = new Map<string, { account: string; gained: string[]; lost: string[]; silenced: boolean; causes: RoutingCause[]; cells: string[] }>();
  for (const c of changes) {
    const silenced = c.before.length > 0 && c.after.length === 0;
    const causes = c.causes ?? [];
    const key = JSON.stringify([c.account, c.gained, c.lost, silenced, byCause ? causes.map((x) => x.key) : []]);
    const g = groups.get(key) ?? { account: c.account, gained: c.gained, lost: c.lost, silenced, causes: [], cells: [] };
    for (const x of causes) if (!g.causes.some((y) => y.key === x.key)) g.causes.push(x);
    g.cells.push(`${c.eventCategory}/${c.severity}`);
    groups.set(key, g);
  }
  return [...groups.values()];
}

function referenceByAccount(changes: readonly RoutingCellChange[]) {
  const byAccount = new Map<string, RoutingCellChange[]>();
  for (const c of changes) byAccount.set(c.account, [...(byAccount.get(c.account) ?? []), c]);
  return [...byAccount].map(([account, cells]) => {
    const perChannel = new Map<string, { channel: string; gained: string[]; lost: string[] }>();
    const entry = (channel: string) => perChannel.get(channel) ?? perChannel.set(channel, { channel, gained: [], lost: [] }).get(channel)!;
    for (const c of cells) {
      for (const ch of c.gained) entry(ch).gained.push(`${c.eventCategory}/${c.severity}`);
      for (const ch of c.lost) entry(ch).lost.push(`${c.eventCategory}/${c.severity}`);
    }
    const alike = referenceGroups(cells, false);
    return {
      account,
      cells,
      categories: [...new Set(cells.map((c) => c.eventCategory))],
      severities: [...new Set(cells.map((c) => c.severity))],
      channels: [...perChannel.values()].sort((a, b) => compareText(a.channel, b.channel)),
      groups: referenceGroups(cells, true),
      alike,
      edges: alike.reduce((n, g) => n + g.gained.length + g.lost.length, 0),
    };
  });
}
