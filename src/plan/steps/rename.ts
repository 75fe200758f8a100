// Step "rename": a declared resource that gives `previousNames` takes over the live resource that still
// has one of those names when none has its own name. The live state is then seen as renamed already
// (the resource under its new name, with the same id; references to it and children of it by the new
// name), so the later steps plan an update of the name instead of a delete and a create, and the rules
// that route to it resolve to the same id. `renameLive` is shared with the stale check of saved plans,
// which must see the live state the same way.

import type { Diagnostic } from '../../model/diagnostics.js';
import type { Json } from '../../model/json.js';
import { getAt, setAt } from '../../model/json-pointer.js';
import type { DesiredResource, LiveResource } from '../../model/resource.js';
import type { Kind } from '../../kinds/types.js';
import { indexLive, livesAt } from './live-index.js';
import { at, kindsByName } from './shared.js';
import { resourceKey } from '../../model/resource.js';

/** One live resource to be seen under another name. */
export interface Rename {
  readonly account: string;
  readonly kind: string;
  readonly from: string;
  readonly to: string;
}

export interface Renamed {
  /** The live state with every rename made (same ids). */
  readonly live: readonly LiveResource[];
  /** The old name of each renamed resource, by its new key. */
  readonly renamedFrom: ReadonlyMap<string, string>;
  readonly diagnostics: readonly Diagnostic[];
}

export function rename(desired: readonly DesiredResource[], live: readonly LiveResource[], kinds: readonly Kind[]): Renamed {
  const kindOf = kindsByName(kinds);
  const index = indexLive(live);
  const declared = new Set(desired.map((d) => resourceKey(d.account, d.kind, d.name)));
  const claimed = new Map<string, string>();
  const renames: Rename[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const d of desired) {
    if (!d.previousNames || d.previousNames.length === 0) continue;
    const kind = kindOf.get(d.kind);
    if (!kind) continue;
    if (!kind.rename?.inPlace) {
      diagnostics.push({
        severity: 'error',
        code: 'rename-unsupported',
        message: `${d.kind} ${d.name} gives previousNames, but ${kind.rename?.refusal ?? `the service cannot rename a ${d.kind} in place`}`,
        ...at(d),
        field: '/previousNames',
      });
      continue;
    }
    // The new name is live already: nothing to rename (an old one left over is unmanaged or pruned).
    if (livesAt(index, resourceKey(d.account, d.kind, d.name)).length > 0) continue;
    const olds = d.previousNames.filter((n) => !declared.has(resourceKey(d.account, d.kind, n)));
    const candidates = olds.flatMap((n) => livesAt(index, resourceKey(d.account, d.kind, n)));
    if (candidates.length === 0) continue;
    if (candidates.length > 1) {
      diagnostics.push({
        severity: 'error',
        code: 'ambiguous-rename',
        message: `${d.kind} ${d.name} in account ${d.account}: ${candidates.length} live resources have one of its previousNames (${candidates
          .map((c) => `${c.name} ${c.id}`)
          .sort()
          .join(', ')}); which one is it?`,
        ...at(d),
        field: '/previousNames',
        hint: 'keep only the old name of the one to rename, or delete the others in the service',
      });
      continue;
    }
    const old = candidates[0];
    const oldKey = resourceKey(old.account, old.kind, old.name);
    const other = claimed.get(oldKey);
    if (other !== undefined) {
      diagnostics.push({
        severity: 'error',
        code: 'ambiguous-rename',
        message: `${d.kind} ${old.name} in account ${d.account} is a previous name of both ${other} and ${d.name}`,
        ...at(d),
        field: '/previousNames',
      });
      continue;
    }
    claimed.set(oldKey, d.name);
    renames.push({ account: d.account, kind: d.kind, from: old.name, to: d.name });
  }
  return {
    live: renameLive(live, renames, kinds),
    renamedFrom: new Map(renames.map((r) => [resourceKey(r.account, r.kind, r.to), r.from])),
    diagnostics,
  };
}

/**
 * The live state seen after `renames`: each renamed resource under its new name, every reference to
 * it (a kind's reference pointers) and every child of it (`parent`) by the new name. Ids unchanged.
 */
export function renameLive(live: readonly LiveResource[], renames: readonly Rename[], kinds: readonly Kind[]): LiveResource[] {
  // Stryker disable next-line ConditionalExpression: a shortcut; without renames every resource is kept as it is
  if (renames.length === 0) return [...live];
  const kindOf = kindsByName(kinds);
  const to = new Map(renames.map((r) => [resourceKey(r.account, r.kind, r.from), r.to]));
  const newName = (account: string, kind: string, name: string): string | undefined => to.get(resourceKey(account, kind, name));
  return live.map((r) => {
    let out = r;
    const own = newName(r.account, r.kind, r.name);
    if (own !== undefined) out = { ...out, name: own };
    const kind = kindOf.get(r.kind);
    // Stryker disable next-line ConditionalExpression,LogicalOperator: without a parent kind or a parent the key names kind or parent `undefined`, which no rename has
    if (kind?.hierarchy?.parentKind && r.parent !== undefined) {
      const parent = newName(r.account, kind.hierarchy?.parentKind, r.parent);
      if (parent !== undefined) out = { ...out, parent };
    }
    for (const ref of (kind?.references ?? []) ?? []) {
      const value = getAt(out.spec, ref.pointer);
      // Stryker disable next-line ConditionalExpression: a value that is not text is no old name
      const map = (v: Json): Json => (typeof v === 'string' ? (newName(r.account, ref.kind, v) ?? v) : v);
      // Stryker disable next-line ConditionalExpression: map returns a value that is not text as it is, so the second test is false for it
      if (typeof value === 'string' && map(value) !== value) out = { ...out, spec: setAt(out.spec, ref.pointer, map(value)) };
      else if (Array.isArray(value) && value.some((v) => map(v) !== v)) out = { ...out, spec: setAt(out.spec, ref.pointer, value.map(map)) };
    }
    return out;
  });
}
