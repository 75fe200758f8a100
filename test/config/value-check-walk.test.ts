// The value-check walk works each schema object out once (value-check.ts: its keywords, its `$ref`,
// the schemas below it that can reach nothing left out, its `if` compiled). This compares it with
// the walk as it was written before, over the schema directly, on documents generated from every
// document schema of the catalog (closed-set values right, misspelt and unknown, every `if` branch,
// unknown members, keys with `/` and `~`, wrong types), so that any difference in what is found, in
// which order, fails here.

import { describe, expect, it } from 'vitest';
// The keyword lists did not change either: the oracle below takes them from the module.
import { ANNOTATIONS, TYPE_TESTS, annotatedValues, holds, resolveRef } from '../../src/config/value-check.js';
import { DOCUMENT_SCHEMAS, schemaCatalog } from '../../src/config/schema-catalog.js';
import { CLOSED_SET_KEYWORD, FORMAT_KEYWORD, OPEN_MEMBERS_KEYWORD, type SchemaObject } from '../../src/kinds/schema-parts.js';
import { isObject, jsonEqual, type Json, type JsonObject } from '../../src/model/json.js';

const catalog = schemaCatalog();

// $refs are resolved as before (resolveRef did not change): what changed is the walk over them.
const resolve = resolveRef;

/** The condition as it was evaluated before: keyword by keyword, over the schema. */
function holdsBefore(schema: SchemaObject | boolean, value: Json, file: string): boolean {
  if (typeof schema === 'boolean') return schema;
  for (const [key, arg] of Object.entries(schema).filter(([k]) => !ANNOTATIONS.has(k))) {
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
          if (Object.hasOwn(value, m) && !holdsBefore(sub, value[m], file)) return false;
        }
        break;
      case '$ref': {
        const target = resolve(arg as string, file);
        if (!holdsBefore(target.schema, value, target.file)) return false;
        break;
      }
      default:
        throw new Error(`cannot evaluate ${key}`);
    }
  }
  return true;
}

/** The walk as it was: every schema visited, every pointer spelt. */
function annotatedBefore(schemaFile: string, value: Json): unknown[] {
  const found: unknown[] = [];
  const sets = new Set<string>();
  const formats = new Set<string>();
  const members = new Set<string>();
  const walk = (schema: SchemaObject | boolean | undefined, file: string, v: Json, pointer: string): void => {
    if (schema === undefined || typeof schema === 'boolean') return;
    if (typeof schema.$ref === 'string') {
      const target = resolve(schema.$ref, file);
      walk(target.schema, target.file, v, pointer);
    }
    if (typeof v === 'string') {
      const set = schema[CLOSED_SET_KEYWORD];
      const format = schema[FORMAT_KEYWORD];
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
        const segment = m.replace(/~/g, '~0').replace(/\//g, '~1');
        if (open && !listed && !members.has(`${pointer}/${segment}`)) {
          members.add(`${pointer}/${segment}`);
          found.push({ pointer: `${pointer}/${segment}`, value: m, members: Object.keys(props) });
        }
        const sub = listed ? props[m] : extra;
        if (sub !== undefined) walk(sub, file, v[m], `${pointer}/${segment}`);
      }
    } else if (Array.isArray(v) && schema.items !== undefined) {
      for (let i = 0; i < v.length; i++) walk(schema.items as SchemaObject, file, v[i], `${pointer}/${i}`);
    }
    for (const branches of [schema.allOf, schema.anyOf, schema.oneOf]) {
      if (branches !== undefined) for (const branch of branches as SchemaObject[]) walk(branch, file, v, pointer);
    }
    if (schema.if !== undefined) walk((holdsBefore(schema.if as SchemaObject, v, file) ? schema.then : schema.else) as SchemaObject | undefined, file, v, pointer);
  };
  walk(catalog[schemaFile], schemaFile, value, '');
  return found;
}

