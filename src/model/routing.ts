// Routing maps: which channels an alert of each (account, event category, severity) reaches, and
// through which rules. Pure and kind-agnostic: the kinds read their resources into the facts below
// (Kind.routing, src/kinds/routing.ts); this file only combines them. api-facts.md, "How alert rules
// route", and README.md ("Routing") give the semantics: an enabled rule sends an alert to each of its
// enabled channels when the alert matches every filter it sets; a filter left empty (or absent)
// matches every value; resource groups and the newer category/subCategory/source filters narrow a
// route to part of a cell, which the route carries as its scope.

import { compareText } from './compare.js';

/**
 * Whether a channel delivers, as the service reports it (api-facts.md: `state {ok, lastSuccessfulTime,
 * details}`): healthy (ok, and it has succeeded), failing (not ok, and it has succeeded before), or
 * unknown (it never succeeded, `lastSuccessfulTime` 0; no readable state; created or changed by a
 * plan and not tested since).
 */
export type HealthState = 'healthy' | 'failing' | 'unknown';

export interface ChannelHealth {
  state: HealthState;
  /** Epoch ms of the channel's last success; absent when it never succeeded or the service did not say. */
  lastSuccess?: number;
  /** The service's own words on a failure: untrusted text, masked and bounded where it was read; rendered inert. */
  detail?: string;
  /** Why a health is unknown, in words. */
  reason?: string;
}

/** A destination of alerts, as its kind reads it. */
export interface RoutingChannel {
  name: string;
  /** The channel's type as written (`PagerDutyApi`); '' when unknown. */
  type: string;
  enabled: boolean;
  /** Its health, in a map of the live state (absent in a map of the configuration: nothing to know). */
  health?: ChannelHealth;
}

/** A filter the rule sets beyond category and severity (the newer `category`, `subCategory`, `source`). */
export interface RoutingCondition {
  name: string;
  /** Never empty: an empty list matches every value and is not a condition. */
  values: string[];
}

/** An alert rule, as its kind reads it. Empty lists match every value. */
export interface RoutingRule {
  name: string;
  enabled: boolean;
  /** Channel names. */
  channels: string[];
  /** Severity codes (1..5); empty: every severity. */
  severities: number[];
  /** Event categories; empty: every category. */
  categories: string[];
  /** Resource groups as written (names or ids); empty: all resources. */
  resourceGroups: string[];
  conditions: RoutingCondition[];
}

/** A rule that sends something other than alerts (scheduled reports) to channels: it keeps them from being idle. */
export interface RoutingConsumer {
  name: string;
  enabled: boolean;
  channels: string[];
}

/** One account's channels and rules. */
export interface RoutingInput {
  account: string;
  channels: RoutingChannel[];
  rules: RoutingRule[];
  consumers?: RoutingConsumer[];
}

/** What a cell ranges over, from the rule kind: its event categories and severities, in display order. */
export interface RoutingDimensions {
  categories: readonly string[];
  /** Most severe first. */
  severities: readonly { code: number; name: string }[];
}

/** One way an alert of a cell reaches a channel. */
export interface Route {
  rule: string;
  channel: string;
  channelType: string;
  /** The rule's resource groups as written; absent: all resources. */
  resourceGroups?: string[];
  /** The rule's other filters; absent: none. */
  conditions?: RoutingCondition[];
}

export interface RoutingCell {
  eventCategory: string;
  /** Severity name. */
  severity: string;
  /** Every channel some route reaches, sorted. */
  channels: string[];
  /** Channels reached for every alert of the cell (a route with no resource groups and no condition), sorted. */
  unscoped: string[];
  /** Sorted by channel, then rule. */
  routes: Route[];
  /**
   * In a map that knows health: `silent` when every channel the cell reaches is failing, `degraded`
   * when some are and another (healthy, or not known to fail) remains; absent otherwise.
   */
  delivery?: Delivery;
}

/** What a cell's failing channels leave of it. */
export type Delivery = 'silent' | 'degraded';

export interface AccountRouting {
  account: string;
  /** Rows: the dimensions' categories, then any other a rule names (sorted). */
  categories: string[];
  /** Columns: severity names, most severe first. */
  severities: string[];
  /** Row by row (categories × severities). */
  cells: RoutingCell[];
  channels: RoutingChannel[];
  /** Channels no enabled rule (alert or report rule) lists, disabled ones included, sorted. */
  unusedChannels: string[];
  /** Enabled rules that list channels yet reach none (each is disabled or missing), sorted. */
  silentRules: string[];
  /** Disabled rules, sorted. */
  disabledRules: string[];
  /** A rule lists a channel the account does not have. */
  unknownChannels: { rule: string; channel: string }[];
  /** The map knows the channels' health (a map of the live state). */
  health?: boolean;
}

export interface RoutingMap {
  /** Where the facts came from: the configuration (offline) or the live state. */
  source: 'configuration' | 'live';
  accounts: AccountRouting[];
}

/** Work done, for tests that bound it (rule × cell visits; cells checked against requirements). */
export interface RoutingWork {
  ruleCells: number;
  requirementCells: number;
}

