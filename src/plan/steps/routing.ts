// Step "routing": the routing map before the plan (the live state) and after it (the live state with
// the plan's changes made), the cells whose channels change, and the root file's routing
// requirements checked against the state after. A plan that leaves a requirement failing is refused
// unless --force. Only accounts whose routing kinds were read are compared: in the others the plan
// can change no route.

import type { AccountConfig } from '../../model/account.js';
import type { Change, Refusal, UnreadKinds } from '../../model/plan.js';
import type { LiveResource } from '../../model/resource.js';
import {
  askedCategories,
  type CauseOf,
  channelReceipts,
  cellOf,
  checkRequirement,
  deliveryOfMap,
  diffRouting,
  failureCells,
  failureOf,
  failureText,
  healthByName,
  type PlanRouting,
  type RequirementFailure,
  requirementsServed,
  routeAll,
  type RoutingCause,
  type RoutingCellChange,
  type RoutingMap,
  type RoutingRequirement,
  type RoutingWork,
} from '../../model/routing.js';
import type { Kind } from '../../kinds/types.js';
import { essentialRoutingKinds, routingDimensions, routingInputs, routingKinds, type RoutedResource } from '../../kinds/routing.js';
import { carriedSpec, withoutNulls } from '../core/declared.js';
import type { Decisions } from './shared.js';

export interface RoutingInput {
  readonly accounts: readonly AccountConfig[];
  /** The live state as the plan sees it (renames made). */
  readonly live: readonly LiveResource[];
  readonly decisions: Decisions;
  /** The plan's changes (after --target). */
  readonly changes: readonly Change[];
  readonly kinds: readonly Kind[];
  readonly unread?: readonly UnreadKinds[];
  readonly requirements: readonly RoutingRequirement[];
  readonly force: boolean;
  readonly work?: RoutingWork;
}

export interface RoutingStep {
  routing?: PlanRouting;
  refusal?: Refusal;
}

