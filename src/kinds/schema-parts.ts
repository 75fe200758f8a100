// Small builders for the JSON Schemas in schemas/, used by the kinds (each builds its own schemas):
// every member gets a description (editors show it) and, where it helps, an example. Patterns with a
// human phrase live in PATTERN_PHRASES so that schema errors can say "expected a JSON pointer"
// instead of printing a regular expression; formats that are our guess (URLs, ARNs, account ids) and
// closed sets of the service are annotations that src/config/value-check.ts judges (warnings where
// the service may know better).

import type { DiagnosticCode } from '../model/diagnostic-codes.js';

export type SchemaObject = { [key: string]: unknown };

export const SCHEMA_BASE = 'https://postureops.dev/schemas/';
export const DRAFT = 'https://json-schema.org/draft/2020-12/schema';

// Every pattern also accepts a value holding `${env:...}`: editors check the file as written,
// before interpolation (the loader checks the interpolated value, where the template is gone), and
// export checks documents whose secrets are `${env:...}` placeholders.
const orEnv = (p: string): string => `^(?:${p}|.*\\$\\{env:[^}]*\\}.*)$`;
export const HTTPS_URL = orEnv('https://\\S+');
export const HTTP_URL = orEnv('https?://\\S+');
export const EMAIL = orEnv('[^@\\s]+@[^@\\s]+\\.[^@\\s]+');
export const ARN = orEnv('arn:[a-z][a-z0-9-]*:\\S+');
export const AWS_ACCOUNT_ID = orEnv('[0-9]{12}');
// The seed's rule for names, `(?!^ +$)^.+$`: one line, not only spaces (nor only other blanks).
export const NOT_BLANK = '^(?!\\s*$).+$';
export const SPEC_POINTER = '^(/[^/]*)+$';
export const SELECTOR = '^[^/]+/.+$';
/** An RFC 3339 time with a zone (`2026-12-31T18:00:00Z`, `...+02:00`): what the service takes as an expiry. */
export const RFC3339_TIME = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$';
/** Text that may span lines, not only blanks (a policy's remediation). */
export const HAS_TEXT = '\\S';

/**
 * Formats of values that are our guess, not the service's rule (public examples show 9-digit GovCloud
 * account ids and ARNs of other partitions): a value that misses one is a `format` warning, never an
 * error. Declared with `formatted()`, as the `x-format` annotation; checked by src/config/value-check.ts.
 */
export const FORMAT_GUESSES: Readonly<Record<string, { pattern: string; phrase: string; rule?: string }>> = {
  'https-url': { pattern: HTTPS_URL, phrase: 'an https:// URL' },
  // The seed's rule, not a guess: the service refuses any other value (an error).
  'https-url-required': { pattern: HTTPS_URL, phrase: 'an https:// URL', rule: "the service's schema of this type requires one" },
  'http-url': { pattern: HTTP_URL, phrase: 'an http:// or https:// URL' },
  email: { pattern: EMAIL, phrase: 'an e-mail address' },
  arn: { pattern: ARN, phrase: 'an ARN (arn:<partition>:...)' },
  'aws-account-id': { pattern: AWS_ACCOUNT_ID, phrase: 'a 12-digit AWS account id' },
};
export type FormatGuess = 'https-url' | 'https-url-required' | 'http-url' | 'email' | 'arn' | 'aws-account-id';
export const FORMAT_KEYWORD = 'x-format';

/** What each pattern means, for error messages (guessed formats are not patterns: FORMAT_GUESSES). */
export const PATTERN_PHRASES: Record<string, string> = {
  [NOT_BLANK]: 'one line, not only spaces',
  [SPEC_POINTER]: 'a JSON pointer into spec, such as /data/channel',
  [SELECTOR]: 'a selector [account/]Kind/name (* matches within a part)',
  [RFC3339_TIME]: 'an RFC 3339 time with its zone, such as 2026-12-31T18:00:00Z',
  [HAS_TEXT]: 'some text, not only blanks',
};

