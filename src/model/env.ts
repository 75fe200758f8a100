// `${env:NAME}` references: the only way a secret enters a configuration, and how plans carry them.

const REF = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;
const ANY_REF = /\$\{env:([^}]*)\}/g;

export type Env = Readonly<Record<string, string | undefined>>;

/** Names referenced by a template, in order, without duplicates. Malformed references are not names. */
export function envNames(template: string): string[] {
  return [...new Set([...template.matchAll(REF)].map((m) => m[1]))];
}

export function hasEnvRef(text: string): boolean {
  return text.includes('${env:');
}

/** Malformed references (`${env:}`, `${env:1X}`, `${env:A B}`), for diagnostics. */
export function malformedEnvRefs(template: string): string[] {
  return [...template.matchAll(ANY_REF)].map((m) => m[0]).filter((ref) => !/^\$\{env:[A-Za-z_][A-Za-z0-9_]*\}$/.test(ref));
}

export interface Interpolated {
  value: string;
  /** Variables the template names that the environment does not set. */
  missing: string[];
}

/** Substitutes every `${env:NAME}`; an unset variable becomes '' and is reported in `missing`. */
export function interpolate(template: string, env: Env): Interpolated {
  const missing: string[] = [];
  const value = template.replace(REF, (_all, name: string) => {
    const v = env[name];
    if (v === undefined) {
      if (!missing.includes(name)) missing.push(name);
      return '';
    }
    return v;
  });
  return { value, missing };
}
