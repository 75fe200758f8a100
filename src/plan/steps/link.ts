// Step "link": a delete and a create that are one resource changing place. The same kind, name and
// spec deleted in one account and created in another is a move: both changes name each other
// (`movedFrom` / `movedTo`) and the create runs first, so there is no gap. In one account, a delete and
// a create of the same kind with equal specs look like a rename without `previousNames`: they name each
// other (`sameSpecAs`) and a warning says how to keep the id. Only unambiguous pairs are linked.

import type { Diagnostic } from '../../model/diagnostics.js';
import type { Change, UnmanagedResource } from '../../model/plan.js';
import type { LiveResource } from '../../model/resource.js';
import type { Kind } from '../../kinds/types.js';
import { diffResource } from '../core/diff.js';
import type { PlannedChange } from '../core/order.js';
import { at, kindsByName } from './shared.js';

export interface Linked {
  readonly items: readonly PlannedChange[];
  readonly diagnostics: readonly Diagnostic[];
}

export function link(items: readonly PlannedChange[], kinds: readonly Kind[]): Linked {
  const kindOf = kindsByName(kinds);
  const creates = items.filter(
    (i) =>
      i.change.action === 'create' &&
      // Stryker disable next-line ConditionalExpression: a create always carries its desired resource
      i.desired &&
      i.change.parent === undefined,
  );
  const deletes = items.filter((i) => i.change.action === 'delete' && i.live && i.change.parent === undefined);
  const same = (c: PlannedChange, d: PlannedChange): boolean => {
    const kind = kindOf.get(c.change.kind);
    if (!kind || c.change.kind !== d.change.kind) return false;
    const diff = diffResource(kind, c.desired!, d.live!);
    return diff.changed.length === 0 && !diff.replace;
  };
  const notes = new Map<string, Partial<Change>>();
  const paired = new Set<string>();
  const pairs = (isCandidate: (c: PlannedChange, d: PlannedChange) => boolean): [PlannedChange, PlannedChange][] => {
    const out: [PlannedChange, PlannedChange][] = [];
    const free = (i: PlannedChange) => !paired.has(i.change.key);
    // Stryker disable next-line MethodExpression: a create already paired finds no free create to confirm it below
    for (const c of creates.filter(free)) {
      const ds = deletes.filter((d) => free(d) && isCandidate(c, d) && same(c, d));
      if (ds.length !== 1) continue;
      const cs = creates.filter((o) => free(o) && isCandidate(o, ds[0]) && same(o, ds[0]));
      if (cs.length !== 1) continue;
      out.push([c, ds[0]]);
    }
    for (const [c, d] of out) paired.add(c.change.key).add(d.change.key);
    return out;
  };
  // Stryker disable next-line ConditionalExpression: one key is never both created and deleted, so the same name in the same account never pairs
  for (const [c, d] of pairs((c, d) => c.change.account !== d.change.account && c.change.name === d.change.name)) {
    notes.set(c.change.key, { movedFrom: d.change.key });
    notes.set(d.change.key, { movedTo: c.change.key });
  }
  const diagnostics: Diagnostic[] = [];
  for (const [c, d] of pairs((c, d) => c.change.account === d.change.account)) {
    notes.set(c.change.key, { sameSpecAs: d.change.key });
    notes.set(d.change.key, { sameSpecAs: c.change.key });
    diagnostics.push({
      severity: 'warning',
      code: 'looks-renamed',
      message: `${c.change.kind} ${c.change.name} is created and ${d.change.name} deleted in account ${c.change.account} with the same spec: a new id, and whatever refers to ${d.change.name} must follow`,
      ...at(c.desired!),
      hint: `to rename it in place (same id), add \`previousNames: [${d.change.name}]\` to the document of ${c.change.name}`,
    });
  }
  // Stryker disable next-line ConditionalExpression: a shortcut; without notes the map below copies nothing
  if (notes.size === 0) return { items, diagnostics };
  return { items: items.map((i) => (notes.has(i.change.key) ? { ...i, change: { ...i.change, ...notes.get(i.change.key) } } : i)), diagnostics };
}

/**
 * An unmanaged live resource (prune off) with the spec of a create in the same account: a rename made
 * outside the files looks like this, and the drift issue says so rather than "create". Only
 * unambiguous pairs (one create, one unmanaged resource) are linked.
 */
export function linkUnmanaged(items: readonly PlannedChange[], unmanaged: readonly UnmanagedResource[], live: readonly LiveResource[], kinds: readonly Kind[]): UnmanagedResource[] {
  const kindOf = kindsByName(kinds);
  const creates = items.filter((i) => i.change.action === 'create' && i.desired && i.change.parent === undefined && i.change.sameSpecAs === undefined && i.change.movedFrom === undefined);
  if (creates.length === 0 || unmanaged.length === 0) return [...unmanaged];
  const liveOf = new Map(live.map((r) => [JSON.stringify([r.account, r.kind, r.id]), r]));
  const same = (c: PlannedChange, r: LiveResource): boolean => {
    const kind = kindOf.get(r.kind);
    if (!kind || c.change.kind !== r.kind || c.change.account !== r.account) return false;
    const diff = diffResource(kind, c.desired!, r);
    return diff.changed.length === 0 && !diff.replace;
  };
  const matches = unmanaged.map((u) => {
    const r = liveOf.get(JSON.stringify([u.account, u.kind, u.id]));
    return r ? creates.filter((c) => same(c, r)) : [];
  });
  return unmanaged.map((u, i) => {
    const found = matches[i]!;
    if (found.length !== 1) return { ...u };
    const key = found[0]!.change.key;
    const rivals = matches.filter((m) => m.some((c) => c.change.key === key)).length;
    return rivals === 1 ? { ...u, sameSpecAs: key } : { ...u };
  });
}
