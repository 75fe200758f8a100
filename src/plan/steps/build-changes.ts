// Step "build changes": the plan's Change values, writes in the order of the desired state, then
// deletions in the order of the live state (ordering comes next). Everything a change holds is
// masked here: the views from diff.ts never carry a secret value, only env markers.

import type { Change, ValueNames } from '../../model/plan.js';
import { because, type ChangeReasonCode } from '../../model/reasons.js';
import type { LiveResource } from '../../model/resource.js';
import type { Kind } from '../../kinds/types.js';
import { liveDigest } from '../core/digest.js';
import { desiredView, liveView, type ResourceDiff } from '../core/diff.js';
import { type PlannedChange } from '../core/order.js';
import type { Decision, Decisions, Deletion, Ref } from './shared.js';
import { resourceKey } from '../../model/resource.js';

export function buildChanges(decisions: Decisions, refs: ReadonlyMap<string, readonly Ref[]>, deletions: readonly Deletion[]): PlannedChange[] {
  const children = new Map<string, Decision[]>();
  for (const d of decisions.values()) {
    // Stryker disable next-line ConditionalExpression: children are looked up by a parent's key, never by undefined
    if (d.foldedInto === undefined) continue;
    const list = children.get(d.foldedInto);
    if (list) list.push(d);
    else children.set(d.foldedInto, [d]);
  }
  const out: PlannedChange[] = [];
  for (const d of decisions.values()) {
    if (d.action !== undefined && d.foldedInto === undefined) out.push({ change: writeChange(d, children.get(d.key) ?? NO_CHILDREN, refs), desired: d.desired, live: d.live });
  }
  for (const x of deletions) out.push({ change: deleteChange(x.live, x.kind, x.reason, x.reasonCode), live: x.live });
  return out;
}

const NO_CHILDREN: readonly Decision[] = Object.freeze([]);

export function writeChange(decision: Decision, children: readonly Decision[], refs: ReadonlyMap<string, readonly Ref[]>): Change {
  const { desired: d, kind, live, diff } = decision;
  const action = decision.action!;
  const view: Pick<ResourceDiff, 'after' | 'writeOnly' | 'sensitive' | 'unreturned'> & { before?: ResourceDiff['before'] } =
    action === 'create' || !diff ? desiredView(kind, d) : diff;
  // Folded children travel in this change's request: their references are this change's too.
  const allRefs = children.length === 0 ? (refs.get(decision.key) ?? []) : [decision, ...children].flatMap((part) => refs.get(part.key) ?? []);
  const carried = children.length > 0 ? children.map((c) => ({ name: c.desired.name, after: desiredView(c.kind, c.desired).after })) : undefined;
  // Members assigned in the order a literal with conditional spreads would give them (the plan's
  // JSON and text follow it), without a temporary object per optional member: one change per resource.
  const change: Change = { key: resourceKey(d.account, d.kind, d.name), action, kind: d.kind, account: d.account, name: d.name } as Change;
  if (d.parent !== undefined) change.parent = d.parent;
  if (live) change.liveId = live.id;
  if (view.before) change.before = view.before;
  change.after = view.after;
  if (diff && action !== 'create') {
    change.diff = diff.diff;
    change.changed = diff.changed;
  }
  change.writeOnly = view.writeOnly;
  change.sensitive = view.sensitive;
  const { valueNames } = valueNamesOf(kind);
  if (valueNames !== undefined) change.valueNames = valueNames;
  if (view.unreturned && view.unreturned.length > 0) change.unreturned = view.unreturned;
  if (decision.rotate) change.rotate = true;
  if (carried) change.children = carried;
  if (allRefs.length > 0) change.refs = [...allRefs];
  change.dependsOn = [];
  if (decision.renamedFrom !== undefined) change.renamedFrom = decision.renamedFrom;
  if (kind.credentials?.issuedNote !== undefined && (action === 'create' || action === 'replace')) change.issued = kind.credentials?.issuedNote;
  if (diff && action === 'update' && diff.withheld.length > 0) change.withheld = diff.withheld;
  if (decision.reasonCode !== undefined) Object.assign(change, because(decision.reasonCode, decision.reason ?? ''));
  if (d.source) change.source = d.source;
  change.liveDigest = liveDigest(action === 'create' ? undefined : live);
  // Stryker disable next-line OptionalChaining: an update or a replace always has its live twin (decide.ts)
  if (action !== 'create' && live?.lastChange) change.lastChange = { ...live.lastChange };
  return change;
}

export function deleteChange(live: LiveResource, kind: Kind, reason: string, code: ChangeReasonCode): Change {
  const view = liveView(kind, live);
  return {
    key: resourceKey(live.account, live.kind, live.name),
    action: 'delete',
    kind: live.kind,
    account: live.account,
    name: live.name,
    ...(live.parent !== undefined ? { parent: live.parent } : {}),
    liveId: live.id,
    before: view.before,
    writeOnly: view.writeOnly,
    sensitive: view.sensitive,
    ...valueNamesOf(kind),
    dependsOn: [],
    ...because(code, reason),
    liveDigest: liveDigest(live),
    ...(live.lastChange ? { lastChange: { ...live.lastChange } } : {}),
  };
}

/** Per kind: its names for coded values are the kind's alone, so each kind is asked once per run, not once per change. */
const VALUE_NAMES = new WeakMap<Kind, Pick<Change, 'valueNames'>>();

/** The kind's names for coded values, for the renderings (none: no member). */
function valueNamesOf(kind: Kind): Pick<Change, 'valueNames'> {
  let known = VALUE_NAMES.get(kind);
  if (!known) {
    const names = kind.compare?.valueNames?.() ?? [];
    // Shared by every change of the kind: frozen, so a consumer that wrote into it would fail loudly.
    known = names.length > 0 ? { valueNames: Object.freeze(names.map((v) => Object.freeze({ pointer: v.pointer, names: Object.freeze({ ...v.names }) }))) as ValueNames[] } : {};
    VALUE_NAMES.set(kind, known);
  }
  return known;
}
