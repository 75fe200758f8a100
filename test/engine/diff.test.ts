import { describe, expect, it } from 'vitest';
import { desiredView, diffResource, liveView, sortSets } from '../../src/engine/plan/diff.js';
import type { Kind } from '../../src/kinds/types.js';
import type { JsonObject } from '../../src/model/json.js';
import { MASK } from '../../src/model/env-markers.js';
import { Channel, desired, live } from './plan-fakes.js';

// The fake Channel: a Pager's /data/apiKey is write-only (never returned, never compared).
const pager = (data: Record<string, string>) => ({ type: 'Pager', data });

describe('diff with --rotate: write-only members', () => {
  it('a write-only member the file does not set is neither marked changed nor sent as its mask', () => {
    const diff = diffResource(Channel, desired('Channel', 'pd', pager({ region: 'eu' })), live('Channel', 'pd', 'C1', pager({ region: 'eu' })), true);
    expect(diff.changed).toEqual([]);
    expect(diff.diff).toEqual([]);
    expect(JSON.stringify(diff)).not.toContain(MASK);
  });

  it('a write-only member the file sets counts as changed and is sent, shown only as its mask', () => {
    const d = desired('Channel', 'pd', pager({ region: 'eu', apiKey: 'k-secret' }));
    const absent = diffResource(Channel, d, live('Channel', 'pd', 'C1', pager({ region: 'eu' })), true);
    expect(absent.changed).toEqual(['data']);
    expect(absent.diff).toEqual([{ op: 'add', path: '/data/apiKey', value: MASK }]);
    const present = diffResource(Channel, d, live('Channel', 'pd', 'C1', pager({ region: 'eu', apiKey: MASK })), true);
    expect(present.diff).toEqual([{ op: 'replace', path: '/data/apiKey', value: MASK }]);
    expect(JSON.stringify([absent, present])).not.toContain('k-secret');
  });

  it('without --rotate a write-only member is never compared', () => {
    const diff = diffResource(Channel, desired('Channel', 'pd', pager({ apiKey: 'new' })), live('Channel', 'pd', 'C1', pager({ apiKey: 'old' })));
    expect(diff.changed).toEqual([]);
    expect(diff.diff).toEqual([]);
  });
});

/** A kind built for one rule of the diff at a time. */
function boxKind(over: Partial<Kind>): Kind {
  return { ...Channel, kind: 'Box', replaceOn: [], setPointers: () => [], writeOnly: () => [], sensitive: () => [], ...over };
}
const box = (spec: JsonObject, envRefs?: Record<string, string>) => desired('Box', 'b', spec, envRefs ? { envRefs } : {});
const liveBox = (spec: JsonObject) => live('Box', 'b', 'B1', spec);

describe('diff: set arrays', () => {
  it('sortSets leaves sets already in order as they are, twins included (no copy)', () => {
    const docs: JsonObject[] = [{ tags: ['a', 'b', 'b', 'c'], n: { x: 1 } }, { tags: ['1', '2', '3', '4'] }];
    const out = sortSets(docs, ['/tags']);
    expect(out).toEqual(docs);
    expect(out[0]).toBe(docs[0]);
    expect(out[1]).toBe(docs[1]);
    // One set out of order among ordered ones: only that one moves.
    expect(sortSets([{ a: ['x', 'y'], b: ['2', '1'] }, { a: ['p', 'q'], b: ['s', 't'] }], ['/a', '/b'])).toEqual([
      { a: ['x', 'y'], b: ['1', '2'] },
      { a: ['p', 'q'], b: ['t', 's'] },
    ]);
  });

  it('sortSets orders each set by canonical JSON, equal members by their place, and moves the twins alike; a twin of another shape is left', () => {
    expect(sortSets([{ tags: ['b', 'a', 'b', 'c'] }, { tags: ['1', '2', '3', '4'] }, { tags: 'x' }, { tags: ['only'] }], ['/tags'])).toEqual([
      { tags: ['a', 'b', 'b', 'c'] },
      { tags: ['2', '1', '3', '4'] },
      { tags: 'x' },
      { tags: ['only'] },
    ]);
  });

  it('a nested set is ordered before the set that holds it: the same members in another order are no change', () => {
    const Nested = boxKind({
      setPointers: (s) => ['/groups', ...((s.groups as JsonObject[] | undefined) ?? []).map((_g, i) => `/groups/${i}/tags`)],
    });
    const d = box({ groups: [{ tags: ['z', 'a'] }, { tags: ['b'] }] });
    const diff = diffResource(Nested, d, liveBox({ groups: [{ tags: ['a', 'z'] }, { tags: ['b'] }] }));
    expect(diff.changed).toEqual([]);
    expect(diff.after).toEqual({ groups: [{ tags: ['a', 'z'] }, { tags: ['b'] }] });
  });

  it('the views of a create and a delete show sets in order', () => {
    const Sets = boxKind({ setPointers: () => ['/tags'], unreturned: () => ['/hidden'] });
    expect(desiredView(Sets, box({ tags: ['b', 'a'] }))).toMatchObject({ after: { tags: ['a', 'b'] }, unreturned: ['/hidden'] });
    expect(liveView(Sets, liveBox({ tags: ['b', 'a'] })).before).toEqual({ tags: ['a', 'b'] });
  });
});