export function routing(input: RoutingInput): RoutingStep {
  const routed = new Set(routingKinds(input.kinds).map((k) => k.kind));
  const essential = new Set(essentialRoutingKinds(input.kinds).map((k) => k.kind));
  if (essential.size === 0) return {};
  // Stryker disable next-line ArrayDeclaration: an entry without account or kinds makes no account unread
  const unreadIn = new Map((input.unread ?? []).map((u) => [u.account, u.kinds]));
  // Stryker disable next-line ArrayDeclaration: a kind named 'Stryker was here' is no essential routing kind
  const accounts = input.accounts.map((a) => a.name).filter((a) => !(unreadIn.get(a) ?? []).some((k) => essential.has(k)));
  if (accounts.length === 0) return {};
  const inScope = new Set(accounts);
  const kindOf = new Map(input.kinds.map((k) => [k.kind, k]));

  // Stryker disable next-line MethodExpression,ConditionalExpression,LogicalOperator: routingInputs reads only the routing kinds of the accounts compared; the filter keeps the map small
  const before: LiveResource[] = input.live.filter((r) => routed.has(r.kind) && inScope.has(r.account));
  // The state after: live records by id, each change made to them.
  const after = new Map<string, RoutedResource>(before.map((r) => [idKey(r.account, r.kind, r.id), r]));
  // Accounts the plan changes a routing resource of; in the others the state after is the live state.
  const changedAccounts = new Set<string>();
  for (const c of input.changes) {
    // Stryker disable next-line ConditionalExpression,LogicalOperator: as above, routingInputs would drop what this skips
    if (!routed.has(c.kind) || !inScope.has(c.account)) continue;
    changedAccounts.add(c.account);
    const kind = kindOf.get(c.kind)!;
    const old = c.liveId !== undefined ? idKey(c.account, c.kind, c.liveId) : undefined;
    if (c.action === 'delete') {
      // Stryker disable next-line ConditionalExpression: a delete always names its live id
      if (old) after.delete(old);
      continue;
    }
    const decision = input.decisions.get(c.key);
    // Stryker disable next-line ConditionalExpression: every create, update or replace comes from a decision
    if (!decision) continue;
    const desired = decision.desired.spec;
    const live = old ? after.get(old) : undefined;
    const spec =
      // Stryker disable next-line ArrayDeclaration: every routing kind has openMembers
      c.action === 'update' && live ? carriedSpec(live.spec, desired, kind.compare?.openMembers?.(desired, live.spec) ?? []) : withoutNulls(desired, kind.compare?.openMembers?.(desired, desired) ?? []);
    // Stryker disable next-line ConditionalExpression: the set below puts the record back under the same key
    if (old) after.delete(old);
    // A channel created or changed is unknown until tested; a rule carries no health.
    const channel = kind.routing?.role === 'channel';
    after.set(old ?? `new:${c.key}`, { kind: c.kind, account: c.account, name: c.name, spec, ...(channel ? { untested: true } : {}) });
  }

  const dims = routingDimensions(input.kinds);
  // Stryker disable next-line ObjectLiteral,ArrayDeclaration: asked categories only add rows no rule routes, to both maps alike; the diff and the requirement check stay the same
  const asked = askedCategories({ requirements: [...input.requirements] });
  // Stryker disable next-line StringLiteral: the source only names the map, which is not kept
  const mapBefore = routeAll(routingInputs(before, accounts, input.kinds, true), dims, 'live', input.work, asked);
  // Only the accounts the plan changes are mapped again: another's map after is its map before, the
  // same object (diffRouting skips it).
  // Stryker disable next-line StringLiteral: as above
  const changedMaps = routeAll(routingInputs([...after.values()], [...changedAccounts], input.kinds, true), dims, 'live', input.work, asked);
  const afterOf = new Map([...mapBefore.accounts, ...changedMaps.accounts].map((a) => [a.account, a]));
  const mapAfter: RoutingMap = { ...mapBefore, accounts: accounts.map((a) => afterOf.get(a)!) };
  const causeOf = causes(input.changes, kindOf, inScope);
  const cellChanges = diffRouting(mapBefore, mapAfter, causeOf);
  const { failing, outages } = requirementsAfter(input.requirements, mapBefore, mapAfter, cellChanges, input.work);
  const delivery = deliveryOfMap(mapBefore);
  // What an apply with --test-channels tests and a requirement relies on.
  const requiredChannels = requirementsServed(input.requirements, mapAfter).filter((r) => {
    const action = causeOf(r.account, 'channel', r.name)?.action;
    return action === 'create' || action === 'update' || action === 'replace';
  });
  // Destinations a reviewer must see: channels this plan creates, and live ones no file declares.
  const newChannels = channelReceipts(mapAfter, (account, ch) => causeOf(account, 'channel', ch.name)?.action === 'create');
  const declaredLive = declaredChannels(before, input.decisions, input.kinds);
  const undeclaredChannels = channelReceipts(mapBefore, (account, ch) => !declaredLive.get(account)?.has(ch.name));
  const result: PlanRouting = {
    accounts,
    changes: cellChanges,
    ...(failing.length > 0 ? { failing } : {}),
    ...(newChannels.length > 0 ? { newChannels } : {}),
    ...(undeclaredChannels.length > 0 ? { undeclaredChannels } : {}),
    ...(delivery.length > 0 ? { delivery } : {}),
    ...(outages.length > 0 ? { outages } : {}),
    ...(requiredChannels.length > 0 ? { requiredChannels } : {}),
  };
  if (failing.length === 0 || input.force) return { routing: result };
  const reachOf = new Map(input.requirements.map((r) => [r.name, r.reach]));
  return {
    routing: result,
    refusal: {
      code: 'routing-requirement',
      message: `after this plan, ${failing.length === 1 ? 'a routing requirement fails' : `${failing.length} routing requirements fail`} (postureops.yaml \`routing.requirements\`)`,
      details: [...failing.map((f) => failureText(f, reachOf.get(f.requirement))), ...healthNotes(failing, mapAfter)],
    },
  };
}

/**
 * The requirements against the state after the plan. What the cells reach fails as before, whatever
 * the health. A `healthy: true` requirement also fails where no reached channel is healthy, but that
 * refuses the plan only in a cell whose channels the plan changes or that was fine before it: an
 * outage of a channel blocks no unrelated change, and a plan repairing the route (a cell without a
 * healthy channel before that now reaches a channel the plan creates or changes) is not refused.
 * Those cells are `outages` (shown, not refused).
 */
function requirementsAfter(
  requirements: readonly RoutingRequirement[],
  before: RoutingMap,
  after: RoutingMap,
  changes: readonly RoutingCellChange[],
  work: RoutingWork | undefined,
): { failing: RequirementFailure[]; outages: RequirementFailure[] } {
  const changed = new Set(changes.map((c) => `${c.account}\u0000${c.eventCategory}/${c.severity}`));
  const failing: RequirementFailure[] = [];
  const outages: RequirementFailure[] = [];
  for (const req of requirements) {
    const found = checkRequirement(req, after, work);
    if (!found) continue;
    if (req.healthy !== true) {
      failing.push(found);
      continue;
    }
    const reach = failureCells(checkRequirement(req, after, work, true));
    const wasFailing = failureCells(checkRequirement(req, before, work));
    const refused = new Set<string>();
    const outage = new Set<string>();
    for (const cell of failureCells(found)) {
      // A cell that had no healthy channel before and now reaches one this plan creates or changes is
      // being repaired: shown (untested until `apply --test-channels`), not refused.
      const repair = wasFailing.has(cell) && reachesUntested(after, cell);
      (reach.has(cell) || (changed.has(cell) && !repair) || !wasFailing.has(cell) ? refused : outage).add(cell);
    }
    const f = failureOf(found, refused);
    const o = failureOf(found, outage);
    if (f) failing.push(f);
    if (o) outages.push(o);
  }
  return { failing, outages };
}

