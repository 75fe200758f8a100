// The registry of resource kinds: the kind folders, imported one by one in registry.generated.ts
// (`npm run generate` writes it from the folders on disk), in the order each Kind declares.
// A test lists src/kinds on disk and fails when the generated file and the folders disagree.

import { REGISTERED } from './registry.generated.js';
import type { Kind } from './types.js';

export const KINDS: readonly Kind[] = [...REGISTERED].sort((a, b) => a.order - b.order || (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0));

/** Document `kind:` values, in registry order. */
export const DOCUMENT_KINDS: readonly string[] = KINDS.flatMap((k) => (k.documentKind === null ? [] : [k.documentKind]));

export function kindOf(name: string): Kind {
  const kind = KINDS.find((k) => k.kind === name);
  if (!kind) throw new Error(`unknown resource kind "${name}"; known kinds: ${KINDS.map((k) => k.kind).join(', ')}`);
  return kind;
}

export function kindForDocument(documentKind: string): Kind | undefined {
  return KINDS.find((k) => k.documentKind === documentKind);
}
