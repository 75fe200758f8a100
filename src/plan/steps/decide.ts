// Step "decide": the action for each matched resource. Without a live twin, `unmatched` decides;
// with one, the kind-driven diff does: a changed member no endpoint can change means replace, any
// other change means update (pushing write-only secrets too when rotation asked for it), and so does
// a rename (`previousNames`) even when the spec is unchanged.

import { diffResource, fixedMembers } from '../core/diff.js';
import { because } from '../../model/reasons.js';
import type { Decision, Decisions, Match } from './shared.js';

export function decide(matches: readonly Match[], rotating: ReadonlySet<string>): Decisions {
  const decisions = new Map<string, Decision>();
  for (const m of matches) decisions.set(m.key, m.live ? compare(m, rotating.has(m.key)) : unmatched(m));
  return decisions;
}

/**
 * A declared resource the service does not list. The one place that says what that means: a
 * create, unless its kind says the service does not list resources in the state it declares (a
 * disabled agent token): then its absence is what was asked for; or unless the kind's records are
 * the service's own (stateOnly): none is ever created.
 */
export function unmatched(m: Match): Decision {
  if (m.kind.lifecycle?.unlisted?.(m.desired)) return { ...m, rotate: false };
  // The service owns every record of a state-only kind: there is nothing to create (select says why).
  if (m.kind.lifecycle?.stateOnly) return { ...m, rotate: false };
  return { ...m, action: 'create', rotate: false };
}

function compare(m: Match, rotate: boolean): Decision {
  const diff = diffResource(m.kind, m.desired, m.live!, rotate);
  if (diff.replace) {
    const fixed = diff.changed.filter((member) => fixedMembers(m.kind, m.desired.spec, m.live!.spec).includes(member));
    return { ...m, diff, action: 'replace', rotate: false, ...because('replace-because-cannot-update', `${fixed.join(', ')} cannot be changed in place`) };
  }
  if (diff.changed.length > 0) return { ...m, diff, action: 'update', rotate };
  // A rename is an update of the name alone: same id, so whatever refers to it keeps doing so.
  if (m.renamedFrom !== undefined) return { ...m, diff, action: 'update', rotate: false };
  return { ...m, diff, rotate: false };
}
