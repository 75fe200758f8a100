// Write-only secrets are kept in the store but never returned as written (api-facts.md).

import type { SensitiveMember } from './service-facts.js';

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** A copy of `data` as the service shows it: `empty` members → "", `omitted` ones left out, `clear` ones as written. */
export function maskData(data: Record<string, unknown>, members: readonly SensitiveMember[]): Record<string, unknown> {
  const out = clone(data);
  for (const m of members) {
    if (m.shown === 'clear') continue;
    const parts = m.path.split('.');
    let parent: unknown = out;
    for (const p of parts.slice(0, -1)) {
      parent = parent !== null && typeof parent === 'object' ? (parent as Record<string, unknown>)[p] : undefined;
    }
    if (parent === null || typeof parent !== 'object' || Array.isArray(parent)) continue;
    const obj = parent as Record<string, unknown>;
    const leaf = parts[parts.length - 1];
    if (!(leaf in obj)) continue;
    if (m.shown === 'empty') obj[leaf] = '';
    else delete obj[leaf];
  }
  return out;
}
