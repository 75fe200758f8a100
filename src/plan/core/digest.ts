// Canonical JSON (sorted keys) and the digest a saved plan keeps of each live record it was computed
// from. The live spec can hold secrets: only the hash leaves this file.

import { createHash } from 'node:crypto';
import type { LiveResource } from '../../model/resource.js';

/** JSON text with object keys sorted at every level: equal values give equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return '[' + value.map((v) => canonicalJson(v === undefined ? null : v)).join(',') + ']';
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonicalJson(obj[k])).join(',') + '}';
}

/** Digest of a change without a live record (create). */
export const ABSENT_DIGEST = 'absent';

/** sha256 hex of the canonical JSON of `{id, spec}`. */
export function liveDigest(live: Pick<LiveResource, 'id' | 'spec'> | undefined): string {
  if (!live) return ABSENT_DIGEST;
  return createHash('sha256').update(canonicalJson({ id: live.id, spec: live.spec })).digest('hex');
}
