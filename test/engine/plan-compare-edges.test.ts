// planDifferences and differingPointers at their edges, in-process: values of different shapes
// always differ (never a crash, never "equal"), and each message form names the member exactly.

import { describe, expect, it } from 'vitest';
import { differingPointers, planDifferences } from '../../src/engine/plan-compare.js';
import type { Change, Plan } from '../../src/model/plan.js';

function change(over: Partial<Change> = {}): Change {
  return {
    key: 'prod/AlertChannel/a',
    action: 'update',
    kind: 'AlertChannel',
    account: 'prod',
    name: 'a',
    liveId: 'PROD_a',
    after: { type: 'Webhook', data: { n: 1 } },
    writeOnly: [],
    sensitive: [],
    dependsOn: [],
    liveDigest: 'digest-a',
    ...over,
  };
}

const planOf = (changes: Change[], accounts: Plan['accounts'] = [{ name: 'prod', orgAccess: false }]): Plan => ({
  formatVersion: 1,
  accounts,
  changes,
  summary: { create: 0, update: changes.length, replace: 0, delete: 0, unmanaged: 0 },
  unmanaged: [],
  diagnostics: [],
  apiCalls: { total: 0, byBucket: {} },
  budget: [],
});

const diff = (saved: Partial<Change>): string[] => planDifferences(planOf([change(saved)]), planOf([change()]));
const WHERE = 'update "prod/AlertChannel/a"';

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
    const { liveId: _, ...noLiveId } = change();
    expect(planDifferences(planOf([noLiveId as Change]), planOf([change()]))).toEqual([
      `${WHERE}: liveId is absent in the saved plan, "PROD_a" when derived again`,
    ]);
    expect(diff({ account: 7 as unknown as string })).toEqual([`${WHERE}: account is 7 in the saved plan, "prod" when derived again`]);
  });

  it('a member missing from one side, or of another shape, is named without its value', () => {
    expect(diff({ replaces: 'x' } as Partial<Change>)).toEqual([`${WHERE}: replaces differs (not in the derived plan)`]);
    const { after: _, ...noAfter } = change();
    expect(planDifferences(planOf([noAfter as Change]), planOf([change()]))).toEqual([`${WHERE}: after differs (missing from the saved plan)`]);
    expect(diff({ after: 'x' as never })).toEqual([`${WHERE}: after differs`]);
  });

  it('pointers are listed up to 5, the rest counted', () => {
    const data = (v: number) => ({ type: 'Webhook', data: { a: v, b: v, c: v, d: v, e: v, f: v, g: v } });
    expect(planDifferences(planOf([change({ after: data(2) })]), planOf([change({ after: data(1) })]))).toEqual([`${WHERE}: after differs at /data/a, /data/b, /data/c, /data/d, /data/e (and 2 more)`]);
    const five = { type: 'Webhook', data: { a: 2, b: 2, c: 2, d: 2, e: 2 } };
    expect(planDifferences(planOf([change({ after: five })]), planOf([change({ after: { type: 'Webhook', data: { a: 1, b: 1, c: 1, d: 1, e: 1 } } })]))).toEqual([
      `${WHERE}: after differs at /data/a, /data/b, /data/c, /data/d, /data/e`,
    ]);
  });

  it("an account whose settings differ from the repository's names each differing setting", () => {
    const saved = planOf([], [{ name: 'prod', orgAccess: true, extra: 1 } as Plan['accounts'][number]]);
    expect(planDifferences(saved, planOf([]))).toEqual([
      `account "prod": its settings in the saved plan differ from the repository's (/orgAccess, /extra)`,
    ]);
  });
});
