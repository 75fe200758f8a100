import { describe, expect, it } from 'vitest';
import { indexLive } from '../../../src/plan/steps/live-index.js';
import { match } from '../../../src/plan/steps/match.js';
import type { LiveResource } from '../../../src/model/resource.js';
import { desired, FAKE_KINDS, live } from '../plan-fakes.js';
import { frozen } from './helpers.js';

describe('match', () => {
  const cases: { name: string; kind?: string; live: LiveResource[]; liveId?: string | null; code?: string }[] = [
    { name: 'no live twin → a match without live', live: [], liveId: null },
    { name: 'one live twin → matched to it', live: [live('Channel', 'ops', 'C1', {})], liveId: 'C1' },
    { name: 'a twin in another account does not count', live: [live('Channel', 'ops', 'C1', {}, { account: 'staging' })], liveId: null },
    { name: 'a twin of another kind does not count', live: [live('Rule', 'ops', 'R1', {})], liveId: null },
    { name: 'two live twins → ambiguous', live: [live('Channel', 'ops', 'C2', {}), live('Channel', 'ops', 'C1', {})], code: 'ambiguous-live-name' },
    { name: 'a predefined twin → cannot be managed', live: [live('Channel', 'ops', 'C1', {}, { managedByService: true })], code: 'managed-by-service' },
    { name: 'an unknown kind → error', kind: 'Nope', live: [], code: 'unknown-kind' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = desired(c.kind ?? 'Channel', 'ops', {}, { line: 7 });
      const result = match(frozen([d]), FAKE_KINDS, indexLive(frozen(c.live)));
      if (c.code) {
        expect(result.matches).toEqual([]);
        expect(result.diagnostics.map((x) => [x.severity, x.code, x.line])).toEqual([['error', c.code, 7]]);
        return;
      }
      expect(result.diagnostics).toEqual([]);
      expect(result.matches).toHaveLength(1);
      expect(result.matches[0]).toMatchObject({ key: 'prod/Channel/ops', desired: d, kind: { kind: 'Channel' } });
      expect(result.matches[0].live?.id ?? null).toBe(c.liveId);
    });
  }

  it('names the ids of an ambiguous name, sorted', () => {
    const result = match([desired('Channel', 'ops', {})], FAKE_KINDS, indexLive([live('Channel', 'ops', 'C2', {}), live('Channel', 'ops', 'C1', {})]));
    expect(result.diagnostics[0].message).toContain('(ids C1, C2)');
  });

  it('keeps the order of the desired state and goes on after an error', () => {
    const result = match([desired('Rule', 'b', {}), desired('Nope', 'x', {}), desired('Channel', 'a', {})], FAKE_KINDS, indexLive([]));
    expect(result.matches.map((m) => m.key)).toEqual(['prod/Rule/b', 'prod/Channel/a']);
  });
});

describe('match: renames', () => {
  it('a match whose twin was renamed carries the old name; others do not', () => {
    const result = match(
      [desired('Channel', 'new', {}), desired('Channel', 'same', {}), desired('Channel', 'fresh', {})],
      FAKE_KINDS,
      indexLive([live('Channel', 'new', 'C1', {}), live('Channel', 'same', 'C2', {})]),
      new Map([
        ['prod/Channel/new', 'old'],
        ['prod/Channel/fresh', 'ghost'],
      ]),
    );
    expect(result.matches.map((m) => [m.key, m.renamedFrom])).toEqual([
      ['prod/Channel/new', 'old'],
      ['prod/Channel/same', undefined],
      ['prod/Channel/fresh', undefined],
    ]);
  });

  it('a match without a live twin carries no old name, even when the rename step names one', () => {
    const result = match([desired('Channel', 'fresh', {})], FAKE_KINDS, indexLive([]), new Map([['prod/Channel/fresh', 'ghost']]));
    expect(result.matches[0]).not.toHaveProperty('renamedFrom');
    expect(result.matches[0]).not.toHaveProperty('live');
  });
});

describe('match: what each error says', () => {
  it('an unknown kind names the kind', () => {
    const [diag] = match([desired('Nope', 'x', {})], FAKE_KINDS, indexLive([])).diagnostics;
    expect(diag.message).toBe('Nope is not a registered kind');
  });

  it('an ambiguous name says where, which ids, and what to do', () => {
    const [diag] = match([desired('Channel', 'ops', {})], FAKE_KINDS, indexLive([live('Channel', 'ops', 'C2', {}), live('Channel', 'ops', 'C1', {})])).diagnostics;
    expect(diag.message).toBe('Channel ops in account prod matches 2 live resources (ids C1, C2); names must be unique to be managed');
    expect(diag.hint).toBe('rename or delete all but one of them in the service');
  });

  it('a resource the service predefines is named with its account', () => {
    const [diag] = match([desired('Channel', 'ops', {})], FAKE_KINDS, indexLive([live('Channel', 'ops', 'C1', {}, { managedByService: true })])).diagnostics;
    expect(diag.message).toBe('Channel ops in account prod is predefined by the service and cannot be managed');
  });
});
