import { describe, expect, it } from 'vitest';
import { indexLive } from '../../../src/engine/plan/steps/live-index.js';
import { resolveReferences } from '../../../src/engine/plan/steps/references.js';
import type { Decision } from '../../../src/engine/plan/steps/shared.js';
import type { Action } from '../../../src/model/plan.js';
import type { LiveResource } from '../../../src/model/resource.js';
import { Channel, desired, live } from '../plan-fakes.js';
import { decisionOf, decisionsOf, frozen } from './helpers.js';

const rule = decisionOf(desired('Rule', 'r', { channels: ['ops'] }, { line: 4 }));
const ops = (action?: Action): Decision => decisionOf(desired('Channel', 'ops', {}), action ? { action } : {});

describe('resolve references', () => {
  const cases: { name: string; target?: Decision; live: LiveResource[]; pruned?: boolean; id?: string | null; code?: string }[] = [
    { name: 'declared, unchanged → its live id', target: ops(), live: [live('Channel', 'ops', 'C1', {})], id: 'C1' },
    { name: 'declared, updated → keeps its id', target: ops('update'), live: [live('Channel', 'ops', 'C1', {})], id: 'C1' },
    { name: 'declared, replaced → no id yet', target: ops('replace'), live: [live('Channel', 'ops', 'C1', {})], id: null },
    { name: 'declared, created → no id yet', target: ops('create'), live: [], id: null },
    { name: 'undeclared but live → its live id', live: [live('Channel', 'ops', 'C1', {})], id: 'C1' },
    { name: 'neither declared nor live → error', live: [], code: 'unknown-reference' },
    { name: 'undeclared and pruned by this plan → error', live: [live('Channel', 'ops', 'C1', {})], pruned: true, code: 'reference-to-deleted' },
    { name: 'undeclared, a name two live share → error', live: [live('Channel', 'ops', 'C1', {}), live('Channel', 'ops', 'C2', {})], code: 'ambiguous-live-name' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const deletions = c.pruned ? [{ live: c.live[0], kind: Channel, reason: 'x', reasonCode: 'delete-because-not-declared' as const }] : [];
      const r = resolveReferences(decisionsOf([...(c.target ? [c.target] : []), rule]), indexLive(frozen(c.live)), frozen(deletions));
      if (c.code) {
        expect(r.refs.get(rule.key)).toEqual([]);
        expect(r.diagnostics.map((d) => [d.code, d.field, d.line])).toEqual([[c.code, '/channels', 4]]);
        return;
      }
      expect(r.diagnostics).toEqual([]);
      expect(r.refs.get(rule.key)).toEqual([{ kind: 'Channel', name: 'ops', ...(c.id ? { id: c.id } : {}) }]);
    });
  }

  it('every declared resource gets an entry, in the order the spec names them', () => {
    const r2 = decisionOf(desired('Rule', 'r2', { channels: ['b', 'a'] }));
    const r = resolveReferences(decisionsOf([ops(), r2]), indexLive([live('Channel', 'a', 'C1', {}), live('Channel', 'b', 'C2', {})]), []);
    expect(r.refs.get('prod/Channel/ops')).toEqual([]);
    expect(r.refs.get(r2.key)?.map((x) => x.name)).toEqual(['b', 'a']);
  });
});
