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
import { sharedCatalog } from './schema-catalog.js';

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

let catalog: Readonly<Record<string, SchemaObject>> | undefined;

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
  catalog ??= sharedCatalog();
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
export const ANNOTATIONS = new Set(['description', 'title', 'examples', 'default', '$comment', 'writeOnly', CLOSED_SET_KEYWORD, FORMAT_KEYWORD, OPEN_MEMBERS_KEYWORD]);

export const TYPE_TESTS: Record<string, (v: Json) => boolean> = {
  string: (v) => typeof v === 'string',
  integer: (v) => typeof v === 'number' && Number.isInteger(v),
  number: (v) => typeof v === 'number',
  boolean: (v) => typeof v === 'boolean',
  object: (v) => isObject(v),
  array: (v) => Array.isArray(v),
  null: (v) => v === null,
};

/** A condition compiled once per schema object and file (the catalog does not change). */
type Condition = (value: Json) => boolean;
const ALWAYS: Condition = () => true;
const NEVER: Condition = () => false;
const compiledConditions = new WeakMap<SchemaObject, Map<string, Condition>>();

/**
 * Whether `value` matches an `if` condition. The conditions of the catalog use const, enum, type,
 * required, properties and $ref; any other keyword is a programming error (a test walks them all).
 */
export function holds(schema: SchemaObject | boolean, value: Json, file: string): boolean {
  return conditionOf(schema, file)(value);
}

function conditionOf(schema: SchemaObject | boolean, file: string): Condition {
  if (typeof schema === 'boolean') return schema ? ALWAYS : NEVER;
  let inFile = compiledConditions.get(schema);
  if (!inFile) compiledConditions.set(schema, (inFile = new Map()));
  let cond = inFile.get(file);
  if (!cond) inFile.set(file, (cond = compileCondition(schema, file)));
  return cond;
}