export const ROUTING_FORMAT_VERSION = 1;

const byText = compareText;
const sortedUnique = (items: Iterable<string>): string[] => [...new Set(items)].sort(byText);

/** `cat\u0000sev`: a cell's key within an account. */
export const cellKey = (category: string, severity: string): string => `${category}\u0000${severity}`;

/** The routing of one account. Linear in rules × matching cells × channels. */
export function routeAccount(input: RoutingInput, dims: RoutingDimensions, work?: RoutingWork, asked: readonly string[] = []): AccountRouting {
  const known = new Set(dims.categories);
  // Rows beyond the dimensions: categories rules name, and those a requirement or test asks about.
  const extra = sortedUnique([...input.rules.flatMap((r) => r.categories), ...asked].filter((c) => !known.has(c)));
  const categories = [...dims.categories, ...extra];
  const severities = dims.severities.map((s) => s.name);
  const grid: Grid = { categories, severities, rowOf: firstIndex(categories), columnOf: firstIndex(severities) };
  const rules = routesOfRules(input, grid, new Map(dims.severities.map((s) => [s.code, s.name])), work);
  for (const c of input.consumers ?? []) if (c.enabled) for (const ch of c.channels) rules.used.add(ch);
  const knowsHealth = input.channels.some((c) => c.health !== undefined);
  return {
    account: input.account,
    categories,
    severities,
    cells: cellsOf(grid, rules.routes, knowsHealth ? healthByName(input.channels) : undefined),
    channels: [...input.channels].sort((a, b) => byText(a.name, b.name) || byText(a.type, b.type)),
    unusedChannels: sortedUnique(input.channels.map((c) => c.name).filter((n) => !rules.used.has(n))),
    silentRules: sortedUnique(rules.silent),
    disabledRules: sortedUnique(rules.disabled),
    unknownChannels: rules.unknown.sort((a, b) => byText(a.rule, b.rule) || byText(a.channel, b.channel)),
    ...(knowsHealth ? { health: true } : {}),
  };
}

/** An account's rows and columns; a cell sits at row × columns + column (the first row and column of a name, as a key by name would). */
interface Grid {
  categories: readonly string[];
  severities: readonly string[];
  rowOf: ReadonlyMap<string, number>;
  columnOf: ReadonlyMap<string, number>;
}

/** Every route of the enabled rules with the cells of its rule, in the order of the rules; and what the rules leave idle or unknown. */
function routesOfRules(input: RoutingInput, grid: Grid, severityName: ReadonlyMap<number, string>, work: RoutingWork | undefined) {
  // Names repeat in the service: a name is reached when any channel of that name is enabled.
  const channelsByName = new Map<string, RoutingChannel[]>();
  for (const c of input.channels) {
    const same = channelsByName.get(c.name);
    if (same) same.push(c);
    else channelsByName.set(c.name, [c]);
  }
  // Worked out once per name: rules list the same channels over and over.
  const typeByName = new Map<string, string | undefined>();
  const enabledType = (name: string): string | undefined => {
    if (typeByName.has(name)) return typeByName.get(name);
    const on = (channelsByName.get(name) ?? []).filter((c) => c.enabled);
    const type = on.length === 0 ? undefined : sortedUnique(on.map((c) => c.type)).join('|');
    typeByName.set(name, type);
    return type;
  };
  const routes: { route: Route; cells: number[] }[] = [];
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
    // Unsorted: the routes are sorted once in cellsOf, and no other list depends on this order.
    for (const channel of unique(rule.channels)) {
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
    const cells = cellsOfRule(rule, grid, severityName, work);
    const scope: Pick<Route, 'resourceGroups' | 'conditions'> = {
      ...(rule.resourceGroups.length > 0 ? { resourceGroups: [...rule.resourceGroups] } : {}),
      ...(rule.conditions.length > 0 ? { conditions: rule.conditions.map((c) => ({ name: c.name, values: [...c.values] })) } : {}),
    };
    // A rule's route to a channel is the same in every cell it matches: one object, in each cell's list (nothing writes to a route).
    for (const t of targets) routes.push({ route: { rule: rule.name, channel: t.channel, channelType: t.type, ...scope }, cells });
  }
  return { routes, used, silent, disabled, unknown };
}

/** The positions of the cells a rule matches (a severity code the dimensions do not name has no column: no cell shows it). */
function cellsOfRule(rule: RoutingRule, grid: Grid, severityName: ReadonlyMap<number, string>, work: RoutingWork | undefined): number[] {
  const cats = rule.categories.length === 0 ? grid.categories : unique(rule.categories);
  const sevs = rule.severities.length === 0 ? grid.severities : unique(rule.severities.map((s) => severityName.get(s) ?? String(s)));
  const out: number[] = [];
  for (const cat of cats) {
    const row = grid.rowOf.get(cat);
    for (const sev of sevs) {
      if (work) work.ruleCells++;
      const column = grid.columnOf.get(sev);
      if (row !== undefined && column !== undefined) out.push(row * grid.severities.length + column);
    }
  }
  return out;
}

