// What apply keeps out of every text it stores: each value the plan's env and literal markers
// resolve to, whether a service echoes the whole template, one variable of it, or a literal secret.

import { describe, expect, it } from 'vitest';
import { planEnvNames, planRedactor, planSecretValues } from '../../src/ops/apply/apply-redact.js';
import { LITERAL_MARKER, type LiteralRef, MASK } from '../../src/model/env-markers.js';
import type { Json } from '../../src/model/json.js';
import type { Plan } from '../../src/model/plan.js';

const env = (template: string): Json => ({ $env: template });
const literal = (resource: string, pointer: string): Json => ({ [LITERAL_MARKER]: { resource, pointer, sha256: 'x' } }) as unknown as Json;

function planOf(changes: { after?: Json; children?: { after?: Json }[] }[]): Plan {
  return { changes } as unknown as Plan;
}

const ENV = { HOOK_TOKEN: 'tok-123456', HOST: 'hooks.example', LEFT: undefined, SHORT: 'ab', CHILD_KEY: 'child-secret' };

describe('the values apply hides', () => {
  it('every env template in a change and its children: the whole value and each variable read', () => {
    const plan = planOf([
      { after: { data: { url: env('https://${env:HOST}/x?t=${env:HOOK_TOKEN}') } } },
      { after: { name: 'p' }, children: [{ after: { data: { key: env('${env:CHILD_KEY}') } } }] },
    ]);
    expect(planSecretValues(plan, ENV).sort()).toEqual(['child-secret', 'hooks.example', 'https://hooks.example/x?t=tok-123456', 'tok-123456']);
  });

  it('a variable the environment lacks adds nothing of its own', () => {
    const values = planSecretValues(planOf([{ after: { data: { k: env('pre-${env:LEFT}') } } }]), ENV);
    expect(values).toEqual(['pre-']);
  });

  it('a literal secret: every string inside the value the repository holds, none without a source', () => {
    const plan = planOf([{ after: { data: { creds: literal('prod/AlertChannel/a', '/data/creds') } } }]);
    const held: Json = { user: 'svc-user', keys: ['key-one', { nested: 'key-two' }], port: 443, on: true, none: null };
    const asked: LiteralRef[] = [];
    const source = (ref: LiteralRef): Json | undefined => (asked.push(ref), held);
    expect(planSecretValues(plan, {}, source).sort()).toEqual(['key-one', 'key-two', 'svc-user']);
    expect(asked.map((r) => r.pointer)).toEqual(['/data/creds']);
    expect(planSecretValues(plan, {})).toEqual([]);
    expect(planSecretValues(plan, {}, () => undefined)).toEqual([]);
    expect(planSecretValues(plan, {}, () => 'whole-string')).toEqual(['whole-string']);
  });

  it('the redactor removes them from a service message, a short one only where it stands alone', () => {
    const plan = planOf([{ after: { data: { url: env('${env:HOOK_TOKEN}'), pin: env('${env:SHORT}') } } }]);
    const redact = planRedactor(plan, ENV);
    expect(redact.redact('rejected tok-123456 as invalid')).toBe(`rejected ${MASK} as invalid`);
    expect(redact.redact('pin ab refused; abc stays')).toBe(`pin ${MASK} refused; abc stays`);
  });

  it('the names of the variables read, once each and sorted, children included', () => {
    const plan = planOf([
      { after: { a: env('${env:HOST}/${env:HOOK_TOKEN}') } },
      { after: { b: env('${env:HOST}') }, children: [{ after: { c: env('${env:CHILD_KEY}') } }] },
      { after: undefined },
    ]);
    expect(planEnvNames(plan)).toEqual(['CHILD_KEY', 'HOOK_TOKEN', 'HOST']);
    expect(planEnvNames(planOf([]))).toEqual([]);
  });
});
