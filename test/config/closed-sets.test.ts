// Misspelt is an error, new is a warning (issue 19), over every closed set the kinds declare. The
// sets are found by walking the kinds' own schemas (no hand list): for each document kind one sample
// document per type branch is built from the schema's examples, and every closed-set value the walk
// of value-check.ts reaches in it is a place to test. At each place, for each known value: the value
// itself passes; a 1-edit and a 2-edit misspelling is an error at its line with the right "did you
// mean" where the documented reach allows it (a warning beyond it); the value in another case is an
// error where the set is case-sensitive and passes where not; a far value is a warning and the
// document still validates (an error in a set that is not open).

import { LineCounter, parseDocument, stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadFileText } from '../../src/config/load-file.js';
import { prepareValidators } from '../../src/config/validators.js';
import { annotatedValues, resolveRef } from '../../src/config/value-check.js';
import { schemaCatalog } from '../../src/config/schema-catalog.js';
import { KINDS } from '../../src/kinds/index.js';
import { CLOSED_SET_KEYWORD, type ClosedSet, type SchemaObject } from '../../src/kinds/schema-parts.js';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import { isObject, type Json, type JsonObject } from '../../src/model/json.js';
import { parsePointer, setAt } from '../../src/model/json-pointer.js';
import { editDistance } from '../../src/model/suggest.js';

const FILE = 'case.yaml';
const FAR = 'QuantumWorkloads';

/** The reach README states: one or two characters only their case, three to five one edit, six and more two. */
const documentedReach = (known: string): number => (known.length <= 2 ? 0 : known.length <= 5 ? 1 : 2);

// ---- sample documents from the schemas ----

function sample(schema: SchemaObject | boolean | undefined, file: string, refs: readonly string[] = []): Json | undefined {
  if (schema === undefined || typeof schema === 'boolean') return undefined;
  if (typeof schema.$ref === 'string') {
    // A recursive schema (a nestable query) is sampled one level deep.
    const key = `${file}${schema.$ref}`;
    if (refs.includes(key)) return undefined;
    const target = resolveRef(schema.$ref, file);
    return sample(target.schema, target.file, [...refs, key]);
  }
  if ('const' in schema) return schema.const as Json;
  const set = schema[CLOSED_SET_KEYWORD] as ClosedSet | undefined;
  if (set) return set.values[0];
  if (Array.isArray(schema.anyOf)) return sample((schema.anyOf as SchemaObject[])[0], file, refs);
  const types = ([] as unknown[]).concat(schema.type ?? []);
  const props = schema.properties as Record<string, SchemaObject> | undefined;
  if ((types.includes('object') || types.length === 0) && props) {
    const out: JsonObject = {};
    for (const [name, sub] of Object.entries(props)) {
      const v = sample(sub, file, refs);
      if (v !== undefined) out[name] = v;
    }
    return out;
  }
  if (isObject(schema.additionalProperties as Json)) {
    const v = sample(schema.additionalProperties as SchemaObject, file, refs);
    return v === undefined ? {} : { sample: v };
  }
  if (Array.isArray(schema.examples)) return schema.examples[0] as Json;
  if (Array.isArray(schema.enum)) return schema.enum[0] as Json;
  if (types.includes('array')) {
    if (!schema.items) return [];
    const item = sample(schema.items as SchemaObject, file, refs);
    return item === undefined ? undefined : [item];
  }
  if (types.includes('object')) return {};
  if (types.includes('boolean')) return true;
  if (types.includes('integer') || types.includes('number')) return (schema.minimum as number | undefined) ?? 1;
  if (types.includes('string')) return 'x';
  return undefined;
}

/** The least value an `if` of a type dispatch holds for: its consts, where its properties say. */
function satisfy(schema: SchemaObject): Json {
  if ('const' in schema) return schema.const as Json;
  const out: JsonObject = {};
  for (const [name, sub] of Object.entries((schema.properties ?? {}) as Record<string, SchemaObject>)) out[name] = satisfy(sub);
  return out;
}

function merge(a: Json | undefined, b: Json | undefined): Json {
  if (isObject(a) && isObject(b)) {
    const out: JsonObject = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = merge(a[k], v);
    return out;
  }
  return (b ?? a) as Json;
}

interface Sample {
  label: string;
  schema: string;
  doc: JsonObject;
}

