import { describe, expect, it } from 'vitest';
import { link } from '../../../src/engine/plan/steps/link.js';
import { deleteChange, writeChange } from '../../../src/engine/plan/steps/build-changes.js';
import type { PlannedChange } from '../../../src/engine/plan/order.js';
import type { DesiredResource, LiveResource } from '../../../src/model/resource.js';
import { Channel, desired, FAKE_KINDS, live } from '../plan-fakes.js';
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
