// Rate-limit buckets as the last run saw them. A plan reads with GETs; the writes apply needs go to
// buckets the plan never touches, so right after an apply drained one, the plan alone would take
// it to be full. What a run remembers is behind BudgetMemory, so each adapter picks where (or
// whether) it keeps it: the CLI in the user's cache folder, the Action in the job's RUNNER_TEMP.
// The file memory keeps one small file per service address and key id (named by a hash of the two:
// no credential and no address on disk beyond the bucket names). Best effort: a file that cannot be
// read or written changes nothing but the estimate.
//
// The file is outside input, and it must never block a healthy run: it is read bounded, a figure the
// seed's rules could not produce (a limit of 0, a Reset beyond the one-hour window, a remaining above
// the limit, anything not a finite number) is dropped, and every figure expires an hour after it was
// seen. The seed's window is one rolling hour: an hour after an observation every request it counted
// has left the window, so the bucket is full again and the figure says nothing the documented limit
// does not.

import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MAX_RESET_SECONDS } from '../api/budget.js';
import type { BucketBudget } from '../api/types.js';

/** What earlier runs saw of the buckets, and where this run leaves what it saw. */
export interface BudgetMemory {
  /** The figures still worth anything at `now` (the run's clock): valid, and seen less than an hour ago. */
  recall(now: number): Promise<BucketBudget[]>;
  /** Adds what this run saw to what earlier runs saw; per bucket the newer observation wins. */
  remember(seen: readonly BucketBudget[], now: number): Promise<void>;
  /** Where the figures are kept (a file), for a message that tells how to clear them. */
  where?: string;
}

/** No memory: every run starts from what the service tells it. */
export const NO_BUDGET_MEMORY: BudgetMemory = {
  recall: async () => [],
  remember: async () => undefined,
};

/** A remembered figure expires this long after it was seen: the seed's one-hour rolling window. */
export const MEMORY_LIFETIME_MS = 3_600_000;
/** Clocks of two runs may differ a little; a figure seen further in the future is not believed. */
const CLOCK_SKEW_MS = 60_000;
/** The service has some dozens of functionalities (buckets); a file with far more is not ours. */
const MAX_BUCKETS = 1000;
const MAX_FILE_BYTES = 256 * 1024;
/** `GET AlertChannels`, `POST AlertChannels/search`: what bucketOf names. */
const BUCKET_NAME = /^[A-Z]{3,7} [A-Za-z/]{0,200}$/;

type Env = Record<string, string | undefined>;

/** The CLI's folder: $POSTUREOPS_CACHE_DIR, else $XDG_CACHE_HOME/postureops, else ~/.cache/postureops; none without either. */
export function cacheDir(env: Env): string | undefined {
  if (env.POSTUREOPS_CACHE_DIR) return env.POSTUREOPS_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'postureops');
  if (env.HOME) return join(env.HOME, '.cache', 'postureops');
  return undefined;
}

const count = (n: unknown, min: number, max: number): boolean => typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max;

/**
 * A figure the service's rules could produce, still worth anything at `now`: a bucket name, a limit
 * of at least 1, a remaining from 0 to the limit, a Reset within the window, seen less than an hour
 * ago (and not in the future).
 */
export function plausibleBudget(b: unknown, now: number): b is BucketBudget {
  if (b === null || typeof b !== 'object') return false;
  const o = b as Record<string, unknown>;
  if (typeof o.bucket !== 'string' || !BUCKET_NAME.test(o.bucket)) return false;
  if (!count(o.limit, 1, Number.MAX_SAFE_INTEGER) || !count(o.remaining, 0, o.limit as number)) return false;
  if (typeof o.resetSeconds !== 'number' || !(o.resetSeconds >= 0 && o.resetSeconds <= MAX_RESET_SECONDS)) return false;
  if (typeof o.observedAt !== 'number' || !Number.isFinite(o.observedAt)) return false;
  return o.observedAt <= now + CLOCK_SKEW_MS && now - o.observedAt < MEMORY_LIFETIME_MS;
}

/** The figures of a memory file's text still worth anything at `now`; none from a file that is not one. */
export function recalledBudgets(text: string, now: number): BucketBudget[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return [];
  }
  const buckets = doc !== null && typeof doc === 'object' ? (doc as { buckets?: unknown }).buckets : undefined;
  if (!Array.isArray(buckets) || buckets.length > MAX_BUCKETS) return [];
  const kept = new Map<string, BucketBudget>();
  for (const b of buckets) {
    if (!plausibleBudget(b, now)) continue;
    const { bucket, limit, remaining, resetSeconds, observedAt } = b;
    const old = kept.get(bucket);
    if (!old || old.observedAt <= observedAt) kept.set(bucket, { bucket, limit, remaining, resetSeconds, observedAt });
  }
  return [...kept.values()];
}

/** The file's text, or undefined when it is missing, not a plain file, or larger than a memory file gets. */
async function readSmall(file: string): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile() || st.size > MAX_FILE_BYTES) return undefined;
    const buffer = Buffer.alloc(MAX_FILE_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > MAX_FILE_BYTES) return undefined;
    }
    return buffer.subarray(0, length).toString('utf8');
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/** The memory in `dir` (none when undefined) of the buckets of one service address and key id. */
export function fileBudgetMemory(dir: string | undefined, baseUrl: string, keyId: string): BudgetMemory {
  if (dir === undefined) return NO_BUDGET_MEMORY;
  const id = createHash('sha256').update(`${baseUrl}\0${keyId}`).digest('hex').slice(0, 24);
  const file = join(dir, `rate-limits-${id}.json`);
  const recall = async (now: number): Promise<BucketBudget[]> => {
    const text = await readSmall(file);
    return text === undefined ? [] : recalledBudgets(text, now);
  };
  const remember = async (seen: readonly BucketBudget[], now: number): Promise<void> => {
    if (seen.length === 0) return;
    // What the file held that is no longer worth anything is dropped, and so never written back.
    const merged = new Map((await recall(now)).map((b) => [b.bucket, b]));
    for (const b of seen) {
      if (!plausibleBudget(b, now)) continue;
      const old = merged.get(b.bucket);
      if (!old || old.observedAt <= b.observedAt) merged.set(b.bucket, b);
    }
    const buckets = [...merged.values()].sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : 0)).slice(0, MAX_BUCKETS);
    const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await writeFile(temp, JSON.stringify({ buckets }, null, 2) + '\n', { mode: 0o600 });
      await rename(temp, file);
    } catch {
      await unlink(temp).catch(() => undefined);
    }
  };
  return { recall, remember, where: file };
}