/** The keywords that say something, in their order, each a test; the first that fails decides. */
function compileCondition(schema: SchemaObject, file: string): Condition {
  const tests: Condition[] = [];
  for (const [key, arg] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    switch (key) {
      case 'const':
        tests.push((value) => jsonEqual(value, arg as Json));
        break;
      case 'enum':
        tests.push((value) => (arg as Json[]).some((v) => jsonEqual(v, value)));
        break;
      case 'type': {
        const types = (Array.isArray(arg) ? arg : [arg]).map((t) => TYPE_TESTS[t as string]);
        tests.push((value) => types.some((t) => t?.(value)));
        break;
      }
      case 'required': {
        const members = arg as string[];
        tests.push((value) => !isObject(value) || members.every((m) => Object.hasOwn(value, m)));
        break;
      }
      case 'properties': {
        const subs = Object.entries(arg as Record<string, SchemaObject>).map(([m, sub]) => [m, conditionOf(sub, file)] as const);
        tests.push((value) => {
          if (!isObject(value)) return true;
          for (const [m, sub] of subs) if (Object.hasOwn(value, m) && !sub(value[m])) return false;
          return true;
        });
        break;
      }
      case '$ref': {
        // Resolved when first evaluated, as before (and a recursive one is not compiled forever).
        let sub: Condition | undefined;
        tests.push((value) => {
          if (!sub) {
            const target = resolveRef(arg as string, file);
            sub = conditionOf(target.schema, target.file);
          }
          return sub(value);
        });
        break;
      }
      default:
        // Thrown when reached, as the walk reaches it: a keyword after one that fails is never evaluated.
        tests.push(() => {
          throw new Error(`value-check: cannot evaluate \`${key}\` in an if condition of ${file}`);
        });
    }
  }
  if (tests.length === 0) return ALWAYS;
  if (tests.length === 1) return tests[0];
  return (value) => {
    for (const test of tests) if (!test(value)) return false;
    return true;
  };
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
 * A schema object as the walk reads it, worked out once per object and file: its keywords looked
 * up, its `$ref` resolved, and every schema below it that can reach no annotation left out
 * (undefined), so that the walk neither visits them nor spells their pointers.
 */
interface WalkNode {
  ref: WalkNode | undefined;
  set: ClosedSet | undefined;
  format: FormatGuess | undefined;
  /** `properties`, when it has any: member → its node (undefined: nothing to find there). */
  props: Map<string, WalkNode | undefined> | undefined;
  /** Whether `properties` is given at all (an empty one still lists nothing). */
  hasProps: boolean;
  /** The listed members, for `x-open-members` (undefined when the object is not open). */
  open: readonly string[] | undefined;
  extra: WalkNode | undefined;
  items: WalkNode | undefined;
  hasItems: boolean;
  branches: (WalkNode | undefined)[];
  condition: Condition | undefined;
  then: WalkNode | undefined;
  else: WalkNode | undefined;
}

const walkNodes = new WeakMap<SchemaObject, Map<string, WalkNode | undefined>>();

function walkNodeOf(schema: unknown, file: string): WalkNode | undefined {
  if (schema === undefined || typeof schema === 'boolean' || !annotates(schema as SchemaObject, file)) return undefined;
  const s = schema as SchemaObject;
  let inFile = walkNodes.get(s);
  if (!inFile) walkNodes.set(s, (inFile = new Map()));
  const known = inFile.get(file);
  if (known !== undefined) return known;
  const props = s.properties as Record<string, SchemaObject> | undefined;
  const node: WalkNode = {
    ref: undefined,
    set: s[CLOSED_SET_KEYWORD] as ClosedSet | undefined,
    format: s[FORMAT_KEYWORD] as FormatGuess | undefined,
    props: undefined,
    hasProps: props !== undefined,
    open: s[OPEN_MEMBERS_KEYWORD] === true && props !== undefined ? Object.freeze(Object.keys(props)) : undefined,
    extra: undefined,
    items: undefined,
    hasItems: s.items !== undefined,
    branches: [],
    condition: undefined,
    then: undefined,
    else: undefined,
  };
  // Cached before its parts: a recursive `$ref` finds this node.
  inFile.set(file, node);
  if (typeof s.$ref === 'string') {
    const target = resolveRef(s.$ref, file);
    node.ref = walkNodeOf(target.schema, target.file);
  }
  if (props !== undefined) {
    node.props = new Map();
    for (const m of Object.keys(props)) node.props.set(m, walkNodeOf(props[m], file));
  }
  if (isObject(s.additionalProperties as Json)) node.extra = walkNodeOf(s.additionalProperties, file);
  if (s.items !== undefined) node.items = walkNodeOf(s.items, file);
  for (const branches of [s.allOf, s.anyOf, s.oneOf]) {
    if (branches !== undefined) for (const branch of branches as SchemaObject[]) node.branches.push(walkNodeOf(branch, file));
  }
  if (s.if !== undefined) {
    node.then = walkNodeOf(s.then, file);
    node.else = walkNodeOf(s.else, file);
    // Evaluated only when a branch can find something: no condition of the catalog throws (the
    // test evaluates every one with every keyword reached), so leaving it out changes nothing.
    if (node.then !== undefined || node.else !== undefined) node.condition = conditionOf(s.if as SchemaObject, file);
  }
  return node;
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
export function annotatedValues(schemaFile: string, value: Json, skip?: (pointer: string) => boolean): AnnotatedValue[] {
  catalog ??= sharedCatalog();
  // First one per pointer and annotation, in the order reached.
  const found: AnnotatedValue[] = [];
  // Made on first use (most documents reach few annotations, many none).
  let sets: Set<string> | undefined;
  let formats: Set<string> | undefined;
  let members: Set<string> | undefined;
  const walk = (node: WalkNode | undefined, v: Json, pointer: string): void => {
    if (node === undefined || (skip !== undefined && skip(pointer))) return;
    if (node.ref !== undefined) walk(node.ref, v, pointer);
    if (typeof v === 'string') {
      if (node.set && !(sets ??= new Set()).has(pointer)) {
        sets.add(pointer);
        found.push({ pointer, value: v, set: node.set });
      }
      if (node.format && !(formats ??= new Set()).has(pointer)) {
        formats.add(pointer);
        found.push({ pointer, value: v, format: node.format });
      }
    } else if (isObject(v)) {
      const { props, open, extra } = node;
      for (const m in v) {
        const listed = node.hasProps && props!.has(m);
        const sub = listed ? props!.get(m) : extra;
        if (sub === undefined && (open === undefined || listed)) continue;
        const segment = m.includes('~') || m.includes('/') ? m.replace(/~/g, '~0').replace(/\//g, '~1') : m;
        const at = `${pointer}/${segment}`;
        if (open !== undefined && !listed && !(members ??= new Set()).has(at)) {
          members.add(at);
          found.push({ pointer: at, value: m, members: open });
        }
        if (sub !== undefined) walk(sub, v[m], at);
      }
    } else if (Array.isArray(v) && node.hasItems) {
      if (node.items !== undefined) for (let i = 0; i < v.length; i++) walk(node.items, v[i], `${pointer}/${i}`);
    }
    for (const branch of node.branches) walk(branch, v, pointer);
    if (node.condition !== undefined) walk(node.condition(v) ? node.then : node.else, v, pointer);
  };
  walk(walkNodeOf(catalog[schemaFile], schemaFile), value, '');
  return found;
}

/** Every closed set and format guess the schema reaches in `value`, judged. */
export function checkValues(schemaFile: string, value: Json, ctx: ValueCheckContext): Diagnostic[] {
  const skip = ctx.ignore.length === 0 ? undefined : (pointer: string): boolean => ctx.ignore.some((p) => isWithin(pointer, p));
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
