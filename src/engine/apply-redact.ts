// Defence in depth for apply: the client keeps bodies out of its errors, but a service message
// could still echo a value we sent. Every value a plan's env markers resolve to is removed from
// any text apply stores.

import { envNames, type Env, interpolate } from '../model/env.js';
import { envTemplates, MASK } from '../model/env-markers.js';
import { Redactor } from '../model/masking.js';
import { type Plan } from '../model/plan.js';

/** The redactor of an apply: every value the plan's env markers resolve to, in every echoed form. */
export function planRedactor(plan: Plan, env: Env): Redactor {
  return new Redactor({ mask: MASK, minLength: 4, short: 'standalone' }, planSecretValues(plan, env));
}

/** Every value the env markers of `plan` resolve to in `env`: whole templates and each variable. */
export function planSecretValues(plan: Plan, env: Env): string[] {
  const found = new Set<string>();
  const afters = plan.changes.flatMap((c) => [c.after, ...(c.children ?? []).map((child) => child.after)]);
  for (const template of afters.flatMap(envTemplates)) {
    found.add(interpolate(template, env).value);
    for (const name of envNames(template)) {
      const value = env[name];
      if (value !== undefined) found.add(value);
    }
  }
  return [...found];
}