export const SECRET_NOTE =
  'Secret: give it as ${env:NAME} so that the value stays out of the repository; a literal value is refused.';
export const WRITE_ONLY_NOTE = 'Write-only: the service never returns it, so postureops does not compare it (use --rotate to push a new value).';

interface Extra {
  example?: unknown;
  enum?: readonly (string | number)[];
  pattern?: string;
  default?: unknown;
}

function withExtra(schema: SchemaObject, extra: Extra = {}): SchemaObject {
  if (extra.enum) schema.enum = [...extra.enum];
  if (extra.pattern) schema.pattern = extra.pattern;
  if (extra.default !== undefined) schema.default = extra.default;
  if (extra.example !== undefined) schema.examples = [extra.example];
  return schema;
}

/** A string whose format is a guess: a value that misses it is a warning (FORMAT_GUESSES). */
export function formatted(description: string, format: FormatGuess, extra: Extra = {}): SchemaObject {
  return withExtra({ type: 'string', description, minLength: 1, [FORMAT_KEYWORD]: format }, extra);
}

/**
 * A closed set of values the service knows (types, categories, sites, ...). Misspelt is an error,
 * new is a warning: a value within reach of a known one (src/model/suggest.ts: misspellingReach), or
 * one in the wrong case where the service is case-sensitive, is refused with "did you mean"; in an
 * `open` set (the service adds values without notice) any other value is carried as written with a
 * warning, in a set that is not open it is refused. Declared with `closedSet()`, as the `x-known`
 * annotation; checked by src/config/value-check.ts, so every kind's set gets the same treatment.
 */
export interface ClosedSet {
  /** What a value of the set is, for messages: `event category`, `AlertChannel type`. */
  label: string;
  values: readonly string[];
  /** Default true: the service tells `Cloud` from `cloud`. */
  caseSensitive?: boolean;
  /** Default true: a value far from every known one is new, not wrong. */
  open?: boolean;
  /** Diagnostic code of a value outside the set; default `unknown-value`. */
  code?: DiagnosticCode;
  /** Said with a new value: what carrying it means. */
  note?: string;
}
export const CLOSED_SET_KEYWORD = 'x-known';

/** A string member holding a value of a closed set (see ClosedSet); editors offer the known ones. */
export function closedSet(description: string, set: ClosedSet, extra: Extra = {}): SchemaObject {
  const open = set.open ?? true;
  const rule = open
    ? 'Another value is accepted with a warning; one close to a known value is refused as a misspelling.'
    : 'Another value is refused.';
  const anyCase = set.caseSensitive === false ? ' Any case.' : '';
  const schema = withExtra({ type: 'string', minLength: 1, description: `${description} Known: ${set.values.join(', ')}.${anyCase} ${rule}` }, extra);
  if (extra.example === undefined) schema.examples = [...set.values];
  schema[CLOSED_SET_KEYWORD] = { ...set, values: [...set.values] };
  return schema;
}

/**
 * The `channels` of a kind that takes only channels of some types (report rules: EmailUser; data
 * export rules: AwsS3): names of the same account, at least one, another type refused.
 */
export function typedChannels(types: readonly string[], what: string, example: string): SchemaObject {
  const typed = `${types.join(' or ')} AlertChannel`;
  return {
    type: 'array',
    minItems: 1,
    uniqueItems: true,
    items: { type: 'string', minLength: 1, description: `Name of an ${typed} of the same account.` },
    description: `${typed} names (of the same account) ${what}; a channel of another type is refused.`,
    examples: [[example]],
  };
}

export function str(description: string, extra: Extra = {}): SchemaObject {
  const s: SchemaObject = { type: 'string', description };
  if (!extra.enum && !extra.pattern) s.minLength = 1;
  return withExtra(s, extra);
}

export function int(description: string, extra: Extra & { minimum?: number; maximum?: number } = {}): SchemaObject {
  const s: SchemaObject = { type: 'integer', description };
  if (extra.minimum !== undefined) s.minimum = extra.minimum;
  if (extra.maximum !== undefined) s.maximum = extra.maximum;
  return withExtra(s, extra);
}

