// Plans never hold secret values: env-derived values travel as {"$env": template}, secrets written
// literally in a file as {"$literal": {resource, pointer, at, sha256}} (a reference to their place in
// the repository with a digest), and both are resolved only when apply builds a request.

import { createHash } from 'node:crypto';
import type { Json, JsonObject } from './json.js';
import { type Env, envNames, interpolate, isForbiddenVariable } from './env.js';
import { getAt, hasAt, setAt, toPointer } from './json-pointer.js';

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

/** In a Plan, a secret written literally in a file: where it is, and a digest to know it unchanged. */
export const LITERAL_MARKER = '$literal';

export interface LiteralRef {
  /** Resource key of the desired resource holding the value (`account/Kind/name`). */
  resource: string;
  /** Spec-relative pointer of the value. */
  pointer: string;
  /** The document it was read from (`file:line`), for people. */
  at?: string;
  /** sha256 of resource, pointer and value: apply refuses a repository whose value differs. */
  sha256: string;
}

export interface LiteralMarker {
  [LITERAL_MARKER]: LiteralRef;
}

export function isLiteralMarker(value: unknown): value is LiteralMarker {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.keys(value).length !== 1) return false;
  const ref = (value as Record<string, unknown>)[LITERAL_MARKER] as Record<string, unknown> | undefined;
  return ref !== null && typeof ref === 'object' && typeof ref.resource === 'string' && typeof ref.pointer === 'string' && typeof ref.sha256 === 'string';
}

/** The digest a literal marker keeps of its value (bound to its place, so equal values elsewhere differ). */
export function literalDigest(resource: string, pointer: string, value: Json): string {
  return createHash('sha256').update(`postureops-literal\0${resource}\0${pointer}\0${JSON.stringify(value)}`).digest('hex');
}

/** Replaces each value at `pointers` that is not already a marker by a literal marker. */
export function markLiterals(spec: JsonObject, pointers: readonly string[], resource: string, at?: string): JsonObject {
  let out = spec;
  for (const pointer of pointers) {
    const v = getAt(out, pointer);
    if (v === undefined || isEnvMarker(v) || isLiteralMarker(v)) continue;
    const ref: LiteralRef = { resource, pointer, ...(at !== undefined ? { at } : {}), sha256: literalDigest(resource, pointer, v) };
    out = setAt(out, pointer, { [LITERAL_MARKER]: ref } as unknown as Json);
  }
  return out;
}

/** Every literal marker inside `value`, in document order. */
export function literalRefs(value: Json | undefined): LiteralRef[] {
  const found: LiteralRef[] = [];
  const walk = (v: Json | undefined): void => {
    if (v === undefined || v === null || typeof v !== 'object') return;
    if (isLiteralMarker(v)) found.push(v[LITERAL_MARKER]);
    else for (const x of Array.isArray(v) ? v : Object.values(v)) walk(x);
  };
  walk(value);
  return found;
}

/**
 * In a Plan, data that only looks like a marker (an object whose one member is `$env`, `$literal` or
 * `$data`: the service's text, or a file's): `{"$data": value}`, sent as the value, never resolved.
 */
export const DATA_MARKER = '$data';
const MARKER_KEYS = new Set([ENV_MARKER, LITERAL_MARKER, DATA_MARKER]);

function markerShaped(value: Json): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && MARKER_KEYS.has(keys[0]);
}

/**
 * Wraps every marker-shaped object of `spec` as data, but for those holding a pointer of `keep`
 * (where markers are about to be placed: an env value, a secret), which are descended into.
 */
