// The whole planner over the fake kinds for issue 11's documents and flags: previousNames, moves,
// lifecycle (preventDestroy, ignoreChanges), protect and --target. Each step has its own tests; these
// check that plan() wires them so that their effects reach the Plan.

import { describe, expect, it } from 'vitest';
import { plan, type PlanOptions } from '../../src/plan/steps/plan.js';
import { checkStale } from '../../src/plan/saved/plan-file.js';
import type { Kind } from '../../src/kinds/types.js';
import type { DesiredResource } from '../../src/model/resource.js';
import { Channel, desired, desiredState, FAKE_KINDS, live, liveState } from './plan-fakes.js';

const KINDS: readonly Kind[] = FAKE_KINDS.map((k) =>
  k === Channel
    ? {
        ...Channel,
        rename: {
          ...Channel.rename,
          inPlace: true,
        },
      }
    : k,
);
const hook = (url: string) => ({ type: 'Webhook', data: { url } });
const rule = (channels: string[]) => ({ channels, severity: [1] });

function planOf(d: DesiredResource[], l: Parameters<typeof liveState>[0], opts: Partial<PlanOptions> & { prune?: Record<string, boolean>; protect?: string[] } = {}) {
  const state = desiredState(d, opts.prune);
  if (opts.protect) state.root.protect = opts.protect;
  const result = plan(state, liveState(l), { kinds: KINDS, ...opts });
  expect(result.diagnostics.filter((x) => x.severity === 'error')).toEqual([]);
  return result.plan!;
}

describe('plan: renames', () => {
  const liveNow = [live('Channel', 'old', 'C1', hook('u')), live('Rule', 'r', 'R1', rule(['C1']))].map((r) => (r.kind === 'Rule' ? { ...r, spec: rule(['old']) } : r));

  it('previousNames: one update of the name, same id; the rule that routes to it has nothing to change', () => {
    const p = planOf([{ ...desired('Channel', 'new', hook('u')), previousNames: ['old'] }, desired('Rule', 'r', rule(['new']))], liveNow, { prune: { Channel: true } });
    expect(p.changes.map((c) => [c.action, c.key, c.liveId, c.renamedFrom])).toEqual([['update', 'prod/Channel/new', 'C1', 'old']]);
    expect(p.unmanaged).toEqual([]);
  });

  it('without previousNames: create and delete, linked, with a hint', () => {
    const p = planOf([desired('Channel', 'new', hook('u')), desired('Rule', 'r', rule(['new']))], liveNow, { prune: { Channel: true } });
    expect(p.changes.map((c) => [c.action, c.key, c.sameSpecAs])).toEqual([
      ['create', 'prod/Channel/new', 'prod/Channel/old'],
      ['update', 'prod/Rule/r', undefined],
      ['delete', 'prod/Channel/old', 'prod/Channel/new'],
    ]);
    expect(p.diagnostics.map((d) => d.code)).toEqual(['looks-renamed']);
  });

  it('a saved rename plan is not stale against the live state it was made from, and is once the old name is gone', () => {
    const p = planOf([{ ...desired('Channel', 'new', hook('u')), previousNames: ['old'] }, desired('Rule', 'r', rule(['new']))], liveNow);
    expect(checkStale(p, liveState(liveNow), KINDS)).toBeUndefined();
    const moved = liveNow.map((r) => (r.name === 'old' ? { ...r, name: 'renamed-by-hand' } : r));
    expect(checkStale(p, liveState(moved), KINDS)?.details).toEqual(['prod/Channel/new: its live record (id C1) is gone or renamed']);
  });

  it('a saved rename whose new name was taken since is stale: the rename is not made, and the planned record is not found under it', () => {
    const p = planOf([{ ...desired('Channel', 'new', hook('u')), previousNames: ['old'] }, desired('Rule', 'r', rule(['new']))], liveNow);
    const taken = [...liveNow, live('Channel', 'new', 'C5', hook('u'))];
    expect(checkStale(p, liveState(taken), KINDS)?.details).toEqual(['prod/Channel/new: its live record (id C1) is gone or renamed']);
  });
});

describe('plan: lifecycle and protect', () => {
  it('preventDestroy refuses a replace even with force', () => {
    const d = { ...desired('Channel', 'c', hook('u')), lifecycle: { preventDestroy: true } };
    const p = planOf([d], [live('Channel', 'c', 'C1', { type: 'Slack', data: { url: 'u' } })], { force: true });
    expect(p.changes.map((c) => c.action)).toEqual(['replace']);
    expect(p.refusal?.code).toBe('prevent-destroy');
    expect(p.refusal?.details).toEqual(['prod/Channel/c (replace)']);
  });

  it('ignoreChanges hides a live edit of that member', () => {
    const d = { ...desired('Channel', 'c', { type: 'Webhook', data: { url: 'mine', team: 't' } }), lifecycle: { ignoreChanges: ['/data/url'] } };
    const edited = live('Channel', 'c', 'C1', { type: 'Webhook', data: { url: 'theirs', team: 't' } });
    expect(planOf([d], [edited]).changes).toEqual([]);
    const both = planOf([{ ...d, spec: { type: 'Webhook', data: { url: 'mine', team: 'u' } } }], [edited]);
    expect(both.changes.map((c) => [c.action, c.after])).toEqual([['update', { type: 'Webhook', data: { url: 'theirs', team: 'u' } }]]);
  });

  it('protect keeps prune from deleting and lists the resource as protected', () => {
    const p = planOf([], [live('Channel', 'keep', 'C1', hook('u')), live('Channel', 'drop', 'C2', hook('u'))], { prune: { Channel: true }, protect: ['Channel/keep'] });
    expect(p.changes.map((c) => `${c.action} ${c.key}`)).toEqual(['delete prod/Channel/drop']);
    expect(p.unmanaged.map((u) => [u.name, u.protected])).toEqual([['keep', true]]);
  });
});

describe('plan: --target', () => {
  it('only the targeted change and the channel it depends on; partial; unrelated changes and refusals left out', () => {
    const p = planOf([desired('Channel', 'a', hook('a')), desired('Channel', 'b', hook('b')), desired('Rule', 'r', rule(['a'])), desired('Rule', 's', rule(['b']))], [], {
      targets: ['prod/Rule/r'],
    });
    expect(p.changes.map((c) => `${c.action} ${c.key}`)).toEqual(['create prod/Channel/a', 'create prod/Rule/r']);
    expect(p.summary.create).toBe(2);
    expect(p.targets).toEqual(['prod/Rule/r']);
  });

  it('a rule targeted does not pull in a channel that is only updated', () => {
    const p = planOf([desired('Channel', 'a', hook('new')), desired('Rule', 'r', rule(['a']))], [live('Channel', 'a', 'C1', hook('old'))], { targets: ['Rule/r'] });
    expect(p.changes.map((c) => `${c.action} ${c.key}`)).toEqual(['create prod/Rule/r']);
  });
});
