import { describe, expect, it } from 'vitest';
import { fold } from '../../../src/plan/steps/fold.js';
import type { Kind } from '../../../src/kinds/types.js';
import type { Action } from '../../../src/model/plan.js';
import { desired, FAKE_KINDS, Profile } from '../plan-fakes.js';
import { decisionOf, decisionsOf } from './helpers.js';

const template = decisionOf(desired('Template', 'P.t', { subject: 's' }, { parent: 'P' }), { action: 'create' });

describe('fold', () => {
  const cases: { name: string; parent?: Action | 'no change'; kinds?: readonly Kind[]; folded: boolean }[] = [
    { name: 'parent created → carried in its request', parent: 'create', folded: true },
    { name: 'parent replaced → carried in its request', parent: 'replace', folded: true },
    { name: 'parent updated → a change of its own', parent: 'update', folded: false },
    { name: 'parent unchanged → a change of its own', parent: 'no change', folded: false },
    { name: 'parent not declared → a change of its own', folded: false },
    {
      name: 'a parent kind that does not own its children → a change of its own',
      parent: 'create',
      kinds: FAKE_KINDS.map((k) =>
        k === Profile
          ? {
              ...Profile,
              hierarchy: {
                ...Profile.hierarchy,
                ownsChildren: false,
              },
            }
          : k,
      ),
      folded: false,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const parent = c.parent && decisionOf(desired('Profile', 'P', {}), c.parent === 'no change' ? {} : { action: c.parent });
      const out = fold(decisionsOf([...(parent ? [parent] : []), template]), c.kinds ?? FAKE_KINDS);
      expect(out.get(template.key)!.foldedInto).toBe(c.folded ? 'prod/Profile/P' : undefined);
      expect(out.get(template.key)!.action).toBe('create');
      if (parent) expect(out.get(parent.key)).toBe(parent);
    });
  }

  it('a parent of the same name in another account does not carry it', () => {
    const other = decisionOf(desired('Profile', 'P', {}, { account: 'staging' }), { action: 'create' });
    expect(fold(decisionsOf([other, template]), FAKE_KINDS).get(template.key)!.foldedInto).toBeUndefined();
  });
});

describe('fold: a child that names no parent', () => {
  it('a resource of a child kind without a parent stays a change of its own, whatever the parents are called', () => {
    const orphan = decisionOf(desired('Template', 'T', { subject: 's' }), { action: 'create' });
    const odd = decisionOf(desired('Profile', 'undefined', {}), { action: 'create' });
    expect(fold(decisionsOf([odd, orphan]), FAKE_KINDS).get(orphan.key)!.foldedInto).toBeUndefined();
  });

  it('a parent kind that is not registered folds nothing', () => {
    const parent = decisionOf(desired('Profile', 'P', {}), { action: 'create' });
    const kinds = FAKE_KINDS.filter((k) => k !== Profile);
    expect(fold(decisionsOf([parent, template]), kinds).get(template.key)!.foldedInto).toBeUndefined();
  });
});

describe('fold: copy on write', () => {
  it('returns the decisions as they are when nothing folds, and a map in the same order when something does', () => {
    const parent = decisionOf(desired('Profile', 'P', {}), { action: 'create' });
    const other = decisionOf(desired('Profile', 'Q', {}), { action: 'update' });
    const unfolded = decisionsOf([other, template]);
    expect(fold(unfolded, FAKE_KINDS.filter((k) => k !== Profile))).toBe(unfolded);
    const input = decisionsOf([template, parent, other]);
    const out = fold(input, FAKE_KINDS);
    expect([...out.keys()]).toEqual([template.key, parent.key, other.key]);
    expect(out.get(template.key)!.foldedInto).toBe(parent.key);
    // The input is left as it was.
    expect(input.get(template.key)).toBe(template);
  });
});