/** The cells, row by row, from the routes and the cells each is in. */
function cellsOf(grid: Grid, routes: { route: Route; cells: number[] }[], health: ReadonlyMap<string, ChannelHealth> | undefined): RoutingCell[] {
  // Sorted once (stable: rules in order where channel and rule tie) and dealt to the cells in that
  // order, each cell's list comes out in its order: by channel, then rule.
  routes.sort((a, b) => byRoute(a.route, b.route));
  const cellRoutes: Route[][] = grid.categories.flatMap(() => grid.severities.map(() => []));
  for (const { route, cells } of routes) for (const at of cells) cellRoutes[at].push(route);
  const out: RoutingCell[] = [];
  for (const cat of grid.categories) {
    const row = grid.rowOf.get(cat)!;
    for (const sev of grid.severities) {
      const list = cellRoutes[row * grid.severities.length + grid.columnOf.get(sev)!];
      // The list is sorted by channel: each name's routes are adjacent, so its channels come out sorted and unique.
      const channels: string[] = [];
      const unscoped: string[] = [];
      for (const r of list) {
        if (channels[channels.length - 1] !== r.channel) channels.push(r.channel);
        if (!r.resourceGroups && !r.conditions && unscoped[unscoped.length - 1] !== r.channel) unscoped.push(r.channel);
      }
      const cell: RoutingCell = { eventCategory: cat, severity: sev, channels, unscoped, routes: list };
      const delivery = health ? deliveryOf(channels, health) : undefined;
      if (delivery) cell.delivery = delivery;
      out.push(cell);
    }
  }
  return out;
}

/** A cell's order of routes: by channel, then rule. */
const byRoute = (a: Route, b: Route): number => byText(a.channel, b.channel) || byText(a.rule, b.rule);

/** The items without repeats, in their order (no sort; linear however long a rule's lists are). */
function unique<T>(items: readonly T[]): readonly T[] {
  return items.length < 2 ? items : [...new Set(items)];
}

/** Each item's first position. */
function firstIndex(items: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  items.forEach((x, i) => {
    if (!out.has(x)) out.set(x, i);
  });
  return out;
}

/**
 * The health of each channel name over its enabled channels (the service lets names repeat; a
 * disabled twin receives nothing): healthy when one of them is, failing when all of them fail
 * (the latest success, the first detail), unknown otherwise. Names with no enabled channel are absent.
 */
export function healthByName(channels: readonly RoutingChannel[]): Map<string, ChannelHealth> {
  const byName = new Map<string, ChannelHealth[]>();
  for (const c of channels) {
    if (!c.enabled) continue;
    const h = c.health ?? { state: 'unknown', reason: 'no state reported' };
    const same = byName.get(c.name);
    if (same) same.push(h);
    else byName.set(c.name, [h]);
  }
  const out = new Map<string, ChannelHealth>();
  for (const [name, list] of byName) {
    const healthy = list.find((h) => h.state === 'healthy');
    if (healthy) out.set(name, healthy);
    else if (list.every((h) => h.state === 'failing')) {
      const last = Math.max(...list.map((h) => h.lastSuccess ?? 0));
      const detail = list.find((h) => h.detail !== undefined)?.detail;
      out.set(name, { state: 'failing', ...(last > 0 ? { lastSuccess: last } : {}), ...(detail !== undefined ? { detail } : {}) });
    } else out.set(name, list.find((h) => h.state === 'unknown')!);
  }
  return out;
}

function deliveryOf(channels: readonly string[], health: ReadonlyMap<string, ChannelHealth>): Delivery | undefined {
  const failing = channels.filter((c) => health.get(c)?.state === 'failing').length;
  if (failing === 0) return undefined;
  return failing === channels.length ? 'silent' : 'degraded';
}

/** One account's delivery as a reviewer reads it: the failing channels and the cells they silence or degrade. */
export interface AccountDelivery {
  account: string;
  /** Failing channel names, sorted, with their health. */
  failing: { name: string; type: string; health: ChannelHealth }[];
  /** `Category/severity` of the cells every channel of which fails. */
  silent: string[];
  /** `Category/severity` of the cells some channel of which fails while another remains. */
  degraded: string[];
}

/** The accounts of a map that knows health and has a failing channel; [] otherwise. */
export function deliveryOfMap(map: RoutingMap): AccountDelivery[] {
  const out: AccountDelivery[] = [];
  for (const acc of map.accounts) {
    if (!acc.health) continue;
    const health = healthByName(acc.channels);
    const failing = [...health].filter(([, h]) => h.state === 'failing').map(([name, h]) => ({ name, type: typeOfName(acc, name), health: h })).sort((a, b) => byText(a.name, b.name));
    if (failing.length === 0) continue;
    const cells = (d: Delivery) => acc.cells.filter((c) => c.delivery === d).map((c) => `${c.eventCategory}/${c.severity}`);
    out.push({ account: acc.account, failing, silent: cells('silent'), degraded: cells('degraded') });
  }
  return out;
}

