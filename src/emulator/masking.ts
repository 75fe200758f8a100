// Write-only secrets are kept in the store but never returned as written (api-facts.md).

import type { SecretField } from '../kinds/data.js';

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** A copy of `data` with every write-only member masked: `empty` → "", `omitted` → left out. */
export function maskData(data: Record<string, unknown>, secrets: readonly SecretField[]): Record<string, unknown> {
  const out = clone(data);
  for (const s of secrets) {
    if (!s.writeOnly) continue;
    const parts = s.path.split('.');
    let parent: unknown = out;
    for (const p of parts.slice(0, -1)) {
      parent = parent !== null && typeof parent === 'object' ? (parent as Record<string, unknown>)[p] : undefined;
    }
    if (parent === null || typeof parent !== 'object' || Array.isArray(parent)) continue;
    const obj = parent as Record<string, unknown>;
    const leaf = parts[parts.length - 1];
    if (!(leaf in obj)) continue;
    if ((s.masking ?? 'empty') === 'empty') obj[leaf] = '';
    else delete obj[leaf];
  }
  return out;
}