/** One document per kind, or one per branch of the kind's type dispatch (`if type then data`). */
function sampleDocuments(): Sample[] {
  const catalog = schemaCatalog();
  const out: Sample[] = [];
  for (const kind of KINDS) {
    if (kind.documentKind === null || !kind.schema) continue;
    const docSchema = catalog[kind.schema];
    const example = (docSchema.examples as JsonObject[])[0];
    const specSchema = (docSchema.properties as Record<string, SchemaObject>).spec;
    const base = sample(specSchema, kind.schema) as JsonObject;
    const doc = (spec: Json): JsonObject => ({ kind: kind.documentKind!, name: String(example.name), spec });
    const branches = ((specSchema.allOf ?? []) as SchemaObject[]).filter((b) => b.if !== undefined);
    // A kind that dispatches on its type has no document without one of its branches.
    if (branches.length === 0) out.push({ label: kind.documentKind, schema: kind.schema, doc: doc(base) });
    for (const branch of branches) {
      const spec = merge(merge(base, satisfy(branch.if as SchemaObject)), sample(branch.then as SchemaObject, kind.schema));
      out.push({ label: `${kind.documentKind} ${JSON.stringify(satisfy(branch.if as SchemaObject))}`, schema: kind.schema, doc: doc(spec) });
    }
  }
  return out;
}

/** Every closed set declared anywhere in the kinds' schemas, by label. */
function declaredSets(): Map<string, ClosedSet> {
  const found = new Map<string, ClosedSet>();
  const scan = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(scan);
    else if (node !== null && typeof node === 'object') {
      const set = (node as SchemaObject)[CLOSED_SET_KEYWORD] as ClosedSet | undefined;
      if (set) found.set(set.label, set);
      Object.values(node).forEach(scan);
    }
  };
  for (const kind of KINDS) scan((kind.documents?.schemas() ?? {}) ?? {});
  return found;
}

// ---- validating a document as a file ----

function validate(doc: JsonObject): { text: string; diagnostics: Diagnostic[] } {
  const text = stringify(doc);
  return { text, diagnostics: loadFileText(FILE, text, undefined, { env: {}, missingEnv: 'skip', parallel: false }).diagnostics };
}

/** Line and column of the value at `pointer` in `text`, as the yaml library reads them. */
function positionIn(text: string, pointer: string): { line: number; column: number } {
  const lineCounter = new LineCounter();
  const parsed = parseDocument(text, { lineCounter });
  const path = parsePointer(pointer).map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  const node = parsed.getIn(path, true) as { range?: [number, number, number] } | undefined;
  if (!node?.range) throw new Error(`no node at ${pointer}`);
  const { line, col } = lineCounter.linePos(node.range[0]);
  return { line, column: col };
}

// What the schemas and value-check say; a kind's own offline checks may still object to a sample
// that holds every member at once (a query in both of its forms), and are compared to that baseline.
const SCHEMA_CODES = new Set(['unknown-value', 'unknown-type', 'unknown-report', 'format', 'missing-field', 'unknown-field', 'invalid-type', 'invalid-value', 'duplicate-item']);
const key = (d: Diagnostic): string => `${d.code}|${d.field}`;

// ---- misspellings ----

const LETTERS = 'qxzjkvw';

/** Values one edit from `v`: transpositions, substitutions, deletions, insertions, middle first. */
function* oneEdit(v: string): Generator<string> {
  const order = Array.from({ length: v.length }, (_, i) => i).sort((a, b) => Math.abs(a - v.length / 2) - Math.abs(b - v.length / 2));
  for (const i of order) {
    if (i + 1 < v.length && v[i] !== v[i + 1]) yield v.slice(0, i) + v[i + 1] + v[i] + v.slice(i + 2);
    for (const c of LETTERS) if (c !== v[i].toLowerCase()) yield v.slice(0, i) + c + v.slice(i + 1);
    yield v.slice(0, i) + v.slice(i + 1);
    yield v.slice(0, i) + 'x' + v.slice(i);
  }
}

function* twoEdits(v: string): Generator<string> {
  for (const m of oneEdit(v)) yield* oneEdit(m);
}

/**
 * A misspelling of `known` by exactly `edits` edits whose nearest known value is `known` alone (so
 * the right suggestion is unambiguous); beyond the reach of `known`, one within no known value's reach.
 */
