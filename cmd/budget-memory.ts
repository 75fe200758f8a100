// Rate-limit buckets as the last run saw them. A plan reads with GETs; the writes apply needs go to
// buckets the plan never touches, so right after an apply drained one, the plan alone would take
// it to be full. The buckets each run saw are kept in the user's cache folder, one small file per
// service address and key id (named by a hash of the two: no credential and no address on disk
// beyond the bucket names), and a plan brings them forward with the refill rate they announced.
// Best effort: a file that cannot be read or written changes nothing but the estimate.

import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BucketBudget } from '../src/api/types.js';
import type { Io } from './io.js';

/** The folder: $POSTUREOPS_CACHE_DIR, else $XDG_CACHE_HOME/postureops, else ~/.cache/postureops; none without either. */
export function cacheDir(env: Io['env']): string | undefined {
  if (env.POSTUREOPS_CACHE_DIR) return env.POSTUREOPS_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'postureops');
  if (env.HOME) return join(env.HOME, '.cache', 'postureops');
  return undefined;
}

function fileOf(env: Io['env'], baseUrl: string, keyId: string): string | undefined {
  const dir = cacheDir(env);
  if (dir === undefined) return undefined;
  const id = createHash('sha256').update(`${baseUrl}\0${keyId}`).digest('hex').slice(0, 24);
  return join(dir, `rate-limits-${id}.json`);
}

function isBudget(b: unknown): b is BucketBudget {
  if (b === null || typeof b !== 'object') return false;
  const o = b as Record<string, unknown>;
  return typeof o.bucket === 'string' && [o.limit, o.remaining, o.resetSeconds, o.observedAt].every((n) => typeof n === 'number' && Number.isFinite(n));
}

export async function recallBudget(env: Io['env'], baseUrl: string, keyId: string): Promise<BucketBudget[]> {
  const file = fileOf(env, baseUrl, keyId);
  if (file === undefined) return [];
  try {
    const doc = JSON.parse(await readFile(file, 'utf8')) as { buckets?: unknown };
    return Array.isArray(doc.buckets) ? doc.buckets.filter(isBudget) : [];
  } catch {
    return [];
  }
}

/** Adds what this run saw to what earlier runs saw; per bucket the newer observation wins. */
export async function rememberBudget(env: Io['env'], baseUrl: string, keyId: string, seen: readonly BucketBudget[]): Promise<void> {
  const file = fileOf(env, baseUrl, keyId);
  if (file === undefined || seen.length === 0) return;
  const merged = new Map((await recallBudget(env, baseUrl, keyId)).map((b) => [b.bucket, b]));
  for (const b of seen) {
    const old = merged.get(b.bucket);
    if (!old || old.observedAt <= b.observedAt) merged.set(b.bucket, b);
  }
  const buckets = [...merged.values()].sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : 0));
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await mkdir(cacheDir(env) as string, { recursive: true, mode: 0o700 });
    await writeFile(temp, JSON.stringify({ buckets }, null, 2) + '\n', { mode: 0o600 });
    await rename(temp, file);
  } catch {
    await unlink(temp).catch(() => undefined);
  }
}
