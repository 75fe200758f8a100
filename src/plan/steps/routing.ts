// Step "routing": the routing map before the plan (the live state) and after it (the live state with
// the plan's changes made), the cells whose channels change, and the root file's routing
// requirements checked against the state after. A plan that leaves a requirement failing is refused
// unless --force. Only accounts whose routing kinds were read are compared: in the others the plan
// can change no route.

import type { AccountConfig } from '../../model/account.js';
import type { Change, Refusal, UnreadKinds } from '../../model/plan.js';
import type { LiveResource } from '../../model/resource.js';
import { askedCategories, type CauseOf, channelReceipts, checkRequirements, diffRouting, failureText, routeAll, type PlanRouting, type RoutingCause, type RoutingRequirement, type RoutingWork } from '../../model/routing.js';
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
  for (const c of input.changes) {
    // Stryker disable next-line ConditionalExpression,LogicalOperator: as above, routingInputs would drop what this skips
    if (!routed.has(c.kind) || !inScope.has(c.account)) continue;
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
    after.set(old ?? `new:${c.key}`, { kind: c.kind, account: c.account, name: c.name, spec });
  }

  const dims = routingDimensions(input.kinds);
  // Stryker disable next-line ObjectLiteral,ArrayDeclaration: asked categories only add rows no rule routes, to both maps alike; the diff and the requirement check stay the same
  const asked = askedCategories({ requirements: [...input.requirements] });
  // Stryker disable next-line StringLiteral: the source only names the map, which is not kept
  const mapBefore = routeAll(routingInputs(before, accounts, input.kinds), dims, 'live', input.work, asked);
  // Stryker disable next-line StringLiteral: as above
  const mapAfter = routeAll(routingInputs([...after.values()], accounts, input.kinds), dims, 'live', input.work, asked);
  const failing = checkRequirements(input.requirements, mapAfter, input.work);
  const causeOf = causes(input.changes, kindOf, inScope);
  // Destinations a reviewer must see: channels this plan creates, and live ones no file declares.
  const declared = new Set([...input.decisions.values()].map((d) => idKey(d.desired.account, d.desired.kind, d.desired.name)));
  const channelKinds = new Set(input.kinds.filter((k) => k.routing?.role === 'channel').map((k) => k.kind));
  const newChannels = channelReceipts(mapAfter, (account, ch) => causeOf(account, 'channel', ch.name)?.action === 'create');
  const undeclaredChannels = channelReceipts(mapBefore, (account, ch) => !before.some((r) => r.account === account && r.name === ch.name && channelKinds.has(r.kind) && declared.has(idKey(account, r.kind, r.name))));
  const result: PlanRouting = {
    accounts,
    changes: diffRouting(mapBefore, mapAfter, causeOf),
    ...(failing.length > 0 ? { failing } : {}),
    ...(newChannels.length > 0 ? { newChannels } : {}),
    ...(undeclaredChannels.length > 0 ? { undeclaredChannels } : {}),
  };
  if (failing.length === 0 || input.force) return { routing: result };
  const reachOf = new Map(input.requirements.map((r) => [r.name, r.reach]));
  return {
    routing: result,
    refusal: {
      code: 'routing-requirement',
      message: `after this plan, ${failing.length === 1 ? 'a routing requirement fails' : `${failing.length} routing requirements fail`} (postureops.yaml \`routing.requirements\`)`,
      details: failing.map((f) => failureText(f, reachOf.get(f.requirement))),
    },
  };
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

const idKey = (account: string, kind: string, id: string): string => JSON.stringify([account, kind, id]);
