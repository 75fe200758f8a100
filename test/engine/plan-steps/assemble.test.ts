import { describe, expect, it } from 'vitest';
import { assemble, type AssembleInput } from '../../../src/engine/plan/steps/assemble.js';
import type { Change } from '../../../src/model/plan.js';
import { frozen } from './helpers.js';

const change = (action: Change['action'], name: string): Change =>
  ({ key: `prod/Channel/${name}`, action, kind: 'Channel', account: 'prod', name, writeOnly: [], sensitive: [], dependsOn: [], liveDigest: 'absent' }) as Change;

const base: AssembleInput = {
  accounts: [{ name: 'prod', orgAccess: false }],
  changes: [change('create', 'a'), change('create', 'b'), change('delete', 'c'), change('replace', 'd')],
  unmanaged: [{ kind: 'Rule', account: 'prod', name: 'u', id: 'R1' }],
  diagnostics: [],
  budget: [],
};

describe('assemble', () => {
  it('counts each action and the unmanaged resources', () => {
    expect(assemble(frozen({ ...base })).plan!.summary).toEqual({ create: 2, update: 0, replace: 1, delete: 1, unmanaged: 1 });
  });

  it('carries the root settings the plan was read with (apply --plan reads live state the same way), none when empty', () => {
    expect(assemble(frozen({ ...base, settings: { predefinedProfilePrefix: 'ACME_' } })).plan!.settings).toEqual({ predefinedProfilePrefix: 'ACME_' });
    expect(assemble(frozen({ ...base, settings: {} })).plan).not.toHaveProperty('settings');
    expect(assemble(frozen({ ...base })).plan).not.toHaveProperty('settings');
  });

  it('any error → no plan, every diagnostic sorted', () => {
    const r = assemble({
      ...base,
      diagnostics: [
        { severity: 'warning', code: 'w', message: 'later', file: 'b.yaml', line: 1 },
        { severity: 'error', code: 'e', message: 'first', file: 'a.yaml', line: 9 },
      ],
    });
    expect(r.plan).toBeUndefined();
    expect(r.diagnostics.map((d) => d.code)).toEqual(['e', 'w']);
  });

  it('warnings only → a plan that carries them', () => {
    const r = assemble({ ...base, diagnostics: [{ severity: 'warning', code: 'w', message: 'm' }] });
    expect(r.plan!.diagnostics.map((d) => d.code)).toEqual(['w']);
  });

  it.each([
    [undefined, { total: 0, byBucket: {} }],
    [{ total: 2, byBucket: { b: 2 } }, { total: 2, byBucket: { b: 2 } }],
  ])('api calls %j → %j', (apiCalls, expected) => {
    expect(assemble({ ...base, ...(apiCalls ? { apiCalls } : {}) }).plan!.apiCalls).toEqual(expected);
  });

  it('a refusal is carried only when there is one', () => {
    expect('refusal' in assemble(base).plan!).toBe(false);
    expect(assemble({ ...base, refusal: { code: 'in-use', message: 'm', details: [] } }).plan!.refusal?.code).toBe('in-use');
  });
});
