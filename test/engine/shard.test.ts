import { describe, expect, it } from 'vitest';
import { assignShards, parseShard, type WeightedAccount } from '../../src/plan/core/shard.js';

/** A fixed pseudo-random sequence (no Math.random: the same accounts every run). */
function accounts(n: number, seed = 7): WeightedAccount[] {
  let x = seed;
  const next = (): number => (x = (x * 1103515245 + 12345) % 2 ** 31);
  return Array.from({ length: n }, (_, i) => ({ name: `a-${String(i).padStart(3, '0')}`, weight: next() % 40 }));
}

const weightOf = (list: readonly WeightedAccount[], names: readonly string[]): number =>
  names.reduce((t, n) => t + list.find((a) => a.name === n)!.weight, 0);

describe('assignShards', () => {
  it.each([1, 2, 3, 4, 7])('%i shards of 200 accounts are disjoint and complete, each in the given order', (count) => {
    const list = accounts(200);
    const shards = assignShards(list, count);
    expect(shards).toHaveLength(count);
    const all = shards.flat();
    expect(all).toHaveLength(200);
    expect(new Set(all).size).toBe(200);
    const order = list.map((a) => a.name);
    for (const s of shards) expect([...s].sort((a, b) => order.indexOf(a) - order.indexOf(b))).toEqual(s);
  });

  it('is deterministic: the same accounts in another order give the same shards (as sets)', () => {
    const list = accounts(120);
    const a = assignShards(list, 4).map((s) => [...s].sort());
    const b = assignShards([...list].reverse(), 4).map((s) => [...s].sort());
    expect(b).toEqual(a);
  });

  it('is balanced: no shard outweighs another by more than the heaviest account', () => {
    for (const seed of [1, 2, 3]) {
      const list = accounts(150, seed);
      const weights = assignShards(list, 4).map((s) => weightOf(list, s));
      const heaviest = Math.max(...list.map((a) => a.weight));
      expect(Math.max(...weights) - Math.min(...weights)).toBeLessThanOrEqual(heaviest);
    }
  });

  it('follows the rule: heaviest first to the lightest shard; equal weights spread by count, then index', () => {
    const list = [
      { name: 'b', weight: 5 },
      { name: 'a', weight: 5 },
      { name: 'c', weight: 3 },
      { name: 'd', weight: 2 },
      { name: 'e', weight: 0 },
      { name: 'f', weight: 0 },
    ];
    // a (5, then name) → 1; b → 2; c: 5 = 5 and 1 = 1 account → 1 (8); d → 2 (7); e, f → 2 (7 < 8).
    // Each shard lists its accounts in the order given (b before a).
    expect(assignShards(list, 2)).toEqual([['a', 'c'], ['b', 'd', 'e', 'f']]);
    expect(assignShards([{ name: 'x', weight: 0 }, { name: 'y', weight: 0 }, { name: 'z', weight: 0 }], 2)).toEqual([['x', 'z'], ['y']]);
  });

  it('more shards than accounts leaves some empty', () => {
    expect(assignShards([{ name: 'only', weight: 3 }], 3)).toEqual([['only'], [], []]);
  });
});

describe('parseShard', () => {
  it('reads I/N and refuses anything else with what it expects', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    expect(parseShard(' 1 / 1 ')).toEqual({ index: 1, count: 1 });
    for (const bad of ['0/4', '5/4', '2', 'a/b', '-1/2', '1/0', '']) expect(parseShard(bad)).toMatch(/expected I\/N with 1 ≤ I ≤ N/);
  });
});