export function protectData(spec: JsonObject, keep: readonly string[]): JsonObject {
  // Copy on write: what holds nothing marker-shaped is kept as it is (most specs: nothing is copied),
  // as setAt does, since a spec is never written to in place. The path is spelt as a pointer only at
  // a marker-shaped object, the one place that asks for it.
  const path: (string | number)[] = [];
  const kept = (): boolean => {
    const pointer = toPointer(path);
    return keep.some((k) => k === pointer || k.startsWith(pointer + '/'));
  };
  const walk = (v: Json): Json => {
    if (v === null || typeof v !== 'object') return v;
    if (Array.isArray(v)) {
      let copy: Json[] | undefined;
      // Stryker disable next-line EqualityOperator: `<=` walks v[length], undefined, which comes back as it is: no copy
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        const x = walk(v[i]);
        path.pop();
        if (x !== v[i]) (copy ??= [...v])[i] = x;
      }
      return copy ?? v;
    }
    const keys = Object.keys(v);
    if (keys.length === 1 && MARKER_KEYS.has(keys[0]) && !kept()) return { [DATA_MARKER]: v };
    let out: JsonObject | undefined;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      path.push(k);
      const x = walk(v[k]);
      path.pop();
      if (out === undefined && x === v[k]) continue;
      if (out === undefined) {
        out = {};
        // Stryker disable next-line EqualityOperator: `<=` copies member i too, which is redefined in its place just below
        for (let j = 0; j < i; j++) ownMember(out, keys[j], v[keys[j]]);
      }
      ownMember(out, k, x);
    }
    return out ?? v;
  };
  return walk(spec) as JsonObject;
}

/** `key` as an own member of `out` (`__proto__` too, never the prototype). */
function ownMember(out: JsonObject, key: string, value: Json): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Where apply finds the values of literal markers (the repository); undefined when it has none. */
export type LiteralSource = (ref: LiteralRef) => Json | undefined;

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

/**
 * What `export --dotenv-out` writes for a write-only secret (the service never returns it): enough for
 * plan, which never compares write-only values; apply refuses to send it.
 */
export const WRITE_ONLY_PLACEHOLDER = 'postureops-placeholder:set-the-real-value';

export class PlaceholderEnvError extends Error {
  constructor(readonly names: string[]) {
    super(
      `${names.join(', ')} still hold${names.length === 1 ? 's' : ''} the placeholder export wrote for a write-only secret: set the real value before apply sends it`,
    );
    this.name = 'PlaceholderEnvError';
  }
}

/** A plan whose marker names a variable no configuration may read (a forged or edited plan): nothing is sent. */
export class ForbiddenEnvError extends Error {
  constructor(readonly names: string[]) {
    super(`the plan reads ${names.join(', ')}, which no configuration may read (postureops' own settings, the CI's tokens and inputs): it was not made from a configuration`);
    this.name = 'ForbiddenEnvError';
  }
}

export class MissingLiteralError extends Error {
  constructor(readonly refs: LiteralRef[]) {
    super(
      `the plan takes ${refs.length === 1 ? 'a value' : `${refs.length} values`} from the repository (${refs
        .map((r) => r.at ?? r.resource)
        .join(', ')}) that apply was not given: apply it from the repository folder it was planned in`,
    );
    this.name = 'MissingLiteralError';
  }
}

/**
 * Deep copy with every marker replaced by its value: env markers from `env`, literal markers from
 * `literals`. Throws MissingEnvError naming (only) the variables, MissingLiteralError naming places.
 */
export function resolveEnv<T extends Json>(value: T, env: Env, literals?: LiteralSource): T {
  const missing = new Set<string>();
  const placeholders = new Set<string>();
  const absent: LiteralRef[] = [];
  const forbidden = new Set<string>();
  const walk = (v: Json): Json => {
    // Data, as it was: nothing inside is resolved.
    if (markerShaped(v) && Object.keys(v as JsonObject)[0] === DATA_MARKER) return structuredClone((v as JsonObject)[DATA_MARKER]);
    if (isLiteralMarker(v)) {
      const found = literals?.(v[LITERAL_MARKER]);
      if (found === undefined) absent.push(v[LITERAL_MARKER]);
      return found ?? '';
    }
    if (isEnvMarker(v)) {
      for (const name of envNames(v[ENV_MARKER])) if (isForbiddenVariable(name)) forbidden.add(name);
      const r = interpolate(v[ENV_MARKER], env);
      r.missing.forEach((n) => missing.add(n));
      for (const name of envNames(v[ENV_MARKER])) if (env[name]?.includes(WRITE_ONLY_PLACEHOLDER)) placeholders.add(name);
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
  if (forbidden.size > 0) throw new ForbiddenEnvError([...forbidden].sort());
  if (missing.size > 0) throw new MissingEnvError([...missing].sort());
  if (absent.length > 0) throw new MissingLiteralError(absent);
  if (placeholders.size > 0) throw new PlaceholderEnvError([...placeholders].sort());
  return out;
}
