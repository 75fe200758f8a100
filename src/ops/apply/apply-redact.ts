// Defence in depth for apply: the client keeps bodies out of its errors, but a service message
// could still echo a value we sent. Every value a plan's env and literal markers resolve to is
// removed from any text apply stores, in every form it may be echoed in.

import { envNames, type Env, interpolate } from '../../model/env.js';
import { envTemplates, type LiteralSource, literalRefs, MASK } from '../../model/env-markers.js';
import { Redactor } from '../../model/masking.js';
import type { Json } from '../../model/json.js';
import { type Plan } from '../../model/plan.js';

/** The redactor of an apply: every value the plan's env markers resolve to, in every echoed form. */
export function planRedactor(plan: Plan, env: Env, literals?: LiteralSource): Redactor {
  // Stryker disable next-line StringLiteral: 'standalone' is the Redactor's default too; written out because a short credential must still be hidden where it stands alone
  return new Redactor({ mask: MASK, minLength: 4, short: 'standalone' }, planSecretValues(plan, env, literals));
}

/**
 * Every value the markers of `plan` resolve to: env markers in `env` (whole templates and each
 * variable), literal markers in `literals` (every string inside the value).
 */
export function planSecretValues(plan: Plan, env: Env, literals?: LiteralSource): string[] {
  const found = new Set<string>();
  const afters = aftersOf(plan);
  for (const template of afters.flatMap(envTemplates)) {
    found.add(interpolate(template, env).value);
    for (const name of envNames(template)) {
      const value = env[name];
      if (value !== undefined) found.add(value);
    }
  }
  for (const ref of afters.flatMap(literalRefs)) {
    const value = literals?.(ref);
    for (const text of stringsIn(value)) found.add(text);
  }
  return [...found];
}

/** What a change writes: its own spec and its children's. */
function aftersOf(plan: Plan): (Json | undefined)[] {
  // Stryker disable next-line ArrayDeclaration: a made-up child has no `after`, so it adds nothing
  return plan.changes.flatMap((c) => [c.after, ...(c.children ?? []).map((child) => child.after)]);
}

/** Every string inside a value (none in a number, a boolean, null or nothing). */
function stringsIn(value: Json | undefined): string[] {
  if (typeof value === 'string') return [value];
  // Object.values of a number or a boolean is empty too: only null and undefined need the check.
  if (value === null || value === undefined) return [];
  return (Array.isArray(value) ? value : Object.values(value)).flatMap(stringsIn);
}

/** Names of the variables the plan's env markers read, sorted. */
export function planEnvNames(plan: Plan): string[] {
  const afters = aftersOf(plan);
  return [...new Set(afters.flatMap(envTemplates).flatMap(envNames))].sort();
}
