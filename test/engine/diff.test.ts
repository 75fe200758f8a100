import { describe, expect, it } from 'vitest';
import { desiredView, diffResource, fixedMembers, liveView, sortSets } from '../../src/plan/core/diff.js';
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
function boxKind(over: Pick<Kind, 'compare' | 'secrets'>): Kind {
  return {
    ...Channel,
    kind: 'Box',
    compare: { replaceOn: [], setPointers: () => [], ...over.compare },
    secrets: { ...Channel.secrets!, writeOnly: () => [], sensitive: () => [], ...over.secrets },
  };
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
    expect(
      sortSets(
        [
          { a: ['x', 'y'], b: ['2', '1'] },
          { a: ['p', 'q'], b: ['s', 't'] },
        ],
        ['/a', '/b'],
      ),
    ).toEqual([
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

  it('sortSets orders a large set with its twin, equal members by their place', () => {
    // 200 members, 50 values each four times, in a scrambled order; the twin records each member's place.
    const members = Array.from({ length: 200 }, (_, i) => `v${String((i * 37) % 50).padStart(2, '0')}`);
    const places = members.map((_, i) => i);
    const [sorted, twin] = sortSets([{ tags: members }, { tags: places }], ['/tags']);
    const expected = places.map((i) => ({ v: members[i], i })).sort((a, b) => (a.v < b.v ? -1 : a.v > b.v ? 1 : a.i - b.i));
    expect(sorted.tags).toEqual(expected.map((x) => x.v));
    expect(twin.tags).toEqual(expected.map((x) => x.i));
  });

  it('a nested set is ordered before the set that holds it: the same members in another order are no change', () => {
    const Nested = boxKind({
      compare: { setPointers: (s) => ['/groups', ...((s.groups as JsonObject[] | undefined) ?? []).map((_g, i) => `/groups/${i}/tags`)] },
    });
    const d = box({ groups: [{ tags: ['z', 'a'] }, { tags: ['b'] }] });
    const diff = diffResource(Nested, d, liveBox({ groups: [{ tags: ['a', 'z'] }, { tags: ['b'] }] }));
    expect(diff.changed).toEqual([]);
    expect(diff.after).toEqual({ groups: [{ tags: ['a', 'z'] }, { tags: ['b'] }] });
  });

  it('the views of a create and a delete show sets in order', () => {
    const Sets = boxKind({ compare: { setPointers: () => ['/tags'] }, secrets: { unreturned: () => ['/hidden'] } });
    expect(desiredView(Sets, box({ tags: ['b', 'a'] }))).toMatchObject({ after: { tags: ['a', 'b'] }, unreturned: ['/hidden'] });
    expect(liveView(Sets, liveBox({ tags: ['b', 'a'] })).before).toEqual({ tags: ['a', 'b'] });
  });
});

describe('diff: members not compared', () => {
  it('write-only members are removed deepest first, so a removed element does not shift another pointer onto the wrong one', () => {
    const Items = boxKind({ secrets: { writeOnly: () => ['/items/0', '/items/1/key'] } });
    const diff = diffResource(Items, box({ items: [{ k: 'w' }, { name: 'n', key: 's1' }] }), liveBox({ items: [{ k: 'w2' }, { name: 'n' }] }));
    expect(diff.changed).toEqual([]);
  });

  it('unreturned members are not compared, and an object left empty by them goes too, not one that still holds something', () => {
    const Unret = boxKind({ secrets: { unreturned: () => ['/top', '/data/role'] } });
    expect(diffResource(Unret, box({ top: 'x' }), liveBox({})).changed).toEqual([]);
    expect(diffResource(Unret, box({ data: { role: 'r' } }), liveBox({})).changed).toEqual([]);
    expect(diffResource(Unret, box({ data: { role: 'r', region: 'eu' } }), liveBox({ data: { region: 'us' } })).changed).toEqual(['data']);
    expect(diffResource(Unret, box({ data: '' }), liveBox({})).changed).toEqual(['data']);
    expect(diffResource(Unret, box({ data: null, n: 1 }), liveBox({ n: 1 })).changed).toEqual([]);
  });

  it('--rotate sends an unreturned member the file sets, and only such a member', () => {
    const Unret = boxKind({ secrets: { unreturned: () => ['/role'] } });
    expect(diffResource(Unret, box({ n: 1 }), liveBox({ n: 1 }), true)).toMatchObject({ changed: [], diff: [] });
    expect(diffResource(Unret, box({ n: 1, role: 'r' }), liveBox({ n: 1 }), true).diff).toEqual([{ op: 'add', path: '/role', value: 'r' }]);
    expect(diffResource(Unret, box({ n: 1, role: 'r' }), liveBox({ n: 1, role: 'old' }), true).diff).toEqual([{ op: 'replace', path: '/role', value: 'r' }]);
  });

  it('an env value the service shows empty inside an open member is a hidden secret; elsewhere, or shown set, it is compared', () => {
    const Open = boxKind({ compare: { openMembers: () => ['/data', '/extra'] } });
    const env = { '/data/token': '${env:T}', '/plain': '${env:P}' };
    const hidden = diffResource(Open, box({ data: { token: 'new' }, plain: 'p' }, env), liveBox({ data: { token: '' }, plain: '' }));
    expect(hidden.writeOnly).toEqual(['/data/token']);
    const shown = diffResource(Open, box({ data: { token: 'new' }, plain: 'p' }, env), liveBox({ data: { token: 'old' }, plain: 'p' }));
    expect(shown.writeOnly).toEqual([]);
    expect(shown.changed).toEqual(['data']);
  });

  it('a change below a masked member shows only the mask', () => {
    const Masked = boxKind({ secrets: { sensitive: () => ['/data'] } });
    const diff = diffResource(Masked, box({ data: { url: 'new-secret' } }), liveBox({ data: { url: 'old-secret' } }));
    expect(diff.diff).toEqual([{ op: 'replace', path: '/data/url', value: MASK }]);
  });
});

describe('diff: a secret inside an element of a set array', () => {
  // The service lists set elements in an order of its own: a pointer found on the desired side
  // (here a value the file takes from the environment) may sit at another index on the live side.
  const Creds = boxKind({ compare: { setPointers: (s) => (Array.isArray(s.creds) ? ['/creds'] : []) } });
  const env = { '/creds/0/token': '${env:TOKEN_A}' };
  const file = box(
    {
      creds: [
        { name: 'a', token: 'new-a' },
        { name: 'b', token: 'plain-b' },
      ],
    },
    env,
  );

  it('the live value the service echoes is masked in the plan whichever element holds it', () => {
    const diff = diffResource(
      Creds,
      file,
      liveBox({
        creds: [
          { name: 'b', token: 'plain-b' },
          { name: 'a', token: 'echoed-secret-a' },
        ],
      }),
    );
    expect(JSON.stringify(diff)).not.toContain('echoed-secret-a');
    expect(diff.before).toEqual({
      creds: [
        { name: 'a', token: MASK },
        { name: 'b', token: MASK },
      ],
    });
    expect(diff.after).toEqual({
      creds: [
        { name: 'a', token: { $env: '${env:TOKEN_A}' } },
        { name: 'b', token: 'plain-b' },
      ],
    });
  });

  it('a live spec without the set array keeps the pointer as it is, and one outside any set is masked where it is', () => {
    const diff = diffResource(Creds, box({ creds: [{ name: 'a', token: 'x' }], url: 'u' }, { ...env, '/url': '${env:URL}' }), liveBox({ url: 'echoed-url' }));
    expect(diff.before).toEqual({ url: MASK });
    expect(diff.changed).toEqual(['creds', 'url']);
    const both = diffResource(
      Creds,
      box({ creds: [{ name: 'a', token: 'x' }], url: 'u' }, { ...env, '/url': '${env:URL}' }),
      liveBox({ creds: [{ name: 'a', token: 't' }], url: 'echoed-url' }),
    );
    expect(JSON.stringify(both)).not.toContain('echoed-url');
    expect(both.before).toEqual({ creds: [{ name: 'a', token: MASK }], url: MASK });
  });
});

describe('diff: an env value inside an object that looks like a marker', () => {
  it('is placed as an env marker, never its value: only marker-shaped objects off the env pointers are wrapped as data', () => {
    const view = desiredView(boxKind({}), box({ data: { $literal: 'the-secret-value' }, note: { $env: 'x' } }, { '/data/$literal': '${env:HOOK}' }));
    expect(JSON.stringify(view.after)).not.toContain('the-secret-value');
    expect(view.after).toMatchObject({ data: { $literal: { $env: '${env:HOOK}' } }, note: { $data: { $env: 'x' } } });
  });
});

describe('diff: a kind that opts into part of a capability', () => {
  // Kind's secrets and compare members are each optional: a kind lists what it has.
  const partial = (secrets: Kind['secrets'], compare: Kind['compare'] = { setPointers: () => [] }): Kind => ({ ...Channel, kind: 'Box', compare, secrets });

  it('secrets with sensitive members only: nothing is write-only, the sensitive ones masked', () => {
    const kind = partial({ sensitive: () => ['/url'] });
    const view = desiredView(kind, box({ url: 'https://x.example/hook', n: 1 }));
    expect(view.writeOnly).toEqual([]);
    expect(view.sensitive).toEqual(['/url']);
    expect(JSON.stringify(view.after)).not.toContain('https://x.example/hook');
    expect(liveView(kind, liveBox({ url: 'https://x.example/hook' })).before).toEqual({ url: MASK });
    const diff = diffResource(kind, box({ url: 'https://x.example/new', n: 2 }), liveBox({ url: 'https://x.example/old', n: 1 }));
    expect(diff.writeOnly).toEqual([]);
    expect(diff.changed).toEqual(['n', 'url']);
    expect(JSON.stringify([diff.before, diff.after, diff.diff])).not.toMatch(/x\.example/);
  });

  it('secrets with write-only members only: nothing is sensitive, the write-only ones never compared', () => {
    const kind = partial({ writeOnly: () => ['/token'] });
    const view = desiredView(kind, box({ token: 't0ken-value', n: 1 }));
    expect(view.sensitive).toEqual([]);
    expect(view.writeOnly).toEqual(['/token']);
    expect(liveView(kind, liveBox({ token: 'shown' })).sensitive).toEqual([]);
    const diff = diffResource(kind, box({ token: 'new-t0ken', n: 1 }), liveBox({ token: 'old-t0ken', n: 1 }));
    expect(diff.sensitive).toEqual([]);
    expect(diff.changed).toEqual([]);
  });

  it('a kind without replaceOn or replaceWhen has no fixed member; each lists its own', () => {
    expect(fixedMembers(partial({}, {}), { type: 'a' }, { type: 'b' })).toEqual([]);
    expect(fixedMembers(partial({}, { replaceOn: ['type'] }), { type: 'a' }, { type: 'b' })).toEqual(['type']);
    expect(fixedMembers(partial({}, { replaceWhen: () => ['region'] }), {}, {})).toEqual(['region']);
  });
});

describe('diff: set pointers deepest first, whatever order the kind lists them in', () => {
  const nested = (pointers: (spec: JsonObject) => string[]) => boxKind({ compare: { replaceOn: [], setPointers: pointers } });

  it('an inner set is ordered before the outer set that holds it (the kind lists the outer first)', () => {
    const view = desiredView(nested(() => ['/outer', '/outer/0/inner']), box({ outer: [{ inner: ['z', 'a'] }, { inner: ['b'] }] }));
    expect(view.after.outer).toEqual([{ inner: ['a', 'z'] }, { inner: ['b'] }]);
  });

  it('so with three pointers, the last two in order among themselves', () => {
    const view = desiredView(nested(() => ['/outer', '/outer/0/inner', '/outer/1/inner']), box({ outer: [{ inner: ['z', 'a'] }, { inner: ['c', 'b'] }] }));
    expect(view.after.outer).toEqual([{ inner: ['a', 'z'] }, { inner: ['b', 'c'] }]);
  });

  it("the live side's sets count too: a set only the live spec holds is shown in order", () => {
    const kind = nested((spec) => (Array.isArray(spec.labels) && spec.labels.length > 1 ? ['/labels'] : []));
    const diff = diffResource(kind, box({ labels: ['c'] }), liveBox({ labels: ['b', 'a'] }));
    expect(diff.before.labels).toEqual(['a', 'b']);
  });

  it('a set pointer the spec does not hold changes nothing', () => {
    const view = desiredView(nested(() => ['/missing', '/n']), box({ n: 1, tags: ['b', 'a'] }));
    expect(view.after).toEqual({ n: 1, tags: ['b', 'a'] });
  });
});