/** A small seeded generator (mulberry32): the same documents every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ODD_STRINGS = ['', 'x', 'https://hooks.example.com/a', 'http://x', 'a@b.co', 'arn:aws:iam::123456789012:role/r', '123456789012', 'Cloud', 'critical', '${env:X}'];
const ODD_KEYS = ['extra', 'a/b', 'a~b', '~1', 'type', 'data', 'name'];

/** A value shaped by `schema` most of the time, and wrong in every way some of the time. */
function generate(schema: SchemaObject | boolean | undefined, file: string, rnd: () => number, depth: number): Json {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)];
  if (schema === undefined || typeof schema === 'boolean' || depth > 8 || rnd() < 0.04) {
    return pick<Json>([pick(ODD_STRINGS), 1, true, null, [], {}, ['x']]);
  }
  if (typeof schema.$ref === 'string' && rnd() < 0.9) {
    const target = resolve(schema.$ref, file);
    return generate(target.schema, target.file, rnd, depth + 1);
  }
  const set = schema[CLOSED_SET_KEYWORD] as { values: string[] } | undefined;
  if (set && rnd() < 0.9) {
    const v = pick(set.values);
    return pick([v, v, v.toLowerCase(), `${v}x`, 'Unheardof']);
  }
  if ('const' in schema && rnd() < 0.9) return schema.const as Json;
  if (Array.isArray(schema.enum) && rnd() < 0.9) return pick(schema.enum as Json[]);
  const branches = [...((schema.anyOf ?? []) as SchemaObject[]), ...((schema.oneOf ?? []) as SchemaObject[])];
  if (branches.length > 0 && rnd() < 0.5) return generate(pick(branches), file, rnd, depth + 1);
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : schema.type !== undefined ? [schema.type as string] : [];
  const type = types.length > 0 ? pick(types) : schema.properties || schema.additionalProperties ? 'object' : schema.items ? 'array' : 'string';
  if (type === 'array') return Array.from({ length: Math.floor(rnd() * 3) }, () => generate(schema.items as SchemaObject, file, rnd, depth + 1));
  if (type === 'object') {
    const out: JsonObject = {};
    const props = (schema.properties ?? {}) as Record<string, SchemaObject>;
    for (const [m, sub] of Object.entries(props)) if (rnd() < 0.7) out[m] = generate(sub, file, rnd, depth + 1);
    if (rnd() < 0.3) out[pick(ODD_KEYS)] = generate(isObject(schema.additionalProperties as Json) ? (schema.additionalProperties as SchemaObject) : undefined, file, rnd, depth + 1);
    // A branch of an allOf of if/then: the members its condition names, then what its `then` says.
    const conditional = ((schema.allOf ?? []) as SchemaObject[]).filter((b) => isObject(b.if as Json));
    if (conditional.length > 0 && rnd() < 0.9) {
      const branch = pick(conditional);
      for (const [m, sub] of Object.entries(((branch.if as SchemaObject).properties ?? {}) as Record<string, SchemaObject>)) {
        if ('const' in sub) out[m] = sub.const as Json;
      }
      const more = generate(branch.then as SchemaObject, file, rnd, depth + 1);
      if (isObject(more)) for (const [m, v] of Object.entries(more)) out[m] = isObject(out[m]) && isObject(v) ? { ...(out[m] as JsonObject), ...v } : v;
    }
    return out;
  }
  if (type === 'integer' || type === 'number') return Math.floor(rnd() * 10);
  if (type === 'boolean') return rnd() < 0.5;
  if (type === 'null') return null;
  return pick(ODD_STRINGS);
}

describe('value-check walk, worked out once per schema', () => {
  it('finds what the walk over the schema found, in the same order, on generated documents of every kind', () => {
    let documents = 0;
    const reached = { set: 0, format: 0, members: 0 };
    for (const [kind, file] of Object.entries(DOCUMENT_SCHEMAS)) {
      const rnd = random(kind.length * 7919);
      for (let i = 0; i < 400; i++) {
        const doc = generate(catalog[file], file, rnd, 0);
        const before = annotatedBefore(file, doc);
        expect(annotatedValues(file, doc), `${kind} #${i}: ${JSON.stringify(doc)}`).toEqual(before);
        documents++;
        for (const a of before as Record<string, unknown>[]) for (const k of ['set', 'format', 'members'] as const) if (a[k] !== undefined) reached[k]++;
      }
    }
    // The documents reach every sort of annotation, many times (not all empty mappings).
    expect(documents).toBeGreaterThan(1000);
    expect(Math.min(reached.set, reached.format, reached.members)).toBeGreaterThan(50);
  });

  it('evaluates each condition as before, on values right and wrong', () => {
    const rnd = random(42);
    let conditions = 0;
    const visit = (node: unknown, file: string): void => {
      if (Array.isArray(node)) node.forEach((n) => visit(n, file));
      else if (isObject(node as Json)) {
        const s = node as SchemaObject;
        if (s.if !== undefined) {
          conditions++;
          for (let i = 0; i < 20; i++) {
            const v = generate(s.if as SchemaObject, file, rnd, 0);
            expect(holds(s.if as SchemaObject, v, file), `${file} ${JSON.stringify(s.if)} ${JSON.stringify(v)}`).toBe(holdsBefore(s.if as SchemaObject, v, file));
          }
        }
        Object.values(s).forEach((n) => visit(n, file));
      }
    };
    for (const [file, schema] of Object.entries(catalog)) visit(schema, file);
    expect(conditions).toBeGreaterThan(40);
  });
});
