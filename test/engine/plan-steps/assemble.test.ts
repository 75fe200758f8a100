import { describe, expect, it } from 'vitest';
import { assemble, type AssembleInput } from '../../../src/plan/steps/assemble.js';
import { type Change, PLAN_FORMAT_VERSION } from '../../../src/model/plan.js';
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
        { severity: 'warning', code: 'unknown-field', message: 'later', file: 'b.yaml', line: 1 },
        { severity: 'error', code: 'schema-violation', message: 'first', file: 'a.yaml', line: 9 },
      ],
    });
    expect(r.plan).toBeUndefined();
    expect(r.diagnostics.map((d) => d.code)).toEqual(['schema-violation', 'unknown-field']);
  });

  it('warnings only → a plan that carries them', () => {
    const r = assemble({ ...base, diagnostics: [{ severity: 'warning', code: 'unknown-field', message: 'm' }] });
    expect(r.plan!.diagnostics.map((d) => d.code)).toEqual(['unknown-field']);
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

describe('assemble: what the plan carries', () => {
  it('counts updates too, and carries the accounts, changes and unmanaged resources as given', () => {
    const changes = [...base.changes, change('update', 'e'), change('update', 'f')];
    const plan = assemble(frozen({ ...base, changes })).plan!;
    expect(plan.summary).toEqual({ create: 2, update: 2, replace: 1, delete: 1, unmanaged: 1 });
    expect(plan.formatVersion).toBe(PLAN_FORMAT_VERSION);
    expect(plan.accounts).toEqual(base.accounts);
    expect(plan.changes.map((c) => c.name)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(plan.unmanaged).toEqual(base.unmanaged);
    expect(plan.budget).toEqual([]);
  });

  it('a partial plan names its --target selectors (apply refuses to treat it as whole); a whole plan has none', () => {
    expect(assemble(frozen({ ...base, targets: ['prod/Channel/a'] })).plan!.targets).toEqual(['prod/Channel/a']);
    expect(assemble(frozen({ ...base })).plan).not.toHaveProperty('targets');
  });

  it('carries the scope of a shard or --changed-since plan, and the routing before and after', () => {
    const scope = { shard: { index: 1, count: 2 }, skipped: [] };
    const routing = { accounts: ['prod'], changes: [] };
    const plan = assemble(frozen({ ...base, scope, routing })).plan!;
    expect(plan.scope).toEqual(scope);
    expect(plan.routing).toEqual(routing);
    expect(assemble(frozen({ ...base })).plan).not.toHaveProperty('scope');
    expect(assemble(frozen({ ...base })).plan).not.toHaveProperty('routing');
  });

  it('names the kinds the read left out per account, and says nothing when it left none out', () => {
    const unread = [{ account: 'prod', kinds: ['Rule'] }];
    expect(assemble(frozen({ ...base, unread })).plan!.unread).toEqual(unread);
    expect(assemble(frozen({ ...base, unread: [] })).plan).not.toHaveProperty('unread');
  });
});
