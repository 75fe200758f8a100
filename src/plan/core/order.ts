// Execution order: a dependency graph from the kinds' references and parents, sorted topologically.
// Deletions are not a phase of their own (as in Terraform): they go where their dependencies put
// them, and ties are broken by account order of the root, then kind order, then name.

import type { Diagnostic } from '../../model/diagnostics.js';
import { type DesiredResource, type LiveResource, resourceKey } from '../../model/resource.js';
import type { Kind } from '../../kinds/types.js';
import type { Json } from '../../model/json.js';
import { getAt } from '../../model/json-pointer.js';
import type { Change } from '../../model/plan.js';

/** A change with the records it was computed from. */
export interface PlannedChange {
  change: Change;
  desired?: DesiredResource;
  live?: LiveResource;
}

export interface OrderResult {
  /** Changes in execution order with `dependsOn` filled (cycle members left out). */
  changes: Change[];
  diagnostics: Diagnostic[];
}

/** Names held at a reference pointer (a string or an array of strings). */
export function referencedNames(spec: Json | undefined, pointer: string): string[] {
  const value = getAt(spec, pointer);
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

/** The resource a member reference (`<resource>.<member>`) names, as a list like referencedNames. */
export function ownerNames(spec: Json | undefined, pointer: string): string[] {
  return referencedNames(spec, pointer).map((v) => (v.indexOf('.') > 0 ? v.slice(0, v.indexOf('.')) : v));
}

const isWrite = (c: Change | undefined): boolean => c !== undefined && c.action !== 'delete';
const makesNewId = (c: Change | undefined): boolean => c !== undefined && (c.action === 'create' || c.action === 'replace');
const removesOld = (c: Change | undefined): boolean => c !== undefined && (c.action === 'delete' || c.action === 'replace');

/** Edges `[before, after]` between change keys. */
export function dependencyEdges(items: readonly PlannedChange[], kinds: readonly Kind[]): [string, string][] {
  const kindByName = new Map(kinds.map((k) => [k.kind, k]));
  const byKey = new Map(items.map((i) => [i.change.key, i.change]));
  const edges: [string, string][] = [];
  // A kind's references, listed once per kind rather than once per change with a live record.
  const refsByKind = new Map<Kind, { kind: string; pointer: string; names: (spec: Json | undefined, pointer: string) => string[] }[]>();
  for (const { change, desired, live } of items) {
    const kind = kindByName.get(change.kind);
    if (!kind) continue;
    // What a write names must exist first: channels before the rules that use them.
    if (isWrite(change)) {
      // Stryker disable next-line ArrayDeclaration: a made-up ref names `<account>/undefined/undefined`, never a change key
      for (const ref of change.refs ?? []) {
        const target = resourceKey(change.account, ref.kind, ref.name);
        if (makesNewId(byKey.get(target))) edges.push([target, change.key]);
      }
    }
    // One resource changing place (a move, a rename without previousNames): the new one first, no gap.
    const linked = change.movedFrom ?? (change.action === 'create' ? change.sameSpecAs : undefined);
    // Stryker disable next-line ConditionalExpression: an undefined link names no change (byKey has no `undefined` key), so no edge either way
    if (linked !== undefined && byKey.get(linked)?.action === 'delete') edges.push([change.key, linked]);
    // Parents before their children; on deletion children go first.
    // Stryker disable next-line ConditionalExpression,LogicalOperator: without a parent kind or a parent the key has an `undefined` part and names no change: no edge either way
    if (kind.hierarchy?.parentKind && change.parent !== undefined) {
      // Stryker disable next-line OptionalChaining: inside the test above, the kind has a hierarchy
      const parentKey = resourceKey(change.account, kind.hierarchy?.parentKind, change.parent);
      const parent = byKey.get(parentKey);
      if (isWrite(change) && isWrite(parent)) edges.push([parentKey, change.key]);
      if (change.action === 'delete' && removesOld(parent)) edges.push([change.key, parentKey]);
    }
    // A change that drops a reference runs before the referenced resource goes away.
    if (live) {
      // Member references (`<resource>.<member>`) drop the resource they name in the same way.
      let refs = refsByKind.get(kind);
      // Stryker disable next-line ConditionalExpression: a cache; listing a kind's references again gives the same list
      if (refs === undefined) {
        refs = [...(kind.references ?? []).map((r) => ({ ...r, names: referencedNames })), ...(kind.memberReferences ?? []).map((r) => ({ ...r, names: ownerNames }))];
        refsByKind.set(kind, refs);
      }
      for (const ref of refs) {
        // Stryker disable next-line ArrayDeclaration: a made-up kept name matters only to a live reference of that very name
        const kept = new Set(change.action === 'delete' || !desired ? [] : ref.names(desired.spec, ref.pointer));
        for (const name of ref.names(live.spec, ref.pointer)) {
          if (kept.has(name)) continue;
          const target = resourceKey(change.account, ref.kind, name);
          if (removesOld(byKey.get(target))) edges.push([change.key, target]);
        }
      }
    }
  }
  return edges;
}

/**
 * Topological sort with a deterministic tie-break: account order, then kind order, then name.
 * A cycle yields a `dependency-cycle` error naming its members.
 */
export function orderChanges(
  items: readonly PlannedChange[],
  kinds: readonly Kind[],
  accountOrder: readonly string[],
): OrderResult {
  return sortChanges(
    items.map((i) => i.change),
    dependencyEdges(items, kinds),
    kinds,
    accountOrder,
  );
}

/**
 * The sort of `orderChanges` on given edges `[before, after]` (merging shards' plans passes the edges
 * their `dependsOn` recorded): the same order and `dependsOn` as the plan of all of them.
 */
export function sortChanges(
  changes: readonly Change[],
  edges: readonly (readonly [string, string])[],
  kinds: readonly Kind[],
  accountOrder: readonly string[],
): OrderResult {
  const n = changes.length;
  const accountIdx = new Map(accountOrder.map((a, i) => [a, i]));
  const kindIdx = new Map(kinds.map((k, i) => [k.kind, i]));
  // Account, then kind, as one number (a kind's index is at most kinds.length).
  const ranks = changes.map((c) => (accountIdx.get(c.account) ?? accountOrder.length) * (kinds.length + 1) + (kindIdx.get(c.kind) ?? kinds.length));
  const compare = (i: number, j: number): number => {
    const a = changes[i];
    const b = changes[j];
    return (
      ranks[i] - ranks[j] ||
      (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) ||
      // Stryker disable next-line EqualityOperator,ConditionalExpression: keys are unique in a plan: once `a.key < b.key` is false, `a.key > b.key` is true, so the form of this last test cannot matter
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
    );
  };
  // Sorted once, each change gets its place in that order (equal changes the same place): the heap
  // then compares two numbers whose difference has the sign `compare` gives, so it pops in the same order.
  const sorted = Array.from({ length: n }, (_, i) => i).sort(compare);
  const place = new Int32Array(n);
  for (let k = 1; k < n; k++) place[sorted[k]] = place[sorted[k - 1]] + (compare(sorted[k - 1], sorted[k]) === 0 ? 0 : 1);

  // Everything about a key lives in one slot: the index of the last change with that key (as a map by key keeps it).
  const slotOf = new Map<string, number>();
  for (let i = 0; i < n; i++) slotOf.set(changes[i].key, i);
  // Sets only where an edge is: most changes wait on nothing and nothing waits on them.
  // Stryker disable next-line ArrayDeclaration: sized or not, the arrays are read by index with a fallback for a hole
  const preds: (Set<string> | undefined)[] = new Array(n);
  // Stryker disable next-line ArrayDeclaration: as above
  const succs: (Set<string> | undefined)[] = new Array(n);
  for (const [from, to] of edges) {
    const f = slotOf.get(from);
    const t = slotOf.get(to);
    if (from === to || f === undefined || t === undefined) continue;
    (preds[t] ??= new Set()).add(from);
    (succs[f] ??= new Set()).add(to);
  }
  const waiting = new Int32Array(n);
  // Stryker disable next-line EqualityOperator: `<=` writes waiting[n], past the end of a typed array, which ignores it
  for (let i = 0; i < n; i++) waiting[i] = preds[i]?.size ?? 0;

  // The ready changes (by index), the first by `compare` always taken next (keys are unique: a total order).
  const ready = new Heap<number>((i, j) => place[i] - place[j]);
  for (let i = 0; i < n; i++) if (waiting[slotOf.get(changes[i].key)!] === 0) ready.push(i);
  const ordered: Change[] = [];
  // By slot: the place in `ordered` of the key's change; NaN while it is not there (as a missing map entry reads).
  const position = new Float64Array(n).fill(NaN);
  while (ready.size > 0) {
    const next = changes[ready.pop()!];
    const slot = slotOf.get(next.key)!;
    position[slot] = ordered.length;
    ordered.push(next);
    // Stryker disable next-line ArrayDeclaration: a made-up successor names no change (no slot): nothing waits less
    for (const s of succs[slot] ?? []) {
      const t = slotOf.get(s)!;
      waiting[t] -= 1;
      if (waiting[t] === 0) ready.push(t);
    }
  }

  const diagnostics: Diagnostic[] = [];
  if (ordered.length < n) {
    // Left-over changes that only wait on the cycle are not part of it: peel them off.
    // Stryker disable next-line MethodExpression: ordered changes would be peeled off too (all their predecessors are ordered)
    const left = new Set(changes.filter((c) => Number.isNaN(position[slotOf.get(c.key)!])).map((c) => c.key));
    let peeled = true;
    while (peeled) {
      peeled = false;
      for (const key of left) {
        const slot = slotOf.get(key)!;
        if (![...(succs[slot] ?? [])].some((s) => left.has(s)) || ![...(preds[slot] ?? [])].some((p) => left.has(p))) {
          left.delete(key);
          peeled = true;
        }
      }
    }
    const members = [...left].sort();
    diagnostics.push({
      severity: 'error',
      code: 'dependency-cycle',
      message: `changes depend on each other in a cycle: ${members.join(', ')}`,
      hint: 'break the cycle by splitting the change into two plans',
    });
  }
  const withDeps = ordered.map((c) => {
    const before = preds[slotOf.get(c.key)!];
    return { ...c, dependsOn: before ? [...before].sort((a, b) => position[slotOf.get(a)!] - position[slotOf.get(b)!]) : [] };
  });
  return { changes: withDeps, diagnostics };
}

/** A binary min-heap by `compare`. */
export class Heap<T> {
  private readonly items: T[] = [];

  constructor(private readonly compare: (a: T, b: T) => number) {}

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const up = (i - 1) >> 1;
      // Stryker disable next-line EqualityOperator: the heap's users compare by a total order (unique keys): no two items compare equal
      if (this.compare(a[i], a[up]) >= 0) break;
      // Swapped through a local, not a destructuring pair: no array per step.
      const t = a[i];
      a[i] = a[up];
      a[up] = t;
      i = up;
    }
  }

  /** The least item, removed. */
  pop(): T | undefined {
    const a = this.items;
    // Stryker disable next-line ConditionalExpression: an empty heap pops undefined either way; the guard states it
    if (a.length === 0) return undefined;
    const top = a[0];
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        // Stryker disable next-line EqualityOperator: a total order (unique keys): no two items compare equal
        if (l < a.length && this.compare(a[l], a[m]) < 0) m = l;
        // Stryker disable next-line EqualityOperator: as above
        if (r < a.length && this.compare(a[r], a[m]) < 0) m = r;
        if (m === i) break;
        const t = a[i];
        a[i] = a[m];
        a[m] = t;
        i = m;
      }
    }
    return top;
  }
}