function misspelling(known: string, edits: 1 | 2, set: ClosedSet): string | undefined {
  const lower = (s: string): string => s.toLowerCase();
  for (const m of edits === 1 ? oneEdit(known) : twoEdits(known)) {
    if (m === '' || set.values.some((k) => lower(k) === lower(m))) continue;
    if (editDistance(lower(m), lower(known)) !== edits) continue;
    const others = set.values.filter((k) => k !== known);
    if (edits <= documentedReach(known) ? others.every((k) => editDistance(lower(m), lower(k)) > edits) : set.values.every((k) => editDistance(lower(m), lower(k)) > documentedReach(k))) {
      return m;
    }
  }
  return undefined;
}

const otherCase = (v: string): string => (v.toUpperCase() !== v ? v.toUpperCase() : v.toLowerCase());

interface Place {
  sample: Sample;
  pointer: string;
  set: ClosedSet;
}

let places: Place[] = [];
let samples: Sample[] = [];

beforeAll(async () => {
  await prepareValidators();
  const seen = new Set<string>();
  samples = sampleDocuments();
  places = [];
  for (const s of samples) {
    for (const a of annotatedValues(s.schema, s.doc)) {
      const key = `${s.doc.kind}|${a.pointer}|${a.set?.label}`;
      if (!a.set || seen.has(key)) continue;
      seen.add(key);
      places.push({ sample: s, pointer: a.pointer, set: a.set });
    }
  }
});

describe('closed sets: misspelt is an error, new is a warning', () => {
  it('every sample document passes the schemas, and the samples reach every closed set the kinds declare', () => {
    for (const s of samples) {
      const problems = validate(s.doc).diagnostics.filter((d) => SCHEMA_CODES.has(d.code));
      expect(problems, s.label).toEqual([]);
    }
    const declared = [...declaredSets().keys()].sort();
    expect(declared.length).toBeGreaterThanOrEqual(14);
    expect([...new Set(places.map((p) => p.set.label))].sort()).toEqual(declared);
  });

  it('judges every known value, its misspellings, its other case and a far value at the right place', () => {
    let judged = 0;
    for (const { sample: s, pointer, set } of places) {
      const code = set.code ?? 'unknown-value';
      const baseline = new Set(validate(s.doc).diagnostics.filter((d) => d.severity === 'error').map(key));
      const at = (value: string): { diags: Diagnostic[]; all: Diagnostic[]; line: number; column: number } => {
        const { text, diagnostics } = validate(setAt(s.doc, pointer, value));
        return { diags: diagnostics.filter((d) => d.field === pointer && d.code === code), all: diagnostics, ...positionIn(text, pointer) };
      };
      const expectMisspelt = (value: string, known: string, why: string): void => {
        const r = at(value);
        expect(r.diags, `${why}: ${set.label} ${JSON.stringify(value)} in ${s.label}`).toHaveLength(1);
        expect(r.diags[0]).toMatchObject({ severity: 'error', file: FILE, line: r.line, column: r.column });
        expect(r.diags[0].message).toContain(`did you mean \`${known}\`?`);
      };
      const expectNew = (value: string, why: string): void => {
        const r = at(value);
        const where = `${why}: ${set.label} ${JSON.stringify(value)} in ${s.label}`;
        expect(r.diags, where).toHaveLength(1);
        expect(r.diags[0]).toMatchObject({ severity: set.open === false ? 'error' : 'warning', line: r.line, column: r.column });
        expect(r.diags[0].message).not.toContain('did you mean');
        if (set.open !== false) expect(r.all.filter((d) => d.severity === 'error' && !baseline.has(key(d))), where).toEqual([]);
      };

      for (const known of set.values) {
        expect(at(known).diags, `${set.label} ${known}`).toEqual([]);
        for (const edits of [1, 2] as const) {
          const m = misspelling(known, edits, set);
          expect(m, `a ${edits}-edit misspelling of ${known}`).toBeDefined();
          if (edits <= documentedReach(known)) expectMisspelt(m!, known, `${edits} edit(s)`);
          else expectNew(m!, `${edits} edit(s) from a value of ${known.length} characters`);
        }
        if (otherCase(known) !== known) {
          if (set.caseSensitive === false) expect(at(otherCase(known)).diags, `${set.label} ${otherCase(known)}`).toEqual([]);
          else expectMisspelt(otherCase(known), known, 'other case');
        }
        judged++;
      }
      expect(set.values.every((k) => editDistance(FAR.toLowerCase(), k.toLowerCase()) > documentedReach(k))).toBe(true);
      expectNew(FAR, 'far');
    }
    expect(judged).toBeGreaterThanOrEqual(80);
  });
});