export function bool(description: string, extra: Extra = {}): SchemaObject {
  return withExtra({ type: 'boolean', description }, extra);
}

export function strList(description: string, items: SchemaObject = { type: 'string', minLength: 1 }, extra: Extra = {}): SchemaObject {
  return withExtra({ type: 'array', description, items }, extra);
}

export function obj(
  description: string,
  properties: Record<string, SchemaObject>,
  required: string[] = [],
  extra: Extra = {},
): SchemaObject {
  const s: SchemaObject = { type: 'object', description, additionalProperties: false, properties };
  if (required.length > 0) s.required = required;
  return withExtra(s, extra);
}

/** A secret member: its description says how to give it; write-only ones are marked for editors. */
export function secret(description: string, writeOnly: boolean, example: string): SchemaObject {
  const s: SchemaObject = {
    type: 'string',
    description: `${description} ${SECRET_NOTE}${writeOnly ? ' ' + WRITE_ONLY_NOTE : ''}`,
    minLength: 1,
    examples: [example],
  };
  if (writeOnly) s.writeOnly = true;
  return s;
}

/**
 * An integration type member that also takes types this version does not know (the service adds
 * types without notice): editors offer the known ones; another is a warning, its `data` then checked
 * as a JSON object only; one close to a known type is a misspelling (its secrets would go unrecognised).
 */
export function openType(description: string, kind: string, known: readonly string[]): SchemaObject {
  return closedSet(
    `${description} Its data is checked as a JSON object only when the type is not a known one.`,
    {
      label: `${kind} type`,
      values: known,
      code: 'unknown-type',
      note: 'its data is checked as a JSON object only, compared member by member and sent as written; members named as secrets (password, token, apiKey, clientSecret...) are treated as write-only secrets: give them as ${env:NAME}',
    },
  );
}

export const NULL_NOTE = 'null removes a value the service holds.';

/**
 * Lets every optional member of an object schema (and of the objects inside it) be null: in a file,
 * null asks to remove a live member, which merely leaving the member out does not (the engine keeps
 * live members a file does not name).
 */
export function nullableOptional(schema: SchemaObject): SchemaObject {
  const props = schema.properties as Record<string, SchemaObject> | undefined;
  if (!props) return schema;
  const required = (schema.required as string[] | undefined) ?? [];
  for (const [name, prop] of Object.entries(props)) {
    nullableOptional(prop);
    if (required.includes(name) || 'const' in prop) continue;
    if (typeof prop.type === 'string') prop.type = [prop.type, 'null'];
    else if (Array.isArray(prop.type)) prop.type = [...(prop.type as string[]), 'null'];
    if (Array.isArray(prop.enum)) prop.enum = [...(prop.enum as unknown[]), null];
    if (Array.isArray(prop.anyOf)) prop.anyOf = [...(prop.anyOf as SchemaObject[]), { type: 'null' }];
  }
  return schema;
}

/** `SlackChannel` → `slack-channel`, `AWS_ECR` → `aws-ecr`, `V2_REGISTRY` → `v2-registry`. */
export function kebab(name: string): string {
  if (/^[A-Z0-9_]+$/.test(name)) return name.toLowerCase().replace(/_/g, '-');
  return name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}

/** Marks dotted paths (`a.b`) as required in a nested object schema built with obj(). */
export function requireDotted(schema: SchemaObject, dotted: readonly string[]): SchemaObject {
  for (const path of dotted) {
    const segs = path.split('.');
    let node = schema;
    for (let i = 0; i < segs.length; i++) {
      const req = (node.required as string[] | undefined) ?? [];
      if (!req.includes(segs[i])) node.required = [...req, segs[i]];
      const props = node.properties as Record<string, SchemaObject> | undefined;
      const next = props?.[segs[i]];
      if (!next) throw new Error(`schema has no member ${path}`);
      node = next;
    }
  }
  return schema;
}

// Shared by the kinds' document schemas: the common definitions they reference, the envelope every
// document has, and the `if type then data` dispatch of integration kinds.

