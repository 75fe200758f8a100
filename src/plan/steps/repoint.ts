// Step "re-point": a replaced resource comes back with a new id, so whatever refers to it (a rule
// naming a replaced channel) must be updated to the new id even when its own spec did not change.
// The referring member is marked changed, so apply sends it; the ops stay what the diff found.

import { parsePointer } from '../../model/json-pointer.js';
import { because } from '../../model/reasons.js';
import { referencedNames } from '../core/order.js';
import type { Decision, Decisions } from './shared.js';
import { resourceKey } from '../../model/resource.js';

export function repoint(decisions: Decisions): Decisions {
  const replaced = (key: string): boolean => decisions.get(key)?.action === 'replace';
  // Copy on write: most plans repoint nothing, and the decisions are then returned as they are.
  let out: Map<string, Decision> | undefined;
  for (const [key, decision] of decisions) {
    const next = repointOne(decision, replaced);
    if (next !== decision) (out ??= new Map(decisions)).set(key, next);
  }
  return out ?? decisions;
}

function repointOne(decision: Decision, replaced: (key: string) => boolean): Decision {
  const { desired: d, kind } = decision;
  // Created and replaced resources send every member anyway; without a live twin there is no diff.
  if (decision.action === 'create' || decision.action === 'replace' || !decision.diff) return decision;
  let out = decision;
  for (const ref of (kind.references ?? [])) {
    const names = referencedNames(d.spec, ref.pointer).filter((n) => replaced(resourceKey(d.account, ref.kind, n)));
    if (names.length === 0) continue;
    const member = parsePointer(ref.pointer)[0];
    const changed = out.diff!.changed.includes(member) ? out.diff!.changed : [...out.diff!.changed, member].sort();
    out = {
      ...out,
      diff: { ...out.diff!, changed },
      action: 'update',
      // The first reason stays (one per change): its own, or the first replaced reference.
      ...(out.reasonCode !== undefined ? {} : because('update-because-reference-replaced', `refers to ${ref.kind} ${names.join(', ')}, which is replaced`)),
    };
  }
  return out;
}