describe('diff: members not compared', () => {
  it('write-only members are removed deepest first, so a removed element does not shift another pointer onto the wrong one', () => {
    const Items = boxKind({ writeOnly: () => ['/items/0', '/items/1/key'] });
    const diff = diffResource(Items, box({ items: [{ k: 'w' }, { name: 'n', key: 's1' }] }), liveBox({ items: [{ k: 'w2' }, { name: 'n' }] }));
    expect(diff.changed).toEqual([]);
  });

  it('unreturned members are not compared, and an object left empty by them goes too, not one that still holds something', () => {
    const Unret = boxKind({ unreturned: () => ['/top', '/data/role'] });
    expect(diffResource(Unret, box({ top: 'x' }), liveBox({})).changed).toEqual([]);
    expect(diffResource(Unret, box({ data: { role: 'r' } }), liveBox({})).changed).toEqual([]);
    expect(diffResource(Unret, box({ data: { role: 'r', region: 'eu' } }), liveBox({ data: { region: 'us' } })).changed).toEqual(['data']);
    expect(diffResource(Unret, box({ data: '' }), liveBox({})).changed).toEqual(['data']);
    expect(diffResource(Unret, box({ data: null, n: 1 }), liveBox({ n: 1 })).changed).toEqual([]);
  });

  it('--rotate sends an unreturned member the file sets, and only such a member', () => {
    const Unret = boxKind({ unreturned: () => ['/role'] });
    expect(diffResource(Unret, box({ n: 1 }), liveBox({ n: 1 }), true)).toMatchObject({ changed: [], diff: [] });
    expect(diffResource(Unret, box({ n: 1, role: 'r' }), liveBox({ n: 1 }), true).diff).toEqual([{ op: 'add', path: '/role', value: 'r' }]);
    expect(diffResource(Unret, box({ n: 1, role: 'r' }), liveBox({ n: 1, role: 'old' }), true).diff).toEqual([{ op: 'replace', path: '/role', value: 'r' }]);
  });

  it('an env value the service shows empty inside an open member is a hidden secret; elsewhere, or shown set, it is compared', () => {
    const Open = boxKind({ openMembers: () => ['/data', '/extra'] });
    const env = { '/data/token': '${env:T}', '/plain': '${env:P}' };
    const hidden = diffResource(Open, box({ data: { token: 'new' }, plain: 'p' }, env), liveBox({ data: { token: '' }, plain: '' }));
    expect(hidden.writeOnly).toEqual(['/data/token']);
    const shown = diffResource(Open, box({ data: { token: 'new' }, plain: 'p' }, env), liveBox({ data: { token: 'old' }, plain: 'p' }));
    expect(shown.writeOnly).toEqual([]);
    expect(shown.changed).toEqual(['data']);
  });

  it('a change below a masked member shows only the mask', () => {
    const Masked = boxKind({ sensitive: () => ['/data'] });
    const diff = diffResource(Masked, box({ data: { url: 'new-secret' } }), liveBox({ data: { url: 'old-secret' } }));
    expect(diff.diff).toEqual([{ op: 'replace', path: '/data/url', value: MASK }]);
  });
});
