// Defence in depth for apply: the client keeps bodies out of its errors, but a service message
// could still echo a value we sent. Every value a plan's env markers resolve to is removed from
// any text apply stores.

import { envNames, type Env, interpolate } from '../model/env.js';
import { envTemplates, MASK } from '../model/env-markers.js';
import { type Plan } from '../model/plan.js';

/** Shorter values are removed only where they stand alone, so a 2-letter secret cannot shred a message. */
const MIN_SUBSTRING = 4;

export class SecretRedactor {
  private readonly values: string[];

  constructor(values: Iterable<string>) {
    // Longest first: a value containing another is removed whole.
    this.values = [...new Set([...values].filter((v) => v !== ''))].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  }

  redact(text: string): string {
    let out = text;
    for (const v of this.values) {
      if (v.length >= MIN_SUBSTRING) out = out.split(v).join(MASK);
      else out = out.replace(new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(v)}(?![A-Za-z0-9])`, 'g'), MASK);
    }
    return out;
  }
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

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
