// `${env:NAME}` references: the only way a secret enters a configuration, and how plans carry them.
// `$${env:` is the escape (as Terraform's `$${`): the literal text `${env:`, never a reference, so
// text from the service can be written to a file and read back as the same text.

/** An escape, a reference (well-formed or not), or a `${env:` never closed; leftmost first. */
const TOKEN = /\$\$\{env:|\$\{env:([^}]*)\}|\$\{env:/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ESCAPE = '$${env:';
const OPEN = '${env:';

export type Env = Readonly<Record<string, string | undefined>>;

type Token = { kind: 'escape' } | { kind: 'ref'; name: string; raw: string } | { kind: 'malformed'; raw: string } | { kind: 'unclosed' };

function tokenOf(raw: string, inner: string | undefined): Token {
  if (raw === ESCAPE) return { kind: 'escape' };
  if (inner === undefined) return { kind: 'unclosed' };
  return NAME.test(inner) ? { kind: 'ref', name: inner, raw } : { kind: 'malformed', raw };
}

function tokens(text: string): Token[] {
  return [...text.matchAll(TOKEN)].map((m) => tokenOf(m[0], m[1]));
}

/** Names referenced by a template, in order, without duplicates. Malformed references and escapes are not names. */
export function envNames(template: string): string[] {
  return [...new Set(tokens(template).flatMap((t) => (t.kind === 'ref' ? [t.name] : [])))];
}

/** envNames, malformedEnvRefs and hasUnclosedEnvRef of one text, from one reading of it. */
export function scanEnvRefs(template: string): { names: string[]; malformed: string[]; unclosed: boolean } {
  const names = new Set<string>();
  const malformed: string[] = [];
  let unclosed = false;
  for (const t of tokens(template)) {
    if (t.kind === 'ref') names.add(t.name);
    else if (t.kind === 'malformed') malformed.push(t.raw);
    else if (t.kind === 'unclosed') unclosed = true;
  }
  return { names: [...names], malformed, unclosed };
}

/** Whether the text holds `${env:` at all (a reference, an escape, or a malformed one). */
export function hasEnvRef(text: string): boolean {
  return text.includes(OPEN);
}

/** Malformed references (`${env:}`, `${env:1X}`, `${env:A B}`), for diagnostics. */
export function malformedEnvRefs(template: string): string[] {
  return tokens(template).flatMap((t) => (t.kind === 'malformed' ? [t.raw] : []));
}

/** Whether a `${env:` is left without its closing `}`. */
export function hasUnclosedEnvRef(template: string): boolean {
  return tokens(template).some((t) => t.kind === 'unclosed');
}

/** The text a file writes for `text` so that the loader reads back exactly `text`, never a reference. */
export function escapeEnv(text: string): string {
  return text.split(OPEN).join(ESCAPE);
}

export interface Interpolated {
  value: string;
  /** Variables the template names that the environment does not set. */
  missing: string[];
}

/** Substitutes every `${env:NAME}` and unescapes `$${env:`; an unset variable becomes '' and is reported in `missing`. */
export function interpolate(template: string, env: Env): Interpolated {
  const missing: string[] = [];
  const value = template.replace(TOKEN, (raw: string, inner: string | undefined) => {
    const t = tokenOf(raw, inner);
    if (t.kind === 'escape') return OPEN;
    if (t.kind !== 'ref') return raw;
    const v = env[t.name];
    if (v === undefined) {
      if (!missing.includes(t.name)) missing.push(t.name);
      return '';
    }
    return v;
  });
  return { value, missing };
}

/** The literal text a string stands for where nothing is read from the environment: escapes undone. */
export function unescapeEnv(text: string): string {
  return interpolate(text, {}).value;
}

/**
 * Variables no configuration may read: postureops' own settings and credentials, and the CI's tokens
 * and inputs. Compared without case (a declaration is refused when it could cover one of them).
 */
export const FORBIDDEN_VARIABLE_PREFIXES = ['SVC_', 'POSTUREOPS_', 'GITHUB_', 'ACTIONS_', 'RUNNER_', 'INPUT_'] as const;

/** A declared name (`SLACK_OPS_URL`) or prefix (`PAGERDUTY_*`), as `variables:` in postureops.yaml gives it. */
export type VariableDeclaration = string;

/** Why `declaration` cannot be declared; undefined when it can. */
export function declarationProblem(declaration: string): string | undefined {
  const prefix = declaration.endsWith('*');
  const stem = prefix ? declaration.slice(0, -1) : declaration;
  if (!(prefix ? /^[A-Za-z_]?[A-Za-z0-9_]*$/.test(stem) : NAME.test(stem))) {
    return `\`${declaration}\` is neither a variable name (letters, digits and _, not starting with a digit) nor a prefix ending in \`*\``;
  }
  const upper = stem.toUpperCase();
  // A name is refused when a forbidden prefix covers it; a prefix also when it covers a forbidden one.
  const clash = FORBIDDEN_VARIABLE_PREFIXES.find((f) => upper.startsWith(f) || (prefix && f.startsWith(upper)));
  if (clash === undefined) return undefined;
  return `\`${declaration}\` ${prefix && !upper.startsWith(clash) ? 'could cover' : 'is one of'} ${clash}*, which no configuration may read (postureops' own settings and the CI's tokens and inputs: ${FORBIDDEN_VARIABLE_PREFIXES.map((p) => `${p}*`).join(', ')})`;
}

/** Whether `name` is never readable, whatever is declared (compared without case). */
export function isForbiddenVariable(name: string): boolean {
  const upper = name.toUpperCase();
  return FORBIDDEN_VARIABLE_PREFIXES.some((f) => upper.startsWith(f));
}

/** Whether the declarations let a configuration read `name` (exact names; prefixes by their stem; case as written). */
export function isDeclared(name: string, declarations: readonly VariableDeclaration[]): boolean {
  if (isForbiddenVariable(name)) return false;
  return declarations.some((d) => (d.endsWith('*') ? name.startsWith(d.slice(0, -1)) : name === d));
}
