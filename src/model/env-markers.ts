// Plans never hold secret values: env-derived values travel as {"$env": template} and are
// resolved only when apply builds a request; other secrets are masked for display.

import type { Json, JsonObject } from './json.js';
import { type Env, interpolate } from './env.js';
import { getAt, hasAt, setAt } from './json-pointer.js';

/** In a Plan, a value that came from `${env:...}` is stored as `{"$env": "<template>"}`, never as its value. */
export const ENV_MARKER = '$env';
/** How a secret value is shown wherever it would appear. */
export const MASK = '(sensitive)';

export interface EnvMarker {
  [ENV_MARKER]: string;
}

export function isEnvMarker(value: unknown): value is EnvMarker {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.keys(value).length === 1 &&
    typeof (value as Record<string, unknown>)[ENV_MARKER] === 'string'
  );
}

/** The templates of every env marker inside `value`, in document order. */
export function envTemplates(value: Json | undefined): string[] {
  const found: string[] = [];
  const walk = (v: Json | undefined): void => {
    if (v === undefined || v === null || typeof v !== 'object') return;
    if (isEnvMarker(v)) found.push(v[ENV_MARKER]);
    else for (const x of Array.isArray(v) ? v : Object.values(v)) walk(x);
  };
  walk(value);
  return found;
}

/** Replaces each env-derived value by its marker. */
export function markEnv(spec: JsonObject, envRefs: Record<string, string>): JsonObject {
  let out = spec;
  for (const [pointer, template] of Object.entries(envRefs)) {
    if (hasAt(out, pointer)) out = setAt(out, pointer, { [ENV_MARKER]: template });
  }
  return out;
}

/** Replaces the values at `pointers` (where present) by the mask. */
export function maskAt(spec: JsonObject, pointers: readonly string[]): JsonObject {
  let out = spec;
  for (const pointer of pointers) {
    const v = getAt(out, pointer);
    if (v !== undefined && !isEnvMarker(v)) out = setAt(out, pointer, MASK);
  }
  return out;
}

export class MissingEnvError extends Error {
  constructor(readonly names: string[]) {
    super(`environment variable${names.length > 1 ? 's' : ''} not set: ${names.join(', ')}`);
    this.name = 'MissingEnvError';
  }
}

/** Deep copy with every marker replaced by its value from `env`. Throws MissingEnvError naming (only) the variables. */
export function resolveEnv<T extends Json>(value: T, env: Env): T {
  const missing = new Set<string>();
  const walk = (v: Json): Json => {
    if (isEnvMarker(v)) {
      const r = interpolate(v[ENV_MARKER], env);
      r.missing.forEach((n) => missing.add(n));
      return r.value;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      const o: JsonObject = {};
      for (const [k, x] of Object.entries(v)) o[k] = walk(x);
      return o;
    }
    return v;
  };
  const out = walk(value) as T;
  if (missing.size > 0) throw new MissingEnvError([...missing].sort());
  return out;
}