function typeOfName(acc: AccountRouting, name: string): string {
  return sortedUnique(acc.channels.filter((c) => c.name === name && c.enabled).map((c) => c.type)).join('|');
}

/** `failing since its last success at 2026-11-20 14:00 UTC: <detail>` — a channel's health in words (the detail as given: callers make it inert). */
export function healthWords(h: ChannelHealth): string {
  if (h.state === 'healthy') return h.lastSuccess !== undefined ? `healthy (last success ${timeWords(h.lastSuccess)})` : 'healthy';
  if (h.state === 'unknown') return `health unknown${h.reason ? ` (${h.reason})` : ''}`;
  const since = h.lastSuccess !== undefined ? ` since its last success at ${timeWords(h.lastSuccess)}` : '';
  return `failing${since}${h.detail ? `: ${h.detail}` : ''}`;
}

/** `2026-11-20 14:00 UTC`. */
export function timeWords(ms: number): string {
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** `asked`: event categories to show as rows even when no rule names them (a requirement's, a test's). */
export function routeAll(inputs: readonly RoutingInput[], dims: RoutingDimensions, source: RoutingMap['source'], work?: RoutingWork, asked: readonly string[] = []): RoutingMap {
  return { source, accounts: inputs.map((i) => routeAccount(i, dims, work, asked)) };
}

/** The event categories requirements and tests name. */
export function askedCategories(settings: Partial<RoutingSettings> | undefined): string[] {
  return [...(settings?.requirements ?? []).flatMap((r) => (r.eventCategories === '*' ? [] : r.eventCategories)), ...(settings?.tests ?? []).map((t) => t.eventCategory)];
}

/** The cell of an account, or undefined when the account has no such row or column. */
export function cellOf(account: AccountRouting, category: string, severity: string): RoutingCell | undefined {
  const row = account.categories.indexOf(category);
  const col = account.severities.indexOf(severity);
  if (row < 0 || col < 0) return undefined;
  return account.cells[row * account.severities.length + col];
}

/** Cells that reach no channel. */
export function unreachedCells(account: AccountRouting): RoutingCell[] {
  return account.cells.filter((c) => c.channels.length === 0);
}

/** `resource groups a, b; category X` — a route's scope in words; '' for all resources and no condition. */
export function scopeWords(route: Pick<Route, 'resourceGroups' | 'conditions'>): string {
  const parts: string[] = [];
  if (route.resourceGroups) parts.push(`resource groups ${route.resourceGroups.join(', ')}`);
  for (const c of route.conditions ?? []) parts.push(`${c.name} ${c.values.join(', ')}`);
  return parts.join('; ');
}

// --- Routing in a plan -------------------------------------------------------------------------

/** What a plan does to a rule or a channel; the same words as a change's action. */
export type RoutingAction = 'create' | 'update' | 'replace' | 'delete';
export const ROUTING_ACTIONS: readonly RoutingAction[] = ['delete', 'replace', 'update', 'create'];

/** A change of the plan that adds or removes a route of a cell: `via deleted rule compliance-to-jira`. */
export interface RoutingCause {
  /** The change's key in the plan. */
  key: string;
  action: RoutingAction;
  role: 'rule' | 'channel';
  name: string;
}

/** A cell whose channels differ between before and after a plan. */
export interface RoutingCellChange {
  account: string;
  eventCategory: string;
  severity: string;
  before: string[];
  after: string[];
  gained: string[];
  lost: string[];
  /** The plan's changes behind the routes the cell gains or loses (deletions first); absent when none is known. */
  causes?: RoutingCause[];
}

/** A channel and the cells that reach it (`Category/severity`) through which rules. */
export interface ChannelReceipt {
  account: string;
  name: string;
  type: string;
  enabled: boolean;
  cells: string[];
  rules: string[];
}

/** What a plan does to routing: the cells that change, in account, category and severity order. */
export interface PlanRouting {
  /** Accounts compared (planned, with channels and rules read). */
  accounts: string[];
  changes: RoutingCellChange[];
  /** Requirements the state after the plan fails (the refusal names them too). */
  failing?: RequirementFailure[];
  /** Channels the plan creates, with what they will receive. */
  newChannels?: ChannelReceipt[];
  /** Live channels no file declares (in a drift check: destinations only the console has), with what they receive now. */
  undeclaredChannels?: ChannelReceipt[];
  /** Per account with a failing channel, as the service reports it now: the channels and the cells they silence or degrade. */
  delivery?: AccountDelivery[];
  /**
   * `healthy: true` requirements that fail for lack of a healthy channel in cells this plan does not
   * change and that were failing before it (an outage, not this plan's doing): shown, not refused.
   */
  outages?: RequirementFailure[];
  /** Channels the plan creates or changes that a requirement relies on (a covered cell reaches it and it is what the requirement asks for): a failed test of one fails the apply. */
  requiredChannels?: RequiredChannel[];
}

export interface RequiredChannel {
  account: string;
  name: string;
  requirements: string[];
}

/** Per channel name of each account, the requirements it serves in `map`: a covered cell reaches it and it is of a type or name the requirement asks for. */
export function requirementsServed(reqs: readonly RoutingRequirement[], map: RoutingMap): RequiredChannel[] {
  const found = new Map<string, RequiredChannel>();
  for (const req of reqs) {
    const types = new Set(req.reach.types ?? []);
    const names = new Set(req.reach.channels ?? []);
    for (const acc of map.accounts) {
      if (req.accounts !== '*' && !req.accounts.includes(acc.account)) continue;
      const typeOf = new Map<string, string[]>();
      for (const c of acc.channels) if (c.enabled) typeOf.set(c.name, [...(typeOf.get(c.name) ?? []), c.type]);
      const cats = req.eventCategories === '*' ? acc.categories : req.eventCategories;
      const sevs = req.severities === '*' ? acc.severities : req.severities;
      for (const cat of cats) {
        for (const sev of sevs) {
          const cell = cellOf(acc, cat, sev);
          for (const ch of cell ? (req.allResources ? cell.unscoped : cell.channels) : []) {
            if (!names.has(ch) && !(typeOf.get(ch) ?? []).some((t) => types.has(t))) continue;
            const key = JSON.stringify([acc.account, ch]);
            const entry = found.get(key) ?? { account: acc.account, name: ch, requirements: [] };
            if (!entry.requirements.includes(req.name)) entry.requirements.push(req.name);
            found.set(key, entry);
          }
        }
      }
    }
  }
  return [...found.values()];
}

/** Finds the plan's change to a rule or channel of an account (by its name before or after the plan). */
export type CauseOf = (account: string, role: RoutingCause['role'], name: string) => RoutingCause | undefined;

/** Cells that differ; accounts only in one of the maps are compared with an empty map. With `causeOf`, each names the changes behind it. */
export function diffRouting(before: RoutingMap, after: RoutingMap, causeOf?: CauseOf): RoutingCellChange[] {
  const out: RoutingCellChange[] = [];
  const beforeBy = new Map(before.accounts.map((a) => [a.account, a]));
  for (const acc of after.accounts) {
    const prev = beforeBy.get(acc.account);
    // An account the plan cannot have changed is the same object in both maps: no cell differs.
    if (prev === acc) continue;
    const account = acc.account;
    // The changes a route is owed to, asked once per route: a rule's route sits in every cell it matches.
    const ofRoute = new Map<Route, RoutingCause[]>();
    const causesOfRoute = (r: Route): RoutingCause[] => {
      let found = ofRoute.get(r);
      if (!found) ofRoute.set(r, (found = [causeOf!(account, 'rule', r.rule), causeOf!(account, 'channel', r.channel)].filter((c) => c !== undefined)));
      return found;
    };
    const caused: { change: RoutingCellChange; causes: RoutingCause[] }[] = [];
    const push = (was: RoutingCell | undefined, now: RoutingCell | undefined): void => {
      const cell = (now ?? was)!;
      const wasChannels = was?.channels ?? [];
      const nowChannels = now?.channels ?? [];
      if (sameTexts(wasChannels, nowChannels)) return;
      const gained = nowChannels.filter((c) => !wasChannels.includes(c));
      const lost = wasChannels.filter((c) => !nowChannels.includes(c));
      if (gained.length === 0 && lost.length === 0) return;
      const change: RoutingCellChange = { account, eventCategory: cell.eventCategory, severity: cell.severity, before: [...wasChannels], after: [...nowChannels], gained, lost };
      if (causeOf) caused.push({ change, causes: causesOf(was?.routes ?? [], now?.routes ?? [], causesOfRoute) });
      out.push(change);
    };
    const prevCells = new Map((prev?.cells ?? []).map((c) => [cellKey(c.eventCategory, c.severity), c]));
    const seen = new Set<string>();
    for (const cell of acc.cells) {
      const key = cellKey(cell.eventCategory, cell.severity);
      seen.add(key);
      push(prevCells.get(key), cell);
    }
    for (const cell of prev?.cells ?? []) {
      if (!seen.has(cellKey(cell.eventCategory, cell.severity))) push(cell, undefined);
    }
    // Deletions first, then rules before channels, then by name: ranked once for the account's cells
    // (equal ones share a rank, so a cell keeps them in the order it found them).
    const rank = rankBy(caused.flatMap((c) => c.causes), byCause);
    for (const { change, causes } of caused) if (causes.length > 0) change.causes = causes.sort((a, b) => rank.get(a)! - rank.get(b)!);
  }
  return out;
}

/**
 * The changes behind the routes one side has and the other lacks (a route names its rule and its
 * channel), in the order found. Both lists are sorted by channel, then rule (a cell's order), so one
 * walk over both finds the routes of a key only one side has.
 */
function causesOf(was: readonly Route[], now: readonly Route[], causesOfRoute: (r: Route) => readonly RoutingCause[]): RoutingCause[] {
  const wasOnly: Route[] = [];
  const nowOnly: Route[] = [];
  let i = 0;
  let j = 0;
  while (i < was.length || j < now.length) {
    const order = i === was.length ? 1 : j === now.length ? -1 : byRoute(was[i], now[j]);
    if (order < 0) wasOnly.push(was[i++]);
    else if (order > 0) nowOnly.push(now[j++]);
    else {
      // A key both sides have: every route of it on either side stays.
      const key = was[i];
      while (i < was.length && byRoute(was[i], key) === 0) i++;
      while (j < now.length && byRoute(now[j], key) === 0) j++;
    }
  }
  const found = new Map<string, RoutingCause>();
  for (const r of [...wasOnly, ...nowOnly]) for (const c of causesOfRoute(r)) found.set(c.key, c);
  return [...found.values()];
}

const byCause = (a: RoutingCause, b: RoutingCause): number => ACTION_RANK[a.action] - ACTION_RANK[b.action] || byText(b.role, a.role) || byText(a.name, b.name);

/** Each item's place in the order of `compare`, items it finds equal sharing one. */
function rankBy<T>(items: readonly T[], compare: (a: T, b: T) => number): Map<T, number> {
  const sorted = [...new Set(items)].sort(compare);
  const rank = new Map<T, number>();
  sorted.forEach((x, i) => rank.set(x, i > 0 && compare(sorted[i - 1], x) === 0 ? rank.get(sorted[i - 1])! : i));
  return rank;
}

const ACTION_RANK = Object.fromEntries(ROUTING_ACTIONS.map((a, i) => [a, i])) as Readonly<Record<RoutingAction, number>>;

/** Whether two lists hold the same texts in the same order. */
function sameTexts(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The named channels of a map with the cells and rules that reach them. */
export function channelReceipts(map: RoutingMap, wanted: (account: string, channel: RoutingChannel) => boolean): ChannelReceipt[] {
  const out: ChannelReceipt[] = [];
  for (const acc of map.accounts) {
    // The first wanted channel of each name; then one walk over the cells for all of them.
    const picked = new Map<string, { channel: RoutingChannel; cells: string[]; rules: Set<string>; last?: RoutingCell }>();
    for (const ch of acc.channels) if (!picked.has(ch.name) && wanted(acc.account, ch)) picked.set(ch.name, { channel: ch, cells: [], rules: new Set() });
    if (picked.size === 0) continue;
    for (const cell of acc.cells) {
      for (const r of cell.routes) {
        const p = picked.get(r.channel);
        if (!p) continue;
        if (p.last !== cell) p.cells.push(`${cell.eventCategory}/${cell.severity}`);
        p.last = cell;
        p.rules.add(r.rule);
      }
    }
    for (const { channel: ch, cells, rules } of picked.values()) out.push({ account: acc.account, name: ch.name, type: ch.type, enabled: ch.enabled, cells, rules: sortedUnique(rules) });
  }
  return out;
}

/** The routing of the shards of one plan (each compared its own accounts), in account order. */
export function mergeRouting(parts: readonly (PlanRouting | undefined)[], byAccount: (a: string, b: string) => number): PlanRouting | undefined {
  const given = parts.filter((p): p is PlanRouting => p !== undefined);
  if (given.length === 0) return undefined;
  const accounts = [...new Set(given.flatMap((p) => p.accounts))].sort(byAccount);
  const position = new Map(accounts.map((a, i) => [a, i]));
  const byPosition = (a: { account: string }, b: { account: string }) => (position.get(a.account) ?? 0) - (position.get(b.account) ?? 0);
  const changes = given.flatMap((p) => p.changes).sort(byPosition);
  const failing = new Map<string, RequirementFailure>();
  for (const f of given.flatMap((p) => p.failing ?? [])) {
    const known = failing.get(f.requirement);
    failing.set(f.requirement, known ? { ...known, accounts: [...known.accounts, ...f.accounts].sort((a, b) => byAccount(a.account, b.account)) } : { ...f, accounts: [...f.accounts] });
  }
  const newChannels = given.flatMap((p) => p.newChannels ?? []).sort(byPosition);
  const undeclaredChannels = given.flatMap((p) => p.undeclaredChannels ?? []).sort(byPosition);
  const delivery = given.flatMap((p) => p.delivery ?? []).sort(byPosition);
  const outages = new Map<string, RequirementFailure>();
  for (const f of given.flatMap((p) => p.outages ?? [])) {
    const known = outages.get(f.requirement);
    outages.set(f.requirement, known ? { ...known, accounts: [...known.accounts, ...f.accounts].sort((a, b) => byAccount(a.account, b.account)) } : { ...f, accounts: [...f.accounts] });
  }
  return {
    accounts,
    changes,
    ...(failing.size > 0 ? { failing: [...failing.values()] } : {}),
    ...(newChannels.length > 0 ? { newChannels } : {}),
    ...(undeclaredChannels.length > 0 ? { undeclaredChannels } : {}),
    ...(delivery.length > 0 ? { delivery } : {}),
    ...(outages.size > 0 ? { outages: [...outages.values()] } : {}),
    ...(given.some((p) => p.requiredChannels) ? { requiredChannels: given.flatMap((p) => p.requiredChannels ?? []) } : {}),
  };
}

/** Changed cells grouped by account and by what they gain and lose (for lists people read), in first-seen order. */
export function groupChanges(changes: readonly RoutingCellChange[], byCause = true): ChangeGroup[] {
  const groups = new Map<string, { group: ChangeGroup; causeKeys: Set<string> }>();
  for (const c of changes) {
    const silenced = c.before.length > 0 && c.after.length === 0;
    const causes = c.causes ?? [];
    const key = JSON.stringify([c.account, c.gained, c.lost, silenced, byCause ? causes.map((x) => x.key) : []]);
    let entry = groups.get(key);
    if (!entry) groups.set(key, (entry = { group: { account: c.account, gained: c.gained, lost: c.lost, silenced, causes: [], cells: [] }, causeKeys: new Set() }));
    for (const x of causes) {
      if (entry.causeKeys.has(x.key)) continue;
      entry.causeKeys.add(x.key);
      entry.group.causes.push(x);
    }
    entry.group.cells.push(`${c.eventCategory}/${c.severity}`);
  }
  return [...groups.values()].map((e) => e.group);
}

/** Cells of one account that change alike: the same channels gained and lost, for the same changes. */
export interface ChangeGroup {
  account: string;
  gained: string[];
  lost: string[];
  /** The cells reached a channel and reach none after. */
  silenced: boolean;
  causes: RoutingCause[];
  /** `Category/severity`. */
  cells: string[];
}

/** One account's changed cells, as a reviewer reads them: the matrix, per channel, and grouped. */
export interface AccountRoutingChanges {
  account: string;
  cells: RoutingCellChange[];
  /** The rows and columns with a changed cell, in the order of the map. */
  categories: string[];
  severities: string[];
  /** Per channel the cells it gains and loses (`Category/severity`), sorted by channel. */
  channels: { channel: string; gained: string[]; lost: string[] }[];
  /** Cells that change alike for the same changes. */
  groups: ChangeGroup[];
  /** Cells that change alike whatever the cause: a diagram's nodes. */
  alike: ChangeGroup[];
  /** Edges of a diagram drawing each `alike` group once (group → each channel gained or lost). */
  edges: number;
}

/** The changes of a plan per account, in the plan's account order. */
export function routingChangesByAccount(changes: readonly RoutingCellChange[]): AccountRoutingChanges[] {
  const byAccount = new Map<string, RoutingCellChange[]>();
  for (const c of changes) {
    const same = byAccount.get(c.account);
    if (same) same.push(c);
    else byAccount.set(c.account, [c]);
  }
  return [...byAccount].map(([account, cells]) => {
    const perChannel = new Map<string, { channel: string; gained: string[]; lost: string[] }>();
    const entry = (channel: string) => perChannel.get(channel) ?? perChannel.set(channel, { channel, gained: [], lost: [] }).get(channel)!;
    for (const c of cells) {
      for (const ch of c.gained) entry(ch).gained.push(`${c.eventCategory}/${c.severity}`);
      for (const ch of c.lost) entry(ch).lost.push(`${c.eventCategory}/${c.severity}`);
    }
    const alike = groupChanges(cells, false);
    return {
      account,
      cells,
      categories: [...new Set(cells.map((c) => c.eventCategory))],
      severities: [...new Set(cells.map((c) => c.severity))],
      channels: [...perChannel.values()].sort((a, b) => byText(a.channel, b.channel)),
      groups: groupChanges(cells),
      alike,
      edges: alike.reduce((n, g) => n + g.gained.length + g.lost.length, 0),
    };
  });
}

/** Cells that reached a channel before and reach none after. */
export const silencedCells = (changes: readonly RoutingCellChange[]): RoutingCellChange[] => changes.filter((c) => c.before.length > 0 && c.after.length === 0);

// --- Requirements and route tests --------------------------------------------------------------

export interface RoutingRequirement {
  name: string;
  /** Account names, or every account. */
  accounts: string[] | '*';
  eventCategories: string[] | '*';
  /** Severity names, or every severity. */
  severities: string[] | '*';
  /** At least one channel of these types, or of these names, must be reached. */
  reach: { types?: string[]; channels?: string[] };
  /** Only routes that apply to all resources and set no other filter count. */
  allResources: boolean;
  /** Only channels the service reports healthy count (checked where health is known: plan, not validate). */
  healthy?: boolean;
  /** The requirement's place in postureops.yaml. */
  source?: { file: string; line: number; column: number };
}

/** `routes test` as a file gives it: the exact channels one cell must reach. */
export interface RoutingTest {
  name?: string;
  account: string;
  eventCategory: string;
  severity: string;
  expect: string[];
  source?: { file: string; line: number; column: number };
}

export interface RoutingSettings {
  requirements: RoutingRequirement[];
  tests: RoutingTest[];
}

export interface RequirementFailure {
  requirement: string;
  source?: RoutingRequirement['source'];
  /** Per failing account, its failing cells as `Category/severity`. */
  accounts: { account: string; cells: string[] }[];
  /** The requirement asks for a healthy channel (its failure may be one of delivery). */
  healthy?: true;
}

/**
 * Failures of one requirement over the given accounts' maps (accounts it names that are not in `map`
 * are not checked). A `healthy` requirement counts only healthy channels in an account whose map
 * knows health, unless `ignoreHealth` (what the cells reach, whatever their health).
 */
export function checkRequirement(req: RoutingRequirement, map: RoutingMap, work?: RoutingWork, ignoreHealth = false): RequirementFailure | undefined {
  const types = req.reach.types ? new Set(req.reach.types) : undefined;
  const names = req.reach.channels ? new Set(req.reach.channels) : undefined;
  const failing: RequirementFailure['accounts'] = [];
  for (const acc of map.accounts) {
    if (req.accounts !== '*' && !req.accounts.includes(acc.account)) continue;
    const health = req.healthy === true && !ignoreHealth && acc.health ? healthByName(acc.channels) : undefined;
    // Types of the enabled channels by name (a disabled twin of a reached name receives nothing).
    const typeOf = new Map<string, string[]>();
    for (const c of acc.channels) if (c.enabled) typeOf.set(c.name, [...(typeOf.get(c.name) ?? []), c.type]);
    const cats = req.eventCategories === '*' ? acc.categories : req.eventCategories;
    const sevs = req.severities === '*' ? acc.severities : req.severities;
    const cells: string[] = [];
    for (const cat of cats) {
      for (const sev of sevs) {
        if (work) work.requirementCells++;
        const cell = cellOf(acc, cat, sev);
        const reached = (cell ? (req.allResources ? cell.unscoped : cell.channels) : []).filter((ch) => !health || health.get(ch)?.state === 'healthy');
        const ok = reached.some((ch) => (names !== undefined && names.has(ch)) || (types !== undefined && (typeOf.get(ch) ?? []).some((t) => types.has(t))));
        if (!ok) cells.push(`${cat}/${sev}`);
      }
    }
    if (cells.length > 0) failing.push({ account: acc.account, cells });
  }
  return failing.length === 0 ? undefined : { requirement: req.name, ...(req.source ? { source: req.source } : {}), accounts: failing, ...(req.healthy === true ? { healthy: true as const } : {}) };
}

export function checkRequirements(reqs: readonly RoutingRequirement[], map: RoutingMap, work?: RoutingWork): RequirementFailure[] {
  return reqs.flatMap((r) => checkRequirement(r, map, work) ?? []);
}

/** What a requirement asks, in words: `a PagerDutyApi or VictorOps channel` (`a healthy ...` with healthy). */
export function reachWords(reach: RoutingRequirement['reach'], healthy = false): string {
  const parts: string[] = [];
  const h = healthy ? 'healthy ' : '';
  if (reach.types && reach.types.length > 0) parts.push(`a ${h}${reach.types.join(' or ')} channel`);
  if (reach.channels && reach.channels.length > 0) parts.push(`${h}channel ${reach.channels.join(' or ')}`);
  return parts.join(' or ');
}

/** `requirement "x" fails in prod: Cloud/critical, App/critical; staging: ...`. */
export function failureText(f: RequirementFailure, reach?: RoutingRequirement['reach']): string {
  const where = f.accounts.map((a) => `${a.account}: ${a.cells.join(', ')}`).join('; ');
  const n = f.accounts.reduce((s, a) => s + a.cells.length, 0);
  return `routing requirement "${f.requirement}" fails in ${n} cell${n === 1 ? '' : 's'}${reach ? ` (none reaches ${reachWords(reach, f.healthy === true)})` : ''}: ${where}`;
}

/** The cells of `f` as `account\u0000Category/severity` keys. */
export function failureCells(f: RequirementFailure | undefined): Set<string> {
  return new Set((f?.accounts ?? []).flatMap((a) => a.cells.map((c) => `${a.account}\u0000${c}`)));
}

/** A failure of `requirement` in exactly these `account\u0000Category/severity` cells (in the order of `order`); undefined for none. */
export function failureOf(template: RequirementFailure, cells: ReadonlySet<string>): RequirementFailure | undefined {
  const accounts = template.accounts.map((a) => ({ account: a.account, cells: a.cells.filter((c) => cells.has(`${a.account}\u0000${c}`)) })).filter((a) => a.cells.length > 0);
  return accounts.length === 0 ? undefined : { ...template, accounts };
}

/** The channels a test's cell reaches against what it expects; undefined when they agree. */
export function testMismatch(test: RoutingTest, map: RoutingMap): { got: string[]; missing: string[]; extra: string[]; problem?: string } | undefined {
  const acc = map.accounts.find((a) => a.account === test.account);
  if (!acc) return { got: [], missing: [...test.expect], extra: [], problem: `account ${test.account} is not in the map` };
  const cell = cellOf(acc, test.eventCategory, test.severity);
  const got = cell?.channels ?? [];
  const missing = sortedUnique(test.expect.filter((c) => !got.includes(c)));
  const extra = got.filter((c) => !test.expect.includes(c));
  return missing.length === 0 && extra.length === 0 ? undefined : { got, missing, extra };
}