export const COMMON_SCHEMA = 'common.schema.json';

export const ref = (file: string, def?: string): SchemaObject => ({ $ref: def ? `${file}#/$defs/${def}` : file });
export const commonRef = (def: string): SchemaObject => ref(COMMON_SCHEMA, def);

/** A document schema: `kind`, `name`, `account`, `apiVersion`, `previousNames`, `lifecycle` and the kind's `spec`. */
export function envelope(kind: string, file: string, description: string, spec: SchemaObject, example: SchemaObject): SchemaObject {
  return {
    $schema: DRAFT,
    $id: SCHEMA_BASE + file,
    title: kind,
    description,
    examples: [{ kind, ...example }],
    type: 'object',
    required: ['kind', 'name', 'spec'],
    additionalProperties: false,
    properties: {
      apiVersion: commonRef('apiVersion'),
      kind: { const: kind, description: 'Kind of resource this document declares.' },
      name: commonRef('name'),
      account: commonRef('account'),
      previousNames: commonRef('previousNames'),
      lifecycle: commonRef('lifecycle'),
      spec,
    },
  };
}

/** `if spec.type == T then data matches T's schema`, one branch per type: only the matching branch reports. */
export function dispatch(types: readonly string[], fileOf: (t: string) => string, on: 'type' | 'registryType'): SchemaObject[] {
  return types.map((t) =>
    on === 'type'
      ? { if: { properties: { type: { const: t } }, required: ['type'] }, then: { properties: { data: ref(fileOf(t)) } } }
      : {
          if: { properties: { data: { properties: { registryType: { const: t } }, required: ['registryType'] } }, required: ['data'] },
          then: { properties: { data: ref(fileOf(t)) } },
        },
  );
}

/** Marks each secret member: description says to use ${env:...}; write-only ones get writeOnly. */
export function markSecrets(schema: SchemaObject, secrets: readonly { path: string; writeOnly: boolean }[]): SchemaObject {
  for (const s of secrets) {
    let node: SchemaObject | undefined = schema;
    for (const seg of s.path.split('.')) node = (node?.properties as Record<string, SchemaObject> | undefined)?.[seg];
    if (!node) throw new Error(`secret ${s.path} is not in the schema`);
    node.description = `${String(node.description)} ${SECRET_NOTE}${s.writeOnly ? ' ' + WRITE_ONLY_NOTE : ''}`;
    if (s.writeOnly) node.writeOnly = true;
  }
  return schema;
}

/**
 * Objects the service defines (an integration's `data` and the objects inside it): a member this
 * version does not list may be one the service has. One within reach of a listed member
 * (src/model/suggest.ts: misspellingReach) is refused as a misspelling with "did you mean"; any other
 * is carried as written with a warning, the service decides. Declared as the `x-open-members`
 * annotation instead of `additionalProperties: false` (JSON Schema cannot say "warn"); checked by
 * src/config/value-check.ts like the closed sets.
 */
export const OPEN_MEMBERS_KEYWORD = 'x-open-members';

/** Marks every closed object of `schema` (itself and those below its properties and items) open to the service's members. */
export function openMembers(schema: SchemaObject): SchemaObject {
  if (schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object'))) {
    if (schema.additionalProperties === false && schema.properties !== undefined) {
      delete schema.additionalProperties;
      schema[OPEN_MEMBERS_KEYWORD] = true;
    }
  }
  for (const sub of Object.values((schema.properties ?? {}) as Record<string, SchemaObject>)) openMembers(sub);
  if (schema.items !== undefined && typeof schema.items === 'object') openMembers(schema.items as SchemaObject);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(schema[key])) for (const branch of schema[key] as SchemaObject[]) openMembers(branch);
  }
  return schema;
}

/** A per-type `data` schema file: its $id, title and description around `body`, open to the service's members (openMembers). */
export function dataSchema(path: string, title: string, description: string, body: SchemaObject): SchemaObject {
  return { $schema: DRAFT, $id: SCHEMA_BASE + path, title, description, ...openMembers(body) };
}
