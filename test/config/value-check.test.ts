// The walk of value-check.ts: it evaluates every `if` of the schema catalog (a keyword it cannot
// evaluate would throw on a user's document), reaches annotated values through $ref, items, anyOf
// and the if/then that holds, and leaves out what the loader ignores.

import { describe, expect, it } from 'vitest';
import { annotatedValues, checkValues, holds } from '../../src/config/value-check.js';
import { schemaCatalog } from '../../src/config/schema-catalog.js';
import type { SchemaObject } from '../../src/kinds/schema-parts.js';
import type { Json, JsonObject } from '../../src/model/json.js';

function conditions(node: unknown, out: SchemaObject[] = []): SchemaObject[] {
  if (Array.isArray(node)) node.forEach((n) => conditions(n, out));
  else if (node !== null && typeof node === 'object') {
    const s = node as SchemaObject;
    if (s.if !== undefined) out.push(s.if as SchemaObject);
    Object.values(s).forEach((n) => conditions(n, out));
  }
  return out;
}

/** The value a condition describes: its consts, with every member its properties name. */
function exemplar(schema: SchemaObject): Json {
  if ('const' in schema) return schema.const as Json;
  if (Array.isArray(schema.enum)) return schema.enum[0] as Json;
  const out: JsonObject = {};
  for (const [name, sub] of Object.entries((schema.properties ?? {}) as Record<string, SchemaObject>)) out[name] = exemplar(sub);
  return out;
}

const ctx = (ignore: string[] = []) => ({
  at: (pointer: string) => ({ field: pointer }),
  quiet: () => false,
  ignore,
  label: (pointer: string) => pointer,
});

describe('value-check', () => {
  it('evaluates every if condition of the catalog', () => {
    const catalog = schemaCatalog();
    let count = 0;
    for (const [file, schema] of Object.entries(catalog)) {
      for (const cond of conditions(schema)) {
        // A value with every member the condition names, so that every keyword in it is evaluated.
        expect(holds(cond, exemplar(cond), file), `${file} ${JSON.stringify(cond)}`).toBe(true);
        count++;
      }
    }
    expect(count).toBeGreaterThan(40);
  });

  it('follows the type dispatch to the data of the type that holds, and only that one', () => {
    const doc = { kind: 'AlertChannel', name: 'd', spec: { type: 'Datadog', data: { datadogSite: 'com', datadogType: 'Logs Detail', jiraType: 'x' } } };
    const found = annotatedValues('alert-channel.schema.json', doc);
    expect(found.map((a) => a.pointer)).toEqual(['/spec/type', '/spec/data/datadogSite', '/spec/data/datadogType', '/spec/data/jiraType']);
    // jiraType is no closed set here: a member Datadog's data does not list, judged as a member.
    expect(found[3]).toMatchObject({ value: 'jiraType', members: ['apiKey', 'datadogSite', 'datadogType'] });
    expect(found[3].set).toBeUndefined();
  });

  it('judges nothing below an ignored pointer', () => {
    const doc = { kind: 'AlertRule', name: 'r', spec: { channels: ['c'], severity: [1], eventCategory: ['Complaince'] } };
    expect(checkValues('alert-rule.schema.json', doc, ctx()).map((d) => d.code)).toEqual(['unknown-value']);
    expect(checkValues('alert-rule.schema.json', doc, ctx(['/spec/eventCategory']))).toEqual([]);
  });

  it('does not quote a value from the environment or a secret', () => {
    const doc = { kind: 'AlertChannel', name: 's', spec: { type: 'SlackChannel', data: { slackUrl: 'http://hooks.example.com/T0/secret-part' } } };
    const [d] = checkValues('alert-channel.schema.json', doc, { ...ctx(), quiet: () => true });
    // The seed's rule for a Slack URL: an error (a guessed format would be a warning).
    expect(d).toMatchObject({ severity: 'error', code: 'format' });
    expect(d.message).not.toContain('secret-part');
  });
});

describe('serviceValues: closed-set values the service holds', () => {
  const registry = { kind: 'ContainerRegistry', name: 'r', spec: { data: { registryType: 'GHCR2', registryDomain: 'x' } } };
  const judged = (serviceValues?: Record<string, string[]>) =>
    checkValues('container-registry.schema.json', registry, { ...ctx(), ...(serviceValues ? { serviceValues } : {}) }).map((d) => [d.severity, d.code, d.message.includes('did you mean `GHCR`')]);

  it('a value a typo from a known one is a misspelling, unless serviceValues lists it under its set\'s label', () => {
    expect(judged()).toEqual([['error', 'unknown-type', true]]);
    expect(judged({ 'ContainerRegistry type': ['GHCR2'] })).toEqual([['warning', 'unknown-type', false]]);
    // Listed under another set, or another value: still a misspelling.
    expect(judged({ 'AlertChannel type': ['GHCR2'] })).toEqual([['error', 'unknown-type', true]]);
    expect(judged({ 'ContainerRegistry type': ['GHCR3'] })).toEqual([['error', 'unknown-type', true]]);
  });

  it('misspeltValues finds exactly the values a file would take for misspellings, with their labels', async () => {
    const { misspeltValues } = await import('../../src/config/document-check.js');
    expect(misspeltValues(registry)).toEqual([{ label: 'ContainerRegistry type', value: 'GHCR2', pointer: '/spec/data/registryType' }]);
    expect(misspeltValues({ ...registry, spec: { data: { registryType: 'QUAY_IO' } } })).toEqual([]);
    expect(misspeltValues({ ...registry, spec: { data: { registryType: 'GHCR' } } })).toEqual([]);
  });
});
