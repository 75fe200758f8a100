// A plan narrowed by --changed-since / --shard says so in every rendering; a whole plan says nothing.

import { describe, expect, it } from 'vitest';
import type { Plan } from '../../src/model/plan.js';
import { renderPlan } from '../../src/render/index.js';
import { fixturePlan } from './fixtures.js';

function scoped(): Plan {
  const plan = fixturePlan();
  return {
    ...plan,
    scope: {
      changedSince: { ref: 'origin/main', commit: '3f2a1c9d00000000000000000000000000000000' },
      shard: { index: 1, count: 2 },
      skipped: [
        { account: 'qa', reason: 'no document of it changed since origin/main (3f2a1c9)' },
        { account: 'dev', reason: 'in shard 2 of 2' },
        { account: 'eu', reason: 'no document of it changed since origin/main (3f2a1c9)' },
      ],
      rootAccounts: ['x'],
      configDigest: 'abc',
    },
  };
}

describe('scope in renderings', () => {
  it('text: the headline, then the skipped accounts per reason', () => {
    const text = renderPlan(scoped(), 'text', { color: false });
    const n = scoped().accounts.length;
    expect(text).toContain(`Scope (--changed-since origin/main (3f2a1c9), --shard 1/2): ${n} of ${n + 3} accounts planned; 3 skipped (not read, not planned, not pruned).`);
    expect(text).toContain('  no document of it changed since origin/main (3f2a1c9) (2): qa, eu');
    expect(text).toContain('  in shard 2 of 2 (1): dev');
    expect(renderPlan(fixturePlan(), 'text', { color: false })).not.toContain('Scope');
  });

  it('markdown: a note and the skipped accounts folded', () => {
    const md = renderPlan(scoped(), 'markdown', { color: false });
    expect(md).toMatch(/> \[!NOTE\]\n> Scope \(--changed-since origin\/main \(3f2a1c9\), --shard 1\/2\)/);
    expect(md).toContain('<details><summary>Skipped accounts (3)</summary>');
    expect(renderPlan(fixturePlan(), 'markdown', { color: false })).not.toContain('Scope');
  });

  it('json: a scope member without the merge bookkeeping; none for a whole plan', () => {
    const doc = JSON.parse(renderPlan(scoped(), 'json', { color: false }));
    expect(doc.scope).toEqual({ changedSince: scoped().scope!.changedSince, shard: { index: 1, count: 2 }, skipped: scoped().scope!.skipped });
    expect(doc.formatVersion).toBe(2);
    expect(JSON.parse(renderPlan(fixturePlan(), 'json', { color: false })).scope).toBeUndefined();
  });
});
