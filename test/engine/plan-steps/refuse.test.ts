import { describe, expect, it } from 'vitest';
import { combine, preventDestroyRefusal, refuse, type RefuseInput } from '../../../src/plan/steps/refuse.js';
import type { Refusal } from '../../../src/model/plan.js';
import { deleteChange } from '../../../src/plan/steps/build-changes.js';
import { Channel, FAKE_KINDS, live } from '../plan-fakes.js';

const channels = Array.from({ length: 10 }, (_, i) => live('Channel', `c${i}`, `C${i}`, {}));
const rule = live('Rule', 'r', 'R1', { channels: ['c0'] });

function input(deleted: number, force = false): RefuseInput {
  const items = channels.slice(0, deleted).map((l) => ({ change: deleteChange(l, Channel, 'x', 'delete-because-not-declared'), live: l }));
  return { items, changes: items.map((i) => i.change), live: [...channels, rule], declared: new Set(), kinds: FAKE_KINDS, accountOrder: ['prod'], force };
}

describe('refuse', () => {
  it.each([
    [0, false, undefined],
    [1, false, 'in-use'],
    [4, false, 'in-use'],
    [4, true, undefined],
  ])('%i of 10 channels deleted, force %s → %s', (deleted, force, code) => {
    expect(refuse(input(deleted, force))?.code).toBe(code);
  });

  it('in use and over the thresholds → every reason in one refusal', () => {
    const r = refuse(input(4))!;
    expect(r.code).toBe('in-use');
    expect(r.message).toContain('; also, ');
    expect(r.details).toEqual([
      'prod/Channel/c0 (delete) is still used by Rule r (not declared in this configuration)',
      'prod: 4 of 11 live (36%) of the account deleted, more than 30% (4 delete, 0 update, 0 replace)',
      'prod/Channel: 4 of 10 live (40%) deleted, more than 30% (4 delete, 0 update, 0 replace)',
    ]);
  });

  it('passes the root file\'s thresholds on', () => {
    expect(refuse({ ...input(4), safety: { deletePercent: 50 } })?.details).toHaveLength(1);
  });
});

describe('combine', () => {
  const a: Refusal = { code: 'in-use', message: 'A', details: ['a'] };
  const b: Refusal = { code: 'safety-threshold', message: 'B', details: ['b'] };
  it.each([
    [undefined, undefined, undefined],
    [a, undefined, a],
    [undefined, b, b],
    [a, b, { code: 'in-use', message: 'A; also, B', details: ['a', 'b'] }],
  ])('%# combines', (first, second, expected) => {
    expect(combine(first, second)).toEqual(expected);
  });
});

describe('refuse: lifecycle.preventDestroy', () => {
  const one = (extra: Partial<RefuseInput>): RefuseInput => ({ ...input(1), live: channels, ...extra });

  it.each([false, true])('deleting a preventDestroy resource is refused, force %s', (force) => {
    const r = refuse(one({ force, preventDestroy: new Set(['prod/Channel/c0']) }))!;
    expect(r.code).toBe('prevent-destroy');
    expect(r.details).toEqual(['prod/Channel/c0 (delete)']);
    expect(r.message).toContain('--force does not override');
  });

  it('the delete of a move or of a look-alike create whose document says preventDestroy is refused too', () => {
    const change = { ...deleteChange(channels[0], Channel, 'x', 'delete-because-not-declared'), movedTo: 'staging/Channel/c0' };
    const r = refuse(one({ items: [{ change, live: channels[0] }], changes: [change], force: true, preventDestroy: new Set(['staging/Channel/c0']) }))!;
    expect(r.details).toEqual(['prod/Channel/c0 (delete; its document is now staging/Channel/c0)']);
  });

  it('other resources with preventDestroy do not refuse; the other checks still apply without force', () => {
    expect(refuse(one({ preventDestroy: new Set(['prod/Channel/c5']), force: true }))).toBeUndefined();
    expect(refuse(one({ live: channels, preventDestroy: new Set(['prod/Channel/c5']) }))).toBeUndefined();
  });

  it('comes first when combined with a refusal that --force overrides', () => {
    const r = refuse({ ...input(4), preventDestroy: new Set(['prod/Channel/c1']) })!;
    expect(r.code).toBe('prevent-destroy');
    expect(r.details[0]).toBe('prod/Channel/c1 (delete)');
    expect(r.details.length).toBe(4); // preventDestroy, in use, the account and the kind thresholds
  });
});

describe('refuse: preventDestroy only guards against losing the resource', () => {
  it('creating or updating a preventDestroy resource is not refused; deleting two says "2 resources", one "a resource"', () => {
    const updated = { ...deleteChange(channels[0], Channel, 'x', 'delete-because-not-declared'), action: 'update' as const };
    const created = { ...deleteChange(channels[1], Channel, 'x', 'delete-because-not-declared'), action: 'create' as const };
    const keys = new Set(['prod/Channel/c0', 'prod/Channel/c1']);
    expect(preventDestroyRefusal([updated, created], keys)).toBeUndefined();
    const two = preventDestroyRefusal([deleteChange(channels[0], Channel, 'x', 'delete-because-not-declared'), { ...deleteChange(channels[1], Channel, 'x', 'delete-because-not-declared'), action: 'replace' }], keys)!;
    expect(two.message).toBe('the plan deletes or replaces 2 resources whose lifecycle says preventDestroy; --force does not override this');
    expect(two.details).toEqual(['prod/Channel/c0 (delete)', 'prod/Channel/c1 (replace)']);
    expect(preventDestroyRefusal([deleteChange(channels[0], Channel, 'x', 'delete-because-not-declared')], keys)!.message).toBe(
      'the plan deletes or replaces a resource whose lifecycle says preventDestroy; --force does not override this',
    );
  });
});
