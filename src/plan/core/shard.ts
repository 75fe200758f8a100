// Sharding: a deterministic, balanced share of the accounts for one of N runs (`--shard I/N`), each
// with its own service user and rate-limit buckets. Balanced by weight (desired resources per
// account) with the longest-processing-time rule: heaviest account first, each to the lightest shard.

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

export interface WeightedAccount {
  name: string;
  /** Desired resources of the account, children included (what a plan of it reads and compares). */
  weight: number;
}

/** `2/4` → {index: 2, count: 4}; a message saying what is expected otherwise. */
export function parseShard(text: string): Shard | string {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const expected = 'expected I/N with 1 ≤ I ≤ N, e.g. 2/4';
  if (!m) return `${JSON.stringify(text)}: ${expected}`;
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index < 1 || index > count || !Number.isSafeInteger(count)) return `${JSON.stringify(text)}: ${expected}`;
  return { index, count };
}

/**
 * The accounts of each of `count` shards (index 0 is shard 1), each list in the order the accounts
 * were given. Sorted by weight descending, then name; each account goes to the shard with the least
 * weight so far (ties: fewer accounts, then the lower index). Every account is in exactly one shard,
 * and no shard's weight exceeds another's by more than the heaviest single account.
 */
export function assignShards(accounts: readonly WeightedAccount[], count: number): string[][] {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`shard count must be a positive integer, got ${count}`);
  const totals = Array.from({ length: count }, () => ({ weight: 0, accounts: 0 }));
  const shardOf = new Map<string, number>();
  const sorted = [...accounts].sort((a, b) => b.weight - a.weight || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const account of sorted) {
    let best = 0;
    for (let i = 1; i < count; i++) {
      const t = totals[i];
      const b = totals[best];
      if (t.weight < b.weight || (t.weight === b.weight && t.accounts < b.accounts)) best = i;
    }
    totals[best].weight += account.weight;
    totals[best].accounts += 1;
    shardOf.set(account.name, best);
  }
  const shards: string[][] = Array.from({ length: count }, () => []);
  for (const account of accounts) shards[shardOf.get(account.name)!].push(account.name);
  return shards;
}
