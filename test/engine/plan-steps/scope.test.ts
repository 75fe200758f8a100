import { describe, expect, it } from 'vitest';
import { scope } from '../../../src/plan/steps/scope.js';
import { desired, desiredState, live, liveState } from '../plan-fakes.js';
import { frozen } from './helpers.js';

const d = [desired('Channel', 'p', {}), desired('Channel', 's', {}, { account: 'staging' }), desired('Nope', 'x', {}, { account: 'staging' })];
const l = [live('Channel', 'p', 'C1', {}), live('Channel', 's', 'C2', {}, { account: 'staging' })];

describe('scope', () => {
  const cases: { name: string; only?: string[]; fetched?: string[]; accounts: string[]; desired: string[]; live: string[]; codes: string[] }[] = [
    { name: 'no --account: every account of the root', accounts: ['prod', 'staging'], desired: ['p', 's', 'x'], live: ['C1', 'C2'], codes: [] },
    { name: 'one account: only its resources', only: ['staging'], accounts: ['staging'], desired: ['s', 'x'], live: ['C2'], codes: [] },
    { name: 'an unknown account is an error', only: ['prod', 'nope'], accounts: ['prod'], desired: ['p'], live: ['C1'], codes: ['unknown-account'] },
    { name: 'an account without live data is an error', fetched: ['prod'], accounts: ['prod', 'staging'], desired: ['p', 's', 'x'], live: ['C1', 'C2'], codes: ['account-not-fetched'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const ls = liveState(l);
      if (c.fetched) ls.accounts = ls.accounts.filter((a) => c.fetched!.includes(a.name));
      const s = scope(frozen(desiredState(d)), frozen(ls), c.only);
      expect(s.accountOrder).toEqual(c.accounts);
      expect(s.accounts.map((a) => a.name)).toEqual(c.accounts);
      expect(s.desired.map((x) => x.name)).toEqual(c.desired);
      expect(s.live.map((x) => x.id)).toEqual(c.live);
      expect(s.diagnostics.map((x) => x.code)).toEqual(c.codes);
    });
  }

  it('declares every desired resource in scope, even of an unknown kind', () => {
    const s = scope(desiredState(d), liveState(l), ['staging']);
    expect([...s.declared]).toEqual(['staging/Channel/s', 'staging/Nope/x']);
  });

  it('names the root file and the accounts it knows', () => {
    const s = scope(desiredState([]), liveState([]), ['nope']);
    expect(s.diagnostics[0]).toMatchObject({ severity: 'error', file: 'postureops.yaml', hint: 'expected one of: prod, staging' });
    expect(s.diagnostics[0].message).toContain('nope');
  });

  it('an account without live data is an error that names the account', () => {
    const ls = liveState(l);
    ls.accounts = ls.accounts.filter((a) => a.name === 'prod');
    const s = scope(desiredState(d), ls, undefined);
    expect(s.diagnostics).toEqual([{ severity: 'error', code: 'account-not-fetched', message: 'the live state holds no data of account staging' }]);
  });
});
