// Step "match": each declared resource with its kind and its live twin, by (account, kind, name).
// A declared resource that cannot be planned is an error, not skipped silently: an unknown kind, a
// name several live resources share (which one would we change?), or one the service predefines.

import type { Diagnostic } from '../../model/diagnostics.js';
import type { DesiredResource } from '../../model/resource.js';
import type { Kind } from '../../kinds/types.js';
import { type LiveIndex, livesAt } from './live-index.js';
import { at, kindsByName, type Match } from './shared.js';
import { resourceKey } from '../../model/resource.js';

export interface Matched {
  /** In the order of the desired state. */
  readonly matches: readonly Match[];
  readonly diagnostics: readonly Diagnostic[];
}

/** `renamedFrom`: old names by new key (step "rename"); the match carries its own. */
export function match(desired: readonly DesiredResource[], kinds: readonly Kind[], index: LiveIndex, renamedFrom?: ReadonlyMap<string, string>): Matched {
  const kindOf = kindsByName(kinds);
  const matches: Match[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const d of desired) {
    const kind = kindOf.get(d.kind);
    if (!kind) {
      diagnostics.push({ severity: 'error', code: 'unknown-kind', message: `${d.kind} is not a registered kind`, ...at(d) });
      continue;
    }
    const key = resourceKey(d.account, d.kind, d.name);
    const derived = kind.derivedId;
    if (derived && !derived.rule.pattern.test(d.name)) {
      diagnostics.push({ severity: 'error', code: 'invalid-value', message: `${d.kind} ${d.name}: the service derives its id from its name, and ${derived.rule.says}`, ...at(d) });
      continue;
    }
    // A kind whose id the service derives from the name: the twin is the live record whose id carries
    // it. The service's own records were not derived from a user's name (a predefined policy's
    // `<vendor>-global-1` is no twin of a custom `global-1`, whose id is `<tenant>-global-1`).
    const lives = derived
      ? (index.byAccount.get(d.account) ?? []).filter((r) => r.kind === d.kind && !r.managedByService && derived.nameOf(r.serviceId ?? r.id) === d.name)
      : livesAt(index, key);
    if (lives.length > 1) {
      diagnostics.push({
        severity: 'error',
        code: 'ambiguous-live-name',
        message: `${d.kind} ${d.name} in account ${d.account} matches ${lives.length} live resources (ids ${lives
          .map((m) => m.id)
          .sort()
          .join(', ')}); names must be unique to be managed`,
        ...at(d),
        hint: 'rename or delete all but one of them in the service',
      });
      continue;
    }
    const live = lives[0];
    if (live?.managedByService) {
      diagnostics.push({
        severity: 'error',
        code: 'managed-by-service',
        message: `${d.kind} ${d.name} in account ${d.account} is predefined by the service and cannot be managed`,
        ...at(d),
      });
      continue;
    }
    const from = live ? renamedFrom?.get(key) : undefined;
    matches.push({ key, desired: d, kind, ...(live ? { live } : {}), ...(from !== undefined ? { renamedFrom: from } : {}) });
  }
  return { matches, diagnostics };
}
