// Rate-limit buckets as the last run saw them. A plan reads with GETs; the writes apply needs go to
// buckets the plan never touches, so right after an apply drained one, the plan alone would take
// it to be full. What a run remembers is behind BudgetMemory, so each adapter picks where (or
// whether) it keeps it: the CLI in the user's cache folder, the Action in the job's RUNNER_TEMP.
// The file memory keeps one small file per service address and key id (named by a hash of the two:
// no credential and no address on disk beyond the bucket names). Best effort: a file that cannot be
// read or written changes nothing but the estimate.

import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BucketBudget } from '../api/types.js';

/** What earlier runs saw of the buckets, and where this run leaves what it saw. */
export interface BudgetMemory {
  recall(): Promise<BucketBudget[]>;
  /** Adds what this run saw to what earlier runs saw; per bucket the newer observation wins. */
  remember(seen: readonly BucketBudget[]): Promise<void>;
}

/** No memory: every run starts from what the service tells it. */
export const NO_BUDGET_MEMORY: BudgetMemory = {
  recall: async () => [],
  remember: async () => undefined,
};

type Env = Record<string, string | undefined>;

/** The CLI's folder: $POSTUREOPS_CACHE_DIR, else $XDG_CACHE_HOME/postureops, else ~/.cache/postureops; none without either. */
export function cacheDir(env: Env): string | undefined {
  if (env.POSTUREOPS_CACHE_DIR) return env.POSTUREOPS_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'postureops');
  if (env.HOME) return join(env.HOME, '.cache', 'postureops');
  return undefined;
}

function isBudget(b: unknown): b is BucketBudget {
  if (b === null || typeof b !== 'object') return false;
  const o = b as Record<string, unknown>;
  return typeof o.bucket === 'string' && [o.limit, o.remaining, o.resetSeconds, o.observedAt].every((n) => typeof n === 'number' && Number.isFinite(n));
}

/** The memory in `dir` (none when undefined) of the buckets of one service address and key id. */
export function fileBudgetMemory(dir: string | undefined, baseUrl: string, keyId: string): BudgetMemory {
  if (dir === undefined) return NO_BUDGET_MEMORY;
  const id = createHash('sha256').update(`${baseUrl}\0${keyId}`).digest('hex').slice(0, 24);
  const file = join(dir, `rate-limits-${id}.json`);
  const recall = async (): Promise<BucketBudget[]> => {
    try {
      const doc = JSON.parse(await readFile(file, 'utf8')) as { buckets?: unknown };
      return Array.isArray(doc.buckets) ? doc.buckets.filter(isBudget) : [];
    } catch {
      return [];
    }
  };
  const remember = async (seen: readonly BucketBudget[]): Promise<void> => {
    if (seen.length === 0) return;
    const merged = new Map((await recall()).map((b) => [b.bucket, b]));
    for (const b of seen) {
      const old = merged.get(b.bucket);
      if (!old || old.observedAt <= b.observedAt) merged.set(b.bucket, b);
    }
    const buckets = [...merged.values()].sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : 0));
    const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await writeFile(temp, JSON.stringify({ buckets }, null, 2) + '\n', { mode: 0o600 });
      await rename(temp, file);
    } catch {
      await unlink(temp).catch(() => undefined);
    }
  };
  return { recall, remember };
}
