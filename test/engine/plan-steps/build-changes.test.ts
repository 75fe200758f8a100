import { describe, expect, it } from 'vitest';
import { buildChanges } from '../../../src/plan/steps/build-changes.js';
import { decide } from '../../../src/plan/steps/decide.js';
import type { Decision, Ref } from '../../../src/plan/steps/shared.js';
import type { Kind } from '../../../src/kinds/types.js';
import { literalDigest, MASK } from '../../../src/model/env-markers.js';
import { Channel, desired, live } from '../plan-fakes.js';
import { decisionOf, decisionsOf, frozen, matchOf } from './helpers.js';

const noRefs = frozen(new Map<string, readonly Ref[]>());

describe('build changes', () => {
  it('a create holds the desired spec with a literal secret as a marker (place and digest), its source and an absent digest', () => {
    const d = desired('Channel', 'slack', { type: 'Slack', data: { url: 'secret-url' } }, { line: 3 });
    const [item] = buildChanges(decisionsOf([decisionOf(d, { action: 'create' })]), noRefs, []);
    expect(item.desired).toBe(d);
    // Strict: a member the change does not have is absent, not present as undefined.
    expect(item.change).toStrictEqual({
      key: 'prod/Channel/slack',
      action: 'create',
      kind: 'Channel',
      account: 'prod',
      name: 'slack',
      after: {
        type: 'Slack',
        data: {
          url: {
            $literal: {
              resource: 'prod/Channel/slack',
              pointer: '/data/url',
              at: `${d.source!.file}:3`,
              sha256: literalDigest('prod/Channel/slack', '/data/url', 'secret-url'),
            },
          },
        },
      },
      writeOnly: [],
      sensitive: ['/data/url'],
      dependsOn: [],
      source: d.source,
      liveDigest: 'absent',
    });
  });

  it('an update holds before, after, ops, changed members, the live id and a digest', () => {
    const m = matchOf(desired('Channel', 'ops', { type: 'Webhook', data: { url: 'b' } }), live('Channel', 'ops', 'C1', { type: 'Webhook', data: { url: 'a' } }));
    const [item] = buildChanges(decide([m], new Set()), noRefs, []);
    expect(item.change).toMatchObject({
      action: 'update',
      liveId: 'C1',
      before: { data: { url: 'a' } },
      after: { data: { url: 'b' } },
      diff: [{ op: 'replace', path: '/data/url', value: 'b' }],
      changed: ['data'],
    });
    expect(item.change.liveDigest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('no action → no change; a folded child travels in its parent, with its references', () => {
    const parent = decisionOf(desired('Profile', 'P', { extends: 'X' }), { action: 'create' });
    const child = decisionOf(desired('Template', 'P.t', { subject: 's' }, { parent: 'P' }), { action: 'create', foldedInto: parent.key });
    const still = decisionOf(desired('Channel', 'c', {}));
    const refs = new Map<string, Ref[]>([
      [parent.key, [{ kind: 'Channel', name: 'a', id: 'C1' }]],
      [child.key, [{ kind: 'Channel', name: 'b' }]],
    ]);
    const items = buildChanges(decisionsOf([parent, child, still]), frozen(refs), []);
    expect(items.map((i) => i.change.key)).toEqual(['prod/Profile/P']);
    expect(items[0].change.children).toEqual([{ name: 'P.t', after: { subject: 's' } }]);
    expect(items[0].change.refs).toEqual([
      { kind: 'Channel', name: 'a', id: 'C1' },
      { kind: 'Channel', name: 'b' },
    ]);
  });

  it('deletions come after the writes, with the masked live spec and their reason', () => {
    const gone = live('Channel', 'old', 'C9', { type: 'Slack', data: { url: 'secret-url' } });
    const items = buildChanges(
      decisionsOf([decisionOf(desired('Channel', 'new', {}), { action: 'create' })]),
      noRefs,
      frozen([{ live: gone, kind: Channel, reason: 'because', reasonCode: 'delete-because-not-in-parent' as const }]),
    );
    expect(items.map((i) => [i.change.action, i.change.key])).toEqual([
      ['create', 'prod/Channel/new'],
      ['delete', 'prod/Channel/old'],
    ]);
    expect(items[1].live).toBe(gone);
    expect(items[1].change).toMatchObject({
      liveId: 'C9',
      before: { type: 'Slack', data: { url: MASK } },
      reason: 'because',
      reasonCode: 'delete-because-not-in-parent',
      dependsOn: [],
    });
    expect(items[1].change.after).toBeUndefined();
  });
});

describe('build changes: who last changed the live record', () => {
  const lastChange = { by: 'second@example.com', at: '2026-11-22T10:00:00.000Z' };
  it('an update and a delete carry it; a create has no live record to name', () => {
    const l = { ...live('Channel', 'ops', 'C1', { type: 'Webhook', data: { url: 'a' } }), lastChange };
    const [update] = buildChanges(decide([matchOf(desired('Channel', 'ops', { type: 'Webhook', data: { url: 'b' } }), l)], new Set()), noRefs, []);
    expect(update.change.lastChange).toEqual(lastChange);
    const [del] = buildChanges(decisionsOf([]), noRefs, [
      { live: { ...l, name: 'old' }, kind: Channel, reason: 'not declared', reasonCode: 'delete-because-not-declared' },
    ]);
    expect(del.change.lastChange).toEqual(lastChange);
    const [create] = buildChanges(decisionsOf([decisionOf(desired('Channel', 'new', { type: 'Webhook', data: { url: 'b' } }), { action: 'create' })]), noRefs, []);
    expect(create.change).not.toHaveProperty('lastChange');
  });
});

describe('build changes: what each action carries', () => {
  const hook = (url: string) => ({ type: 'Webhook', data: { url } });
  const l = { ...live('Channel', 'ops', 'C1', hook('a')), lastChange: { by: 'x@example.com', at: '2026-11-22T10:00:00.000Z' } };
  const updated = (): Decision => decide([matchOf(desired('Channel', 'ops', hook('b')), l)], new Set()).get('prod/Channel/ops')!;

  it('a create writes the desired spec whole even when a live twin and its diff ride along: no before, ops, live digest or last change', () => {
    const u = updated();
    const [item] = buildChanges(decisionsOf([{ ...u, action: 'create' }]), noRefs, []);
    expect(item.change.after).toEqual(hook('b'));
    for (const member of ['before', 'diff', 'changed', 'lastChange']) expect(item.change).not.toHaveProperty(member);
    expect(item.change.liveDigest).toBe('absent');
  });

  it('a replace or update decided without a diff shows the desired spec (nothing to compare it with)', () => {
    const [item] = buildChanges(decisionsOf([decisionOf(desired('Channel', 'ops', hook('b')), { action: 'replace', live: l })]), noRefs, []);
    expect(item.change).toMatchObject({ action: 'replace', liveId: 'C1', after: hook('b') });
    expect(item.change).not.toHaveProperty('before');
    expect(item.change).not.toHaveProperty('diff');
  });

  it('a kind whose create issues a credential says so on a create and a replace only', () => {
    const Issued: Kind = {
      ...Channel,
      credentials: {
        ...Channel.credentials,
        issuedNote: 'the service issues a new secret',
      },
    };
    const note = (action: 'create' | 'replace' | 'update', kind: Kind = Issued) => {
      const u = updated();
      const [item] = buildChanges(decisionsOf([{ ...u, kind, action }]), noRefs, []);
      return item.change.issued;
    };
    expect([note('create'), note('replace'), note('update'), note('create', Channel)]).toEqual([
      'the service issues a new secret',
      'the service issues a new secret',
      undefined,
      undefined,
    ]);
  });

  it('an update names the members it withholds (shown masked or empty, never sent back); a replace or an update withholding nothing does not', () => {
    const u = updated();
    const withheld = { ...u, diff: { ...u.diff!, withheld: ['/data/token'] } };
    const change = (d: Decision) => buildChanges(decisionsOf([d]), noRefs, [])[0].change;
    expect(change(withheld).withheld).toEqual(['/data/token']);
    expect(change({ ...withheld, action: 'replace' })).not.toHaveProperty('withheld');
    expect(change(u)).not.toHaveProperty('withheld');
  });

  it('carries the reason a decision gives, the old name of a rename, the parent, and the names of coded values', () => {
    const Coded: Kind = { ...Channel, compare: { ...Channel.compare, valueNames: () => [{ pointer: '/type', names: { 1: 'one' } }] } };
    const u = updated();
    const child = decisionOf(desired('Template', 'P.t', {}, { parent: 'P' }), { action: 'create' });
    const items = buildChanges(decisionsOf([{ ...u, kind: Coded, reason: 'why', reasonCode: 'replace-because-cannot-update', renamedFrom: 'old' }, child]), noRefs, []);
    expect(items[0].change).toMatchObject({
      reason: 'why',
      reasonCode: 'replace-because-cannot-update',
      renamedFrom: 'old',
      valueNames: [{ pointer: '/type', names: { 1: 'one' } }],
    });
    expect(items[1].change.parent).toBe('P');
    expect(items[1].change).not.toHaveProperty('valueNames');
    expect(items[1].change).not.toHaveProperty('reason');
    expect(items[1].change).not.toHaveProperty('reasonCode');
  });

  it('a decision with a reason code but no message carries the code and an empty reason, never an invented one', () => {
    const [item] = buildChanges(decisionsOf([{ ...updated(), reasonCode: 'update-because-reference-replaced' }]), noRefs, []);
    expect(item.change).toMatchObject({ reasonCode: 'update-because-reference-replaced', reason: '' });
  });

  it('a delete has no parent member unless its live resource has a parent', () => {
    const [del] = buildChanges(decisionsOf([]), noRefs, [
      { live: live('Channel', 'old', 'C9', {}), kind: Channel, reason: 'r', reasonCode: 'delete-because-not-declared' },
    ]);
    expect(del.change).not.toHaveProperty('parent');
    const [child] = buildChanges(decisionsOf([]), noRefs, [
      { live: live('Template', 'P.t', 'T1', {}, { parent: 'P' }), kind: Channel, reason: 'r', reasonCode: 'delete-because-not-declared' },
    ]);
    expect(child.change.parent).toBe('P');
  });
});
