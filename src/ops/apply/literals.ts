// Secrets written literally in a file (a Slack URL the team accepted in its repository) never enter a
// plan: the plan holds a literal marker (the value's resource, pointer and a digest). Apply takes the
// value from the repository's desired state, and refuses a repository whose value is not the one planned.

import type { DesiredState } from '../../model/account.js';
import type { Json } from '../../model/json.js';
import { getAt } from '../../model/json-pointer.js';
import { type LiteralRef, type LiteralSource, literalDigest, literalRefs } from '../../model/env-markers.js';
import type { Plan, Refusal } from '../../model/plan.js';
import { resourceKey } from '../../model/resource.js';

/** Every literal marker of a plan's changes (and their children). */
export function planLiteralRefs(plan: Plan): LiteralRef[] {
  return plan.changes.flatMap((c) => [c.after, ...(c.children ?? []).map((child) => child.after)]).flatMap(literalRefs);
}

/** Values of literal markers from a desired state: only a value whose digest matches the marker's. */
export function literalSource(desired: DesiredState): LiteralSource {
  const byKey = new Map(desired.resources.map((r) => [resourceKey(r.account, r.kind, r.name), r]));
  return (ref) => {
    const resource = byKey.get(ref.resource);
    if (!resource || ref.pointer in resource.envRefs) return undefined;
    const value: Json | undefined = getAt(resource.spec, ref.pointer);
    return value !== undefined && literalDigest(ref.resource, ref.pointer, value) === ref.sha256 ? value : undefined;
  };
}

/** A refusal naming every literal of `plan` that `source` cannot give as planned (the repository moved). */
export function checkLiterals(plan: Plan, source: LiteralSource): Refusal | undefined {
  const details = planLiteralRefs(plan)
    .filter((ref) => source(ref) === undefined)
    .map((ref) => `${ref.resource}: the value at spec${ref.pointer}${ref.at ? ` (${ref.at})` : ''} is gone or not the one planned`);
  if (details.length === 0) return undefined;
  return {
    code: 'stale',
    message: `the saved plan is stale: ${details.length} value${details.length === 1 ? '' : 's'} it takes from the repository changed since it was saved; create a new plan`,
    details,
  };
}
