// Checks of values that the schemas annotate rather than constrain (src/kinds/schema-parts.ts): a
// closed set the service knows (`x-known`: misspelt is an error, new is a warning) and a format that
// is our guess (`x-format`: a value that misses it is a warning). JSON Schema cannot say "warn", so
// ajv accepts these values and this walk judges them: it follows the document's schema ($ref,
// properties, items, allOf, anyOf, if/then/else) along the value and judges every annotated string
// it reaches. It knows no kind and no member: whatever a kind declares with closedSet() or
// formatted() is checked here.

import type { Diagnostic } from '../model/diagnostics.js';
import { isObject, jsonEqual, type Json } from '../model/json.js';
import { isWithin } from '../model/json-pointer.js';
import { membership } from '../model/suggest.js';
import {
  CLOSED_SET_KEYWORD,
  FORMAT_GUESSES,
  FORMAT_KEYWORD,
  OPEN_MEMBERS_KEYWORD,
  SCHEMA_BASE,
  type ClosedSet,
  type FormatGuess,
  type SchemaObject,
} from '../kinds/schema-parts.js';
import { schemaCatalog } from './schema-catalog.js';

export interface ValueCheckContext {
  /** Where a pointer is in its file. */
  at: (pointer: string) => Pick<Diagnostic, 'file' | 'line' | 'column' | 'field'>;
  /** Pointers whose value may not be quoted (env-derived or secret). */
  quiet: (pointer: string) => boolean;
  /** Values at or below these pointers are not judged (placeholders, unset variables). */
  ignore: readonly string[];
  /** A pointer as messages name it (`spec.eventCategory[1]`). */
  label: (pointer: string) => string;
  /** Values of a closed set the root file's `serviceValues` lists as the service's (by the set's label). */
  serviceValues?: Readonly<Record<string, readonly string[]>>;
  /** Where a member's key is in its file (default: `at`). */
  keyAt?: (pointer: string) => Pick<Diagnostic, 'file' | 'line' | 'column' | 'field'>;
}

let catalog: Record<string, SchemaObject> | undefined;

export interface Located {
  schema: SchemaObject | boolean;
  file: string;
}

/** The schema a `$ref` names, resolved as a URI against the file it is written in (once per ref and file). */
const resolved = new Map<string, Map<string, Located>>();

export function resolveRef(ref: string, file: string): Located {
  let inFile = resolved.get(file);
  if (!inFile) resolved.set(file, (inFile = new Map()));
  let found = inFile.get(ref);
  if (!found) inFile.set(ref, (found = lookUp(ref, file)));
  return found;
}

