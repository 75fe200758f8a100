// `${env:NAME}` in every string scalar of a document: values substituted, each use recorded by
// pointer (so plans carry the template, never the value), unset and malformed references reported.
// Only variables postureops.yaml declares are read, only where the policy allows (values under
// `spec` that name nothing); every value read is returned, for masking wherever it flows.

import type { DiagnosticCode } from '../model/diagnostic-codes.js';
import type { Diagnostic, SourcePosition } from '../model/diagnostics.js';
import type { Json, JsonObject } from '../model/json.js';
import { type Env, hasEnvRef, interpolate, isDeclared, isForbiddenVariable, scanEnvRefs, unescapeEnv } from '../model/env.js';
import { toPointer } from '../model/json-pointer.js';
import { WRITE_ONLY_PLACEHOLDER } from '../model/env-markers.js';

export interface InterpolatedDocument {
  value: Json;
  /** Pointer (document-relative) → raw template, for every string that used `${env:...}`. */
  refs: Record<string, string>;
  /** Pointers whose variables are unset (their value is incomplete: schema errors there are noise). */
  missing: string[];
  /**
   * Pointers whose value holds the placeholder `export --dotenv-out` writes for a value the service
   * never returns: a value still to be set, not a wrong one (apply refuses to send it).
   */
  placeholders: string[];
  /** The values read from the environment (non-empty), as substituted. */
  read: string[];
}

/** Which variables a document may read, and where. */
export interface EnvPolicy {
  /** `variables:` of postureops.yaml; undefined when the root file is unusable (nothing is read then). */
  declared: readonly string[] | undefined;
  /** Whether a reference may stand at this document pointer. */
  readable: (pointer: string) => boolean;
}

/** Code of the warning for a variable skipped with `missingEnv: 'skip'` (one per use; callers summarise them). */
export const ENV_SKIPPED = 'env-skipped' satisfies DiagnosticCode;

function withoutEmpty(env: Env): Env {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
}

export function interpolateDocument(
  value: Json,
  env: Env,
  where: (pointer: string) => SourcePosition | undefined,
  diagnostics: Diagnostic[],
  policy: EnvPolicy,
  missingSeverity: 'error' | 'warning' | 'skip' = 'error',
): InterpolatedDocument {
  const read = new Set<string>();
  const refs: Record<string, string> = {};
  const missing: string[] = [];
  const placeholders: string[] = [];
  // Skipping (validate --no-env): an empty variable is what CI gives for a secret it does not
  // have, so it counts as unset, and its uses are not checked against the schema either.
  const values = missingSeverity === 'skip' ? withoutEmpty(env) : env;

  const onString = (s: string, pointer: string): string => {
    // The position is worked out only for a problem to report.
    const at = (): Pick<Diagnostic, 'file' | 'line' | 'column' | 'field'> => ({ ...where(pointer), field: pointer });
    const scan = scanEnvRefs(s);
    const bad = scan.malformed;
    if (bad.length > 0 || scan.unclosed) {
      const what = bad.length > 0 ? bad.map((b) => `\`${b}\``).join(', ') : 'a `${env:` without its closing `}`';
      diagnostics.push({
        severity: 'error',
        code: 'env-malformed',
        message: `malformed environment reference ${what}`,
        ...at(),
        hint: 'write ${env:NAME}; NAME has letters, digits and _, and does not start with a digit (`$${env:` is the literal text `${env:`)',
      });
      missing.push(pointer);
      return s;
    }
    const names = scan.names;
    // Escapes only: the literal text.
    if (names.length === 0) return unescapeEnv(s);
    if (!policy.readable(pointer)) {
      diagnostics.push({
        severity: 'error',
        code: 'env-not-here',
        message: `\${env:...} is read only in values under \`spec\`, never in names, accounts, previousNames, references to other resources or lifecycle`,
        ...at(),
        hint: 'write the value itself here (`$${env:` is the literal text `${env:`)',
      });
      missing.push(pointer);
      return s;
    }
    const declared = policy.declared;
    if (declared === undefined) {
      // postureops.yaml is unusable (its own errors say why): nothing is read.
      missing.push(pointer);
      return s;
    }
    const refused = names.filter((n) => !isDeclared(n, declared));
    if (refused.length > 0) {
      for (const name of refused) {
        diagnostics.push(
          isForbiddenVariable(name)
            ? {
                severity: 'error',
                code: 'env-forbidden',
                message: `environment variable ${name} is postureops' own setting or the CI's: no configuration may read it`,
                ...at(),
                hint: 'give the value another variable, declared under `variables:` in postureops.yaml',
              }
            : {
                severity: 'error',
                code: 'env-undeclared',
                message: `environment variable ${name} is not declared: postureops.yaml's \`variables:\` does not name it`,
                ...at(),
                hint: `add it to postureops.yaml: \`variables: [${name}]\`${name.includes('_') ? ` (or a prefix such as \`${name.split('_')[0]}_*\`)` : ''}`,
              },
        );
      }
      missing.push(pointer);
      return s;
    }
    const r = interpolate(s, values);
    refs[pointer] = s;
    for (const name of names) {
      const v = values[name];
      if (v !== undefined && v !== '') read.add(v);
    }
    if (r.missing.length > 0) {
      missing.push(pointer);
      for (const name of r.missing) {
        diagnostics.push(
          missingSeverity === 'skip'
            ? { severity: 'warning', code: ENV_SKIPPED, message: `environment variable ${name} is not set or empty; not checked`, ...at() }
            : {
                severity: missingSeverity,
                code: 'env-missing',
                message: `environment variable ${name} is not set`,
                ...at(),
                hint: `set ${name} in the environment (the value is never printed)`,
              },
        );
      }
    }
    if (r.value.includes(WRITE_ONLY_PLACEHOLDER)) placeholders.push(pointer);
    return r.value;
  };

  // Copy on write: a container is copied only when something below it is substituted. The path is
  // spelt as a pointer only for a string that holds a reference.
  const path: (string | number)[] = [];
  const walk = (v: Json): Json => {
    if (typeof v === 'string') return hasEnvRef(v) ? onString(v, toPointer(path)) : v;
    if (Array.isArray(v)) {
      let out: Json[] | undefined;
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        const x = walk(v[i]);
        path.pop();
        if (x !== v[i]) (out ??= [...v])[i] = x;
      }
      return out ?? v;
    }
    if (v !== null && typeof v === 'object') {
      let out: JsonObject | undefined;
      const keys = Object.keys(v);
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        const x = v[k];
        path.push(k);
        const y = walk(x);
        path.pop();
        if (y === x) continue;
        out ??= { ...v };
        // The copy has the member already (writable, as the spread made it): assigned, but for a
        // member named __proto__, which an assignment would take for the prototype.
        if (k === '__proto__') Object.defineProperty(out, k, { value: y, enumerable: true, writable: true, configurable: true });
        else out[k] = y;
      }
      return out ?? v;
    }
    return v;
  };

  const out = walk(value);
  return { value: out, refs, missing, placeholders, read: [...read] };
}
