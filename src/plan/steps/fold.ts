// Step "fold": a kind that owns its children (a profile and its templates) creates them in the
// parent's own request, so a child of a parent that is created or replaced gets no change of its
// own; it travels in the parent's change instead.

import type { Kind } from '../../kinds/types.js';
import { type Decision, type Decisions, kindsByName } from './shared.js';
import { resourceKey } from '../../model/resource.js';

export function fold(decisions: Decisions, kinds: readonly Kind[]): Decisions {
  const kindOf = kindsByName(kinds);
  // Copy on write: without a create or replace that carries children, the decisions are returned as they are.
  let out: Map<string, Decision> | undefined;
  for (const [key, decision] of decisions) {
    const next = foldOne(decision, decisions, kindOf);
    if (next !== decision) (out ??= new Map(decisions)).set(key, next);
  }
  return out ?? decisions;
}

function foldOne(decision: Decision, decisions: Decisions, kindOf: ReadonlyMap<string, Kind>): Decision {
  const { desired: d, kind } = decision;
  if (!kind.hierarchy?.parentKind || d.parent === undefined || !kindOf.get(kind.hierarchy.parentKind)?.hierarchy?.ownsChildren) return decision;
  const parentKey = resourceKey(d.account, kind.hierarchy?.parentKind, d.parent);
  const parent = decisions.get(parentKey);
  if (parent?.action !== 'create' && parent?.action !== 'replace') return decision;
  return { ...decision, foldedInto: parentKey };
}