function lookUp(ref: string, file: string): Located {
  catalog ??= schemaCatalog();
  const url = new URL(ref, SCHEMA_BASE + file);
  const target = url.href.slice(0, url.href.length - url.hash.length).slice(SCHEMA_BASE.length);
  let node: unknown = catalog[target];
  for (const seg of url.hash.replace(/^#\/?/, '').split('/').filter((s) => s !== '')) {
    node = isObject(node as Json) ? (node as SchemaObject)[decodeURIComponent(seg).replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  }
  if (node === undefined) throw new Error(`value-check: unresolved $ref ${ref} in ${file}`);
  return { schema: node as SchemaObject, file: target };
}

// Keywords that say nothing about whether a value matches (for the `if` conditions).
const ANNOTATIONS = new Set(['description', 'title', 'examples', 'default', '$comment', 'writeOnly', CLOSED_SET_KEYWORD, FORMAT_KEYWORD, OPEN_MEMBERS_KEYWORD]);

const TYPE_TESTS: Record<string, (v: Json) => boolean> = {
  string: (v) => typeof v === 'string',
  integer: (v) => typeof v === 'number' && Number.isInteger(v),
  number: (v) => typeof v === 'number',
  boolean: (v) => typeof v === 'boolean',
  object: (v) => isObject(v),
  array: (v) => Array.isArray(v),
  null: (v) => v === null,
};

/** A condition's keywords that say something, once per schema object (the catalog does not change). */
const conditions = new WeakMap<SchemaObject, [string, unknown][]>();
function conditionsOf(schema: SchemaObject): [string, unknown][] {
  let list = conditions.get(schema);
  if (!list) conditions.set(schema, (list = Object.entries(schema).filter(([key]) => !ANNOTATIONS.has(key))));
  return list;
}

/**
 * Whether `value` matches an `if` condition. The conditions of the catalog use const, enum, type,
 * required, properties and $ref; any other keyword is a programming error (a test walks them all).
 */
export function holds(schema: SchemaObject | boolean, value: Json, file: string): boolean {
  if (typeof schema === 'boolean') return schema;
  for (const [key, arg] of conditionsOf(schema)) {
    switch (key) {
      case 'const':
        if (!jsonEqual(value, arg as Json)) return false;
        break;
      case 'enum':
        if (!(arg as Json[]).some((v) => jsonEqual(v, value))) return false;
        break;
      case 'type':
        if (!(Array.isArray(arg) ? arg : [arg]).some((t) => TYPE_TESTS[t as string]?.(value))) return false;
        break;
      case 'required':
        if (isObject(value) && !(arg as string[]).every((m) => Object.hasOwn(value, m))) return false;
        break;
      case 'properties':
        if (!isObject(value)) break;
        for (const [m, sub] of Object.entries(arg as Record<string, SchemaObject>)) {
          if (Object.hasOwn(value, m) && !holds(sub, value[m], file)) return false;
        }
        break;
      case '$ref': {
        const target = resolveRef(arg as string, file);
        if (!holds(target.schema, value, target.file)) return false;
        break;
      }
      default:
        throw new Error(`value-check: cannot evaluate \`${key}\` in an if condition of ${file}`);
    }
  }
  return true;
}

/** Per schema object (and the file its `$ref`s are read against): whether a value below it can meet an annotation. */
const annotating = new WeakMap<SchemaObject, Map<string, boolean>>();

/**
 * Whether walking `schema` can reach a closed set or a format guess, through every keyword the walk
 * follows. A schema met again while it is being answered (a recursive `$ref`) counts as reaching one:
 * the walk is skipped only where it provably finds nothing.
 */
function annotates(schema: SchemaObject, file: string): boolean {
  let inFile = annotating.get(schema);
  if (!inFile) annotating.set(schema, (inFile = new Map()));
  const known = inFile.get(file);
  if (known !== undefined) return known;
  inFile.set(file, true);
  const sub = (s: unknown, f = file): boolean => isObject(s as Json) && annotates(s as SchemaObject, f);
  const ref = typeof schema.$ref === 'string' ? resolveRef(schema.$ref, file) : undefined;
  const found =
    schema[CLOSED_SET_KEYWORD] !== undefined ||
    schema[FORMAT_KEYWORD] !== undefined ||
    schema[OPEN_MEMBERS_KEYWORD] !== undefined ||
    (ref !== undefined && sub(ref.schema, ref.file)) ||
    Object.values((schema.properties ?? {}) as Record<string, unknown>).some((s) => sub(s)) ||
    sub(schema.additionalProperties) ||
    sub(schema.items) ||
    [schema.allOf, schema.anyOf, schema.oneOf].some((list) => Array.isArray(list) && list.some((s) => sub(s))) ||
    (schema.if !== undefined && (sub(schema.then) || sub(schema.else)));
  inFile.set(file, found);
  return found;
}

/**
 * A string of a document that its schema annotates: a closed set's value or a guessed format's, or
 * the name of a member an open object (`x-open-members`) does not list, with the ones it lists.
 */
export interface AnnotatedValue {
  pointer: string;
  value: string;
  set?: ClosedSet;
  format?: FormatGuess;
  members?: readonly string[];
}

/**
 * Every annotated string the schema reaches in `value` (one per pointer and annotation), following
 * $ref, properties, additionalProperties, items, allOf, anyOf, oneOf and the if/then/else that holds.
 */
export function annotatedValues(schemaFile: string, value: Json, skip: (pointer: string) => boolean = () => false): AnnotatedValue[] {
  catalog ??= schemaCatalog();
  // First one per pointer and annotation, in the order reached.
  const found: AnnotatedValue[] = [];
  const sets = new Set<string>();
  const formats = new Set<string>();
  const members = new Set<string>();
  const walk = (schema: SchemaObject | boolean | undefined, file: string, v: Json, pointer: string): void => {
    if (schema === undefined || typeof schema === 'boolean' || !annotates(schema, file) || skip(pointer)) return;
    if (typeof schema.$ref === 'string') {
      const target = resolveRef(schema.$ref, file);
      walk(target.schema, target.file, v, pointer);
    }
    if (typeof v === 'string') {
      const set = schema[CLOSED_SET_KEYWORD] as ClosedSet | undefined;
      const format = schema[FORMAT_KEYWORD] as FormatGuess | undefined;
      if (set && !sets.has(pointer)) {
        sets.add(pointer);
        found.push({ pointer, value: v, set });
      }
      if (format && !formats.has(pointer)) {
        formats.add(pointer);
        found.push({ pointer, value: v, format });
      }
    } else if (isObject(v)) {
      const props = schema.properties as Record<string, SchemaObject> | undefined;
      const extra = isObject(schema.additionalProperties as Json) ? (schema.additionalProperties as SchemaObject) : undefined;
      const open = schema[OPEN_MEMBERS_KEYWORD] === true && props !== undefined;
      for (const m in v) {
        const listed = props !== undefined && Object.hasOwn(props, m);
        const segment = m.includes('~') || m.includes('/') ? m.replace(/~/g, '~0').replace(/\//g, '~1') : m;
        if (open && !listed && !members.has(`${pointer}/${segment}`)) {
          members.add(`${pointer}/${segment}`);
          found.push({ pointer: `${pointer}/${segment}`, value: m, members: Object.keys(props) });
        }
        const sub = listed ? props[m] : extra;
        if (sub === undefined) continue;
        walk(sub, file, v[m], `${pointer}/${segment}`);
      }
    } else if (Array.isArray(v) && schema.items !== undefined) {
      for (let i = 0; i < v.length; i++) walk(schema.items as SchemaObject, file, v[i], `${pointer}/${i}`);
    }
    for (const branches of [schema.allOf, schema.anyOf, schema.oneOf]) {
      if (branches !== undefined) for (const branch of branches as SchemaObject[]) walk(branch, file, v, pointer);
    }
    if (schema.if !== undefined) walk((holds(schema.if as SchemaObject, v, file) ? schema.then : schema.else) as SchemaObject | undefined, file, v, pointer);
  };
  walk(catalog[schemaFile], schemaFile, value, '');
  return found;
}

/** Every closed set and format guess the schema reaches in `value`, judged. */
export function checkValues(schemaFile: string, value: Json, ctx: ValueCheckContext): Diagnostic[] {
  const skip = (pointer: string): boolean => ctx.ignore.some((p) => isWithin(pointer, p));
  return annotatedValues(schemaFile, value, skip).flatMap((a) => {
    const verdict = a.set
      ? judgeSet(a.set, a.value, a.pointer, ctx)
      : a.format
        ? judgeFormat(a.format, a.value, a.pointer, ctx)
        : a.members
          ? judgeMember(a.value, a.members, a.pointer, ctx)
          : undefined;
    return verdict ? [verdict] : [];
  });
}

function judgeSet(set: ClosedSet, value: string, pointer: string, ctx: ValueCheckContext): Diagnostic | undefined {
  const caseSensitive = set.caseSensitive ?? true;
  const verdict = membership(value, set.values, caseSensitive);
  if (verdict.is === 'known') return undefined;
  const quiet = ctx.quiet(pointer);
  const shown = quiet || value.length > 60 ? '' : ` \`${value}\``;
  const code = set.code ?? 'unknown-value';
  if (ctx.serviceValues && Object.hasOwn(ctx.serviceValues, set.label) && ctx.serviceValues[set.label].includes(value)) {
    // The root file says the service holds it: new to this version, whatever it is close to.
    return {
      severity: 'warning',
      code,
      message: `\`${ctx.label(pointer)}\`: ${set.label}${shown} is not one this version knows; \`serviceValues\` lists it as the service's: carried as written${set.note ? `; ${set.note}` : ''}`,
      ...ctx.at(pointer),
      hint: `known: ${set.values.join(', ')}`,
    };
  }
  if (verdict.is === 'misspelt') {
    const caseOnly = verdict.value.toLowerCase() === value.toLowerCase();
    return {
      severity: 'error',
      code,
      message: `\`${ctx.label(pointer)}\`: ${set.label}${shown} is not one postureops knows; did you mean \`${verdict.value}\`?`,
      ...ctx.at(pointer),
      hint: caseOnly
        ? 'the service tells upper from lower case'
        : 'a value this close to a known one is taken for a misspelling; one far from every known value is accepted with a warning',
    };
  }
  if (set.open === false) {
    return {
      severity: 'error',
      code,
      message: `\`${ctx.label(pointer)}\`: ${set.label}${shown} is not one of: ${set.values.join(', ')}`,
      ...ctx.at(pointer),
    };
  }
  return {
    severity: 'warning',
    code,
    message: `\`${ctx.label(pointer)}\`: ${set.label}${shown} is not one this version knows: carried as written${set.note ? `; ${set.note}` : ''}`,
    ...ctx.at(pointer),
    hint: `known: ${set.values.join(', ')}`,
  };
}

/**
 * A member an object of the service does not list here: within reach of a listed one it is a
 * misspelling (an error, as a closed schema would say); far from all, a member of the service this
 * version does not know, carried as written.
 */
function judgeMember(member: string, listed: readonly string[], pointer: string, ctx: ValueCheckContext): Diagnostic {
  const verdict = membership(member, listed, true);
  const parent = pointer.slice(0, pointer.lastIndexOf('/'));
  const where = parent === '' ? '' : ` in \`${ctx.label(parent)}\``;
  if (verdict.is === 'misspelt') {
    return { severity: 'error', code: 'unknown-field', message: `unknown field \`${member}\`${where}; did you mean \`${verdict.value}\`?`, ...keyAt(ctx, pointer) };
  }
  return {
    severity: 'warning',
    code: 'unknown-member',
    message: `\`${ctx.label(pointer)}\` is not a member this version knows: carried as written, the service decides`,
    ...keyAt(ctx, pointer),
    hint: `a member this close to a known one (${listed.join(', ')}) would be taken for a misspelling; check its spelling against the service's documentation`,
  };
}

/** Where a member is: its key rather than its value. */
function keyAt(ctx: ValueCheckContext, pointer: string): Pick<Diagnostic, 'file' | 'line' | 'column' | 'field'> {
  return ctx.keyAt ? ctx.keyAt(pointer) : ctx.at(pointer);
}

const patterns = new Map<string, RegExp>();
function compiled(pattern: string): RegExp {
  let re = patterns.get(pattern);
  if (!re) patterns.set(pattern, (re = new RegExp(pattern, 'u')));
  return re;
}

function judgeFormat(format: FormatGuess, value: string, pointer: string, ctx: ValueCheckContext): Diagnostic | undefined {
  const guess = FORMAT_GUESSES[format];
  if (compiled(guess.pattern).test(value)) return undefined;
  const shown = ctx.quiet(pointer) || value.length > 60 ? '' : ` (found \`${value}\`)`;
  return {
    severity: guess.rule ? 'error' : 'warning',
    code: 'format',
    message: `\`${ctx.label(pointer)}\`: expected ${guess.phrase}${shown}; ${guess.rule ? `${guess.rule}, and refuses any other` : 'sent as written, the service decides'}`,
    ...ctx.at(pointer),
  };
}
