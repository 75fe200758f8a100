// The walk of value-check.ts: it evaluates every `if` of the schema catalog (a keyword it cannot
// evaluate would throw on a user's document), reaches annotated values through $ref, items, anyOf
// and the if/then that holds, and leaves out what the loader ignores.

import { describe, expect, it } from 'vitest';
import { annotatedValues, checkValues, holds } from '../../src/config/value-check.js';
import { schemaCatalog } from '../../src/config/schema-catalog.js';
import type { SchemaObject } from '../../src/kinds/schema-parts.js';

function conditions(node: unknown, out: SchemaObject[] = []): SchemaObject[] {
  if (Array.isArray(node)) node.forEach((n) => conditions(n, out));
  else if (node !== null && typeof node === 'object') {
    const s = node as SchemaObject;
    if (s.if !== undefined) out.push(s.if as SchemaObject);
    Object.values(s).forEach((n) => conditions(n, out));
  }
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
        expect(() => holds(cond, { kind: 'AlertChannel', type: 'Jira', data: { registryType: 'AWS_ECR' } }, file), file).not.toThrow();
        count++;
      }
    }
    expect(count).toBeGreaterThan(40);
  });

  it('follows the type dispatch to the data of the type that holds, and only that one', () => {
    const doc = { kind: 'AlertChannel', name: 'd', spec: { type: 'Datadog', data: { datadogSite: 'com', datadogType: 'Logs Detail', jiraType: 'x' } } };
    expect(annotatedValues('alert-channel.schema.json', doc).map((a) => a.pointer)).toEqual(['/spec/type', '/spec/data/datadogSite', '/spec/data/datadogType']);
  });

  it('judges nothing below an ignored pointer', () => {
    const doc = { kind: 'AlertRule', name: 'r', spec: { channels: ['c'], severity: [1], eventCategory: ['Complaince'] } };
    expect(checkValues('alert-rule.schema.json', doc, ctx()).map((d) => d.code)).toEqual(['unknown-value']);
    expect(checkValues('alert-rule.schema.json', doc, ctx(['/spec/eventCategory']))).toEqual([]);
  });

  it('does not quote a value from the environment or a secret', () => {
    const doc = { kind: 'AlertChannel', name: 's', spec: { type: 'SlackChannel', data: { slackUrl: 'http://hooks.example.com/T0/secret-part' } } };
    const [d] = checkValues('alert-channel.schema.json', doc, { ...ctx(), quiet: () => true });
    expect(d).toMatchObject({ severity: 'warning', code: 'format' });
    expect(d.message).not.toContain('secret-part');
  });
});