/** Whether the cell (`account\u0000Category/severity`) reaches a channel the plan creates or changes, unknown until tested. */
function reachesUntested(after: RoutingMap, key: string): boolean {
  const [account, label] = key.split('\u0000');
  const acc = after.accounts.find((x) => x.account === account);
  if (!acc || label === undefined) return false;
  const slash = label.lastIndexOf('/');
  const health = healthByName(acc.channels);
  return (cellOf(acc, label.slice(0, slash), label.slice(slash + 1))?.channels ?? []).some((ch) => {
    const h = health.get(ch);
    return h?.state === 'unknown' && h.reason?.startsWith('created or changed') === true;
  });
}

/** What a refusal for want of a healthy channel adds: the channels reached that fail, and those unknown because the plan creates or changes them. */
function healthNotes(failing: readonly RequirementFailure[], after: RoutingMap): string[] {
  const failingNames = new Set<string>();
  const untested = new Set<string>();
  for (const f of failing) {
    if (!f.healthy) continue;
    for (const a of f.accounts) {
      const acc = after.accounts.find((x) => x.account === a.account);
      if (!acc) continue;
      const health = healthByName(acc.channels);
      for (const label of a.cells) {
        const slash = label.lastIndexOf('/');
        for (const ch of cellOf(acc, label.slice(0, slash), label.slice(slash + 1))?.channels ?? []) {
          const h = health.get(ch);
          if (h?.state === 'failing') failingNames.add(`${a.account}/${ch}`);
          else if (h?.state === 'unknown' && h.reason?.startsWith('created or changed')) untested.add(`${a.account}/${ch}`);
        }
      }
    }
  }
  const out: string[] = [];
  if (failingNames.size > 0) out.push(`failing channels (as the service reports them): ${[...failingNames].join(', ')}`);
  if (untested.size > 0) out.push(`unknown until tested (this plan creates or changes them): ${[...untested].join(', ')}; \`apply --test-channels\` tests them after the change, --force applies the plan anyway`);
  return out;
}

/** The plan's change to each rule and channel, by account, role and name (before and after a rename). */
function causes(changes: readonly Change[], kindOf: ReadonlyMap<string, Kind>, inScope: ReadonlySet<string>): CauseOf {
  // By account, then role, then name: looked up for every route of every changed cell, so no key is built.
  const byAccount = new Map<string, { rule: Map<string, RoutingCause>; channel: Map<string, RoutingCause> }>();
  for (const c of changes) {
    const role = kindOf.get(c.kind)?.routing?.role;
    if ((role !== 'rule' && role !== 'channel') || !inScope.has(c.account)) continue;
    const cause: RoutingCause = { key: c.key, action: c.action, role, name: c.name };
    let roles = byAccount.get(c.account);
    if (!roles) byAccount.set(c.account, (roles = { rule: new Map(), channel: new Map() }));
    const byName = roles[role];
    for (const name of [c.name, c.renamedFrom]) if (name !== undefined && !byName.has(name)) byName.set(name, cause);
  }
  return (account, role, name) => byAccount.get(account)?.[role].get(name);
}

/** By account, the names of the live channels (`before`) some file declares (a decision of the same account, kind and name). */
function declaredChannels(before: readonly LiveResource[], decisions: Decisions, kinds: readonly Kind[]): Map<string, Set<string>> {
  const channelKinds = new Set(kinds.filter((k) => k.routing?.role === 'channel').map((k) => k.kind));
  const live = new Set<string>();
  for (const r of before) if (channelKinds.has(r.kind)) live.add(idKey(r.account, r.kind, r.name));
  const out = new Map<string, Set<string>>();
  if (live.size === 0) return out;
  for (const { desired: d } of decisions.values()) {
    if (!channelKinds.has(d.kind) || !live.has(idKey(d.account, d.kind, d.name))) continue;
    const names = out.get(d.account);
    if (names) names.add(d.name);
    else out.set(d.account, new Set([d.name]));
  }
  return out;
}

const idKey = (account: string, kind: string, id: string): string => JSON.stringify([account, kind, id]);
