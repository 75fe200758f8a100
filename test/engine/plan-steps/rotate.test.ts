import { describe, expect, it } from 'vitest';
import { selectRotations } from '../../../src/plan/steps/rotate.js';
import { desired } from '../plan-fakes.js';
import type { Match } from '../../../src/plan/steps/shared.js';
import { frozen, matchOf } from './helpers.js';

const pager = matchOf(desired('Channel', 'pd', { type: 'Pager', data: { apiKey: 'k' } }));
const pagerStaging = matchOf(desired('Channel', 'pd', { type: 'Pager', data: { apiKey: 'k' } }, { account: 'staging' }));
const hook = matchOf(desired('Channel', 'hook', { type: 'Webhook', data: { url: 'u' } }));

describe('rotate', () => {
  const cases: { selectors: string[]; keys: string[]; unused: string[] }[] = [
    { selectors: [], keys: [], unused: [] },
    { selectors: ['Channel/pd'], keys: ['prod/Channel/pd', 'staging/Channel/pd'], unused: [] },
    { selectors: ['staging/Channel/pd'], keys: ['staging/Channel/pd'], unused: [] },
    { selectors: ['*/*'], keys: ['prod/Channel/pd', 'staging/Channel/pd'], unused: [] },
    { selectors: ['Channel/hook'], keys: [], unused: ['Channel/hook'] },
    { selectors: ['Rule/*', 'prod/Channel/p*'], keys: ['prod/Channel/pd'], unused: ['Rule/*'] },
  ];
  for (const c of cases) {
    it(`${JSON.stringify(c.selectors)} → ${JSON.stringify(c.keys)}`, () => {
      const r = selectRotations(frozen([pager, pagerStaging, hook]), c.selectors);
      expect([...r.keys]).toEqual(c.keys);
      expect(r.diagnostics.map((d) => [d.severity, d.code])).toEqual(c.unused.map(() => ['warning', 'rotate-no-match']));
      for (const [i, text] of c.unused.entries()) expect(r.diagnostics[i].message).toContain(text);
    });
  }
});

describe('rotate: what counts as a secret to push', () => {
  const withUnreturned = (m: Match, unreturned: string[]): Match => ({
    ...m,
    kind: {
      ...m.kind,
      secrets: {
        ...m.kind.secrets,
        unreturned: () => unreturned,
      },
    },
  });

  it('a member the service never returns is pushed on --rotate like a write-only one, alone or beside one', () => {
    expect([...selectRotations([withUnreturned(hook, ['/data/role'])], ['Channel/hook']).keys]).toEqual(['prod/Channel/hook']);
    expect([...selectRotations([withUnreturned(pager, ['/data/role'])], ['Channel/pd']).keys]).toEqual(['prod/Channel/pd']);
    expect([...selectRotations([withUnreturned(hook, [])], ['Channel/hook']).keys]).toEqual([]);
  });

  it('a selector that selects nothing to rotate says so, with the form selectors take', () => {
    const [d] = selectRotations([hook], ['Channel/hook']).diagnostics;
    expect(d).toEqual({
      severity: 'warning',
      code: 'rotate-no-match',
      message: '--rotate Channel/hook selects no declared resource with write-only secrets',
      hint: 'selectors look like [account/]Kind/name; * matches within a part',
    });
  });
});
