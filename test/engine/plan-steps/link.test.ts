import { describe, expect, it } from 'vitest';
import { link } from '../../../src/plan/steps/link.js';
import { deleteChange, writeChange } from '../../../src/plan/steps/build-changes.js';
import type { PlannedChange } from '../../../src/plan/core/order.js';
import type { DesiredResource, LiveResource } from '../../../src/model/resource.js';
import { Channel, desired, FAKE_KINDS, live, Rule } from '../plan-fakes.js';
import { decisionOf, frozen } from './helpers.js';

const create = (d: DesiredResource): PlannedChange => ({ change: writeChange(decisionOf(d, { action: 'create' }), [], new Map()), desired: d });
const remove = (l: LiveResource): PlannedChange => ({ change: deleteChange(l, Channel, 'not declared; prune is on for Channel', 'delete-because-not-declared'), live: l });
const spec = { type: 'Slack', data: { url: 'https://x' } };

describe('link', () => {
  it('same kind, name and spec deleted in one account and created in another → a move, both ways', () => {
    const r = link(frozen([create(desired('Channel', 'c', spec, { account: 'staging' })), remove(live('Channel', 'c', 'C1', spec))]), FAKE_KINDS);
    expect(r.items.map((i) => [i.change.key, i.change.movedFrom, i.change.movedTo])).toEqual([
      ['staging/Channel/c', 'prod/Channel/c', undefined],
      ['prod/Channel/c', undefined, 'staging/Channel/c'],
    ]);
    expect(r.diagnostics).toEqual([]);
  });

  it('another spec, or another name across accounts → no link', () => {
    const r = link(
      [
        create(desired('Channel', 'c', { ...spec, data: { url: 'https://y' } }, { account: 'staging' })),
        remove(live('Channel', 'c', 'C1', spec)),
        create(desired('Channel', 'd', spec, { account: 'staging' })),
      ],
      FAKE_KINDS,
    );
    expect(r.items.map((i) => [i.change.movedFrom, i.change.movedTo, i.change.sameSpecAs])).toEqual([
      [undefined, undefined, undefined],
      [undefined, undefined, undefined],
      [undefined, undefined, undefined],
    ]);
  });

  it('same account, another name, same spec → linked with a previousNames hint', () => {
    const r = link([create(desired('Channel', 'new', spec)), remove(live('Channel', 'old', 'C1', spec))], FAKE_KINDS);
    expect(r.items.map((i) => i.change.sameSpecAs)).toEqual(['prod/Channel/old', 'prod/Channel/new']);
    expect(r.diagnostics.map((d) => [d.severity, d.code])).toEqual([['warning', 'looks-renamed']]);
    expect(r.diagnostics[0].hint).toContain('previousNames: [old]');
  });

  it('two equal candidates → no guess', () => {
    const r = link([create(desired('Channel', 'new', spec)), remove(live('Channel', 'old1', 'C1', spec)), remove(live('Channel', 'old2', 'C2', spec))], FAKE_KINDS);
    expect(r.items.every((i) => i.change.sameSpecAs === undefined)).toBe(true);
    expect(r.diagnostics).toEqual([]);
  });
});

