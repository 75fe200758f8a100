// plan(desired, live) → Plan: pure and deterministic, read as a list of named steps (as octoDNS's
// plan reads as numbered steps and Terraform builds its graph from small transformers). Each step
// lives in steps/ (or core/: order, safety), takes values and returns new ones, and is tested
// alone. The budget a plan needs is the run layer's to attach (src/ops/budget/budget.ts, withBudget):
// it depends on the client's buckets, which a pure function never sees. Nothing here switches on a kind's name: what a kind means comes through the Kind interface.
//
// Two decisions have one small home each: what a declared resource with no live twin means
// (`unmatched` in steps/decide.ts) and how a deletion is explained (`deletionReason` in
// steps/prune.ts).

import type { CallStats, PlanResult, PlanScope } from '../../model/plan.js';
import type { RoutingWork } from '../../model/routing.js';
import type { DesiredState } from '../../model/account.js';
import { KINDS } from '../../kinds/index.js';
import type { Kind } from '../../kinds/types.js';
import { orderChanges } from '../core/order.js';
import { assemble } from './assemble.js';
import { buildChanges } from './build-changes.js';
import { checkAgainstLive } from './check.js';
import { decide } from './decide.js';
import { fold } from './fold.js';
import { ignoreChanges } from './ignore.js';
import { link, linkUnmanaged } from './link.js';
import { indexLive } from './live-index.js';
import { match } from './match.js';
import { prune } from './prune.js';
import { namesForIds } from './reference-ids.js';
import { resolveReferences } from './references.js';
import { combine, refuse } from './refuse.js';
import { routing } from './routing.js';
import { rename } from './rename.js';
import { repoint } from './repoint.js';
import { selectRotations } from './rotate.js';
import { scope } from './scope.js';
import { select } from './select.js';
import { target } from './target.js';
import { type LiveState } from '../../model/live.js';
import { resourceKey } from '../../model/resource.js';

export type { PlanResult };

export interface PlanOptions {
  /** The kinds, in registry order (the order's tie-break); default: the registry `KINDS`. */
  kinds?: readonly Kind[];
  /** Only these accounts (names); all accounts of the root when absent. */
  accounts?: string[];
  /** Plan without a refusal even over a safety threshold or with resources still in use. */
  force?: boolean;
  /** `[account/]Kind/name` selectors (`*` within a part) whose write-only secrets are pushed. */
  rotate?: string[];
  /** `--target` selectors: only their changes and what those depend on (a partial plan). */
  targets?: string[];
  /** Requests made to compute the plan (`live.calls` or more). */
  apiCalls?: CallStats;
  /** `--changed-since` / `--shard`: what the caller left out of `accounts`, and why (carried into the plan). */
  scope?: PlanScope;
  /** Counts the routing step's work (tests bound it). */
  routingWork?: RoutingWork;
}

export function plan(desired: DesiredState, live: LiveState, options: PlanOptions): PlanResult {
  const kinds = options.kinds ?? KINDS;
  // 0. Documents that select live records (by tag) become the resources they select.
  const selected = select(desired.resources, live, kinds);
  // 1. What this plan covers, the renames it makes (previousNames), the live resources by name, and
  // references a file gives as ids read as the names they stand for.
  const scoped = scope({ ...desired, resources: [...selected.desired] }, live, options.accounts);
  const renamed = rename(scoped.desired, scoped.live, kinds);
  const index = indexLive(renamed.live);
  const named = namesForIds(scoped.desired, kinds, index);
  // 2. Declared resources: checked against live, matched with their live twin, decided.
  const checks = checkAgainstLive(named.desired, kinds, index, desired.root.settings);
  const matched = match(named.desired, kinds, index, renamed.renamedFrom);
  const ignored = ignoreChanges(matched.matches);
  const rotation = selectRotations(ignored.matches, options.rotate ?? []);
  const decided = decide(ignored.matches, rotation.keys);
  const repointed = repoint(decided);
  const decisions = fold(repointed, kinds);
  // 3. Live resources nobody declares.
  const pruned = prune({
    live: renamed.live,
    index,
    declared: scoped.declared,
    decisions,
    prune: desired.root.prune,
    kinds,
    accountOrder: scoped.accountOrder,
    protect: desired.root.protect,
  });
  // 4. Changes, linked (moves), ordered, narrowed to the targets, with what may refuse or slow them.
  const resolved = resolveReferences(decisions, index, pruned.deletions);
  const linked = link(buildChanges(decisions, resolved.refs, pruned.deletions), kinds);
  const ordered = orderChanges(linked.items, kinds, scoped.accountOrder);
  const unmanaged = linkUnmanaged(linked.items, pruned.unmanaged, renamed.live, kinds);
  const targeted = target(ordered.changes, unmanaged, options.targets ?? [], kinds, [...scoped.desired, ...renamed.live]);
  const refusal = refuse({
    items: linked.items.filter((i) => targeted.keys.has(i.change.key)),
    changes: targeted.changes,
    live: renamed.live,
    declared: scoped.declared,
    kinds,
    accountOrder: scoped.accountOrder,
    force: options.force ?? false,
    ...(desired.root.safety ? { safety: desired.root.safety } : {}),
    preventDestroy: new Set(
      named.desired.filter((d) => d.lifecycle?.preventDestroy === true).map((d) => resourceKey(d.account, d.kind, d.name)),
    ),
  });
  // 5. Routing before and after, and the requirements of postureops.yaml against the state after.
  const routed = routing({
    accounts: scoped.accounts,
    live: renamed.live,
    decisions,
    changes: targeted.changes,
    kinds,
    unread: live.unread,
    requirements: desired.root.routing?.requirements ?? [],
    force: options.force ?? false,
    work: options.routingWork,
  });
  return assemble({
    accounts: scoped.accounts,
    changes: targeted.changes,
    unmanaged: targeted.unmanaged,
    ...(targeted.targets ? { targets: targeted.targets } : {}),
    ...(desired.root.settings ? { settings: desired.root.settings } : {}),
    ...(options.scope ? { scope: options.scope } : {}),
    diagnostics: [
      ...(live.diagnostics ?? []),
      ...selected.diagnostics,
      ...scoped.diagnostics,
      ...renamed.diagnostics,
      ...named.diagnostics,
      ...checks,
      ...matched.diagnostics,
      ...ignored.diagnostics,
      ...rotation.diagnostics,
      ...pruned.diagnostics,
      ...resolved.diagnostics,
      ...linked.diagnostics,
      ...ordered.diagnostics,
      ...targeted.diagnostics,
    ],
    ...(combine(refusal, routed.refusal) ? { refusal: combine(refusal, routed.refusal) } : {}),
    ...(routed.routing ? { routing: routed.routing } : {}),
    apiCalls: options.apiCalls,
    budget: [],
    ...(live.unread ? { unread: live.unread.filter((u) => scoped.accounts.some((a) => a.name === u.account)) } : {}),
  });
}
