// sortChanges against the sort it replaced (a heap of changes compared field by field, a map and a
// set per key): the same order, the same dependsOn, the same cycle, on generated plans with unknown
// accounts and kinds, edges to nowhere, self edges, cycles, and changes sharing a key.
import { describe, expect, it } from 'vitest';
import { Heap, sortChanges } from '../../src/plan/core/order.js';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import type { Change } from '../../src/model/plan.js';
import type { Kind } from '../../src/kinds/types.js';

/** The sort before it took the changes by index: kept here as the definition the fast one must meet. */
function reference(changes: readonly Change[], edges: readonly (readonly [string, string])[], kinds: readonly Kind[], accountOrder: readonly string[]) {
  const accountIdx = new Map(accountOrder.map((a, i) => [a, i]));
  const kindIdx = new Map(kinds.map((k, i) => [k.kind, i]));
  const ranks = new Map(changes.map((c) => [c, (accountIdx.get(c.account) ?? accountOrder.length) * (kinds.length + 1) + (kindIdx.get(c.kind) ?? kinds.length)]));
  const compare = (a: Change, b: Change): number =>
    ranks.get(a)! - ranks.get(b)! || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  const preds = new Map<string, Set<string>>(changes.map((c) => [c.key, new Set()]));
  const succs = new Map<string, Set<string>>(changes.map((c) => [c.key, new Set()]));
  for (const [from, to] of edges) {
    if (from === to || !preds.has(from) || !preds.has(to)) continue;
    preds.get(to)!.add(from);
    succs.get(from)!.add(to);
  }
  const waiting = new Map(changes.map((c) => [c.key, preds.get(c.key)!.size]));
  const byKey = new Map(changes.map((c) => [c.key, c]));
  const ready = new Heap<Change>(compare);
  for (const c of changes) if (waiting.get(c.key) === 0) ready.push(c);
  const ordered: Change[] = [];
  const position = new Map<string, number>();
  while (ready.size > 0) {
    const next = ready.pop()!;
    position.set(next.key, ordered.length);
    ordered.push(next);
    for (const s of succs.get(next.key)!) {
      const left = waiting.get(s)! - 1;
      waiting.set(s, left);
      if (left === 0) ready.push(byKey.get(s)!);
    }
  }
  const diagnostics: Diagnostic[] = [];
  if (ordered.length < changes.length) {
    const left = new Set(changes.filter((c) => !position.has(c.key)).map((c) => c.key));
    let peeled = true;
    while (peeled) {
      peeled = false;
      for (const key of left) {
        if (![...succs.get(key)!].some((s) => left.has(s)) || ![...preds.get(key)!].some((p) => left.has(p))) {
          left.delete(key);
          peeled = true;
        }
      }
    }
    const members = [...left].sort();
    diagnostics.push({ severity: 'error', code: 'dependency-cycle', message: `changes depend on each other in a cycle: ${members.join(', ')}`, hint: 'break the cycle by splitting the change into two plans' });
  }
  const withDeps = ordered.map((c) => ({ ...c, dependsOn: [...preds.get(c.key)!].sort((a, b) => position.get(a)! - position.get(b)!) }));
  return { changes: withDeps, diagnostics };
}

/** A small deterministic generator (no clock, no Math.random). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const KIND_LIST = ['Channel', 'Rule', 'Profile'].map((kind) => ({ kind }) as Kind);

describe('sortChanges', () => {
  it('orders 3,000 generated plans as the sort it replaced: order, dependsOn and cycles alike', () => {
    const r = rng(30);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
    let cycles = 0;
    let shared = 0;
    let waited = 0;
    for (let n = 0; n < 3000; n++) {
      const count = Math.floor(r() * 14);
      const changes: Change[] = Array.from({ length: count }, (_, i) => {
        // Unknown accounts and kinds sort last; few names, so that some changes share a key.
        const account = pick(['prod', 'dev', 'qa', 'zz']);
        const kind = pick(['Channel', 'Rule', 'Profile', 'Other']);
        const name = pick(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
        return { key: `${account}/${kind}/${name}`, action: pick(['create', 'update', 'delete'] as const), kind, account, name, liveId: `id${i}`, dependsOn: [] } as unknown as Change;
      });
      const keys = [...changes.map((c) => c.key), 'prod/Channel/nowhere'];
      const edges = Array.from({ length: Math.floor(r() * count * 1.5) }, (): [string, string] => [pick(keys), pick(keys)]);
      const accountOrder = r() < 0.5 ? ['prod', 'dev', 'qa'] : ['qa', 'prod'];
      const got = sortChanges(changes, edges, KIND_LIST, accountOrder);
      expect(got, JSON.stringify({ changes, edges, accountOrder })).toEqual(reference(changes, edges, KIND_LIST, accountOrder));
      if (got.diagnostics.length > 0) cycles++;
      if (new Set(changes.map((c) => c.key)).size < changes.length) shared++;
      if (got.changes.some((c) => c.dependsOn.length > 0)) waited++;
    }
    // The generator reaches every case it is there for.
    expect(cycles).toBeGreaterThan(100);
    expect(shared).toBeGreaterThan(100);
    expect(waited).toBeGreaterThan(1000);
  });
});
