// The registry of resource kinds: an explicit list, one import per kind file. A test lists
// src/kinds on disk and fails when this list and the files disagree.

import { AlertChannel } from './alert-channel.js';
import { AlertProfile } from './alert-profile.js';
import { AlertRule } from './alert-rule.js';
import { AlertTemplate } from './alert-template.js';
import { CloudAccount } from './cloud-account.js';
import { ContainerRegistry } from './container-registry.js';
import type { Kind } from './types.js';

export const KINDS: readonly Kind[] = [AlertChannel, AlertRule, AlertProfile, AlertTemplate, CloudAccount, ContainerRegistry];

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