describe('link: only unambiguous pairs of top-level creates and deletes of one kind', () => {
  const moved = (items: PlannedChange[]) => link(frozen(items), FAKE_KINDS).items.map((i) => [i.change.key, i.change.movedFrom ?? i.change.movedTo ?? i.change.sameSpecAs ?? null]);

  it('a move is found among unrelated creates and deletes, and a look-alike in the target account does not hide it', () => {
    expect(
      moved([
        create(desired('Channel', 'c', spec, { account: 'staging' })),
        create(desired('Channel', 'other', { type: 'Webhook', data: { url: 'https://o' } })),
        remove(live('Channel', 'c', 'C1', spec)),
        remove(live('Channel', 'z', 'C2', { type: 'Webhook', data: { url: 'https://z' } })),
        remove(live('Channel', 'old', 'C3', spec, { account: 'staging' })),
      ]),
    ).toEqual([
      ['staging/Channel/c', 'prod/Channel/c'],
      ['prod/Channel/other', null],
      ['prod/Channel/c', 'staging/Channel/c'],
      ['prod/Channel/z', null],
      ['staging/Channel/old', null],
    ]);
  });

  it('a create of the same spec that is no move candidate does not stand in the way of the move', () => {
    expect(moved([create(desired('Channel', 'c', spec, { account: 'staging' })), create(desired('Channel', 'new2', spec)), remove(live('Channel', 'c', 'C1', spec))])).toEqual([
      ['staging/Channel/c', 'prod/Channel/c'],
      ['prod/Channel/new2', null],
      ['prod/Channel/c', 'staging/Channel/c'],
    ]);
  });

  it('a child is never paired with a top-level resource of the same spec', () => {
    const childCreate = (d: DesiredResource) => ({ ...create(d), change: { ...create(d).change, parent: 'P' } });
    const childDelete = (l: LiveResource) => ({ ...remove(l), change: { ...remove(l).change, parent: 'P' } });
    expect(moved([childCreate(desired('Channel', 'new', spec)), remove(live('Channel', 'old', 'C1', spec))]).map(([, to]) => to)).toEqual([null, null]);
    expect(moved([create(desired('Channel', 'new', spec)), childDelete(live('Channel', 'old', 'C1', spec))]).map(([, to]) => to)).toEqual([null, null]);
  });

  it('two creates that could each be the move of one delete → no guess', () => {
    const r = moved([create(desired('Channel', 'c', spec, { account: 'staging' })), create(desired('Channel', 'c', spec, { account: 'dev' })), remove(live('Channel', 'c', 'C1', spec))]);
    expect(r.map(([, to]) => to)).toEqual([null, null, null]);
  });

  it('children, updates, other kinds and kinds not registered are never paired', () => {
    const child = (l: LiveResource) => ({ ...remove(l), change: { ...remove(l).change, parent: 'P' } });
    const childCreate = (d: DesiredResource) => ({ ...create(d), change: { ...create(d).change, parent: 'P' } });
    const update = (l: LiveResource): PlannedChange => ({ change: { ...remove(l).change, action: 'update' }, live: l, desired: desired('Channel', l.name, l.spec) });
    const rule = (l: LiveResource): PlannedChange => ({ change: deleteChange(l, Rule, 'x', 'delete-because-not-declared'), live: l });
    const nope = (l: LiveResource): PlannedChange => ({ change: { ...remove(l).change, kind: 'Nope', key: `prod/Nope/${l.name}` }, live: l });
    const nopeCreate = (d: DesiredResource): PlannedChange => ({ ...create(d), change: { ...create(d).change, kind: 'Nope', key: `staging/Nope/${d.name}` } });
    expect(moved([childCreate(desired('Channel', 'P.a', spec)), child(live('Channel', 'P.b', 'C1', spec))]).map(([, to]) => to)).toEqual([null, null]);
    expect(moved([create(desired('Channel', 'new', spec)), update(live('Channel', 'old', 'C1', spec))]).map(([, to]) => to)).toEqual([null, null]);
    expect(moved([update(live('Channel', 'c', 'C1', spec, { account: 'staging' })), remove(live('Channel', 'c', 'C2', spec))]).map(([, to]) => to)).toEqual([null, null]);
    expect(moved([create(desired('Channel', 'c', {}, { account: 'staging' })), rule(live('Rule', 'c', 'R1', {}))]).map(([, to]) => to)).toEqual([null, null]);
    expect(moved([nopeCreate(desired('Channel', 'n', {}, { account: 'staging' })), nope(live('Channel', 'n', 'N1', {}))]).map(([, to]) => to)).toEqual([null, null]);
  });

  it('the look-alike warning says what happens and how to keep the id', () => {
    const r = link([create(desired('Channel', 'new', spec, { line: 9 })), remove(live('Channel', 'old', 'C1', spec))], FAKE_KINDS);
    expect(r.diagnostics).toEqual([
      {
        severity: 'warning',
        code: 'looks-renamed',
        message: 'Channel new is created and old deleted in account prod with the same spec: a new id, and whatever refers to old must follow',
        file: 'config/resources.yaml',
        line: 9,
        column: 1,
        hint: 'to rename it in place (same id), add `previousNames: [old]` to the document of new',
      },
    ]);
  });
});
