// Shards planned by the engine and merged equal the plan of all their accounts: order, dependsOn,
// unmanaged, summary, scope. Merging refuses what is not the shards of one plan.

import { describe, expect, it } from 'vitest';
import { mergePlans, MergeError, type ShardPlan } from '../../src/plan/saved/merge-plans.js';
import { narrowScope, type ChangedAccounts } from '../../src/plan/core/plan-scope.js';
import { plan } from '../../src/plan/steps/plan.js';
import { withBudget } from '../../src/ops/budget/budget.js';
import type { DesiredState } from '../../src/model/account.js';
import type { Plan, Refusal } from '../../src/model/plan.js';
import { PlanRefusedError, refuseUnlessForced } from '../../src/ops/apply/apply-refusal.js';
import { desired, FAKE_KINDS, live } from './plan-fakes.js';

const NAMES = ['zeta', 'alpha', 'mid', 'beta', 'omega', 'gamma', 'delta'];

/** Per account a channel and a rule routing to it (created in that order), an update, an unmanaged record; weights differ. */
function state(): { d: DesiredState; l: { accounts: { name: string; orgAccess: boolean }[]; resources: ReturnType<typeof live>[]; calls: { total: number; byBucket: Record<string, number> } } } {
  const resources = NAMES.flatMap((account, i) => [
    desired('Channel', 'ops', { type: 'Slack', data: { url: `https://x/${account}` } }, { account }),
    desired('Rule', 'route', { channels: ['ops'], severity: [1] }, { account }),
    ...Array.from({ length: i % 3 }, (_, k) => desired('Channel', `extra-${k}`, { type: 'Hook', data: { url: 'https://y' } }, { account })),
  ]);
  const accounts = NAMES.map((name) => ({ name, orgAccess: false }));
  return {
    d: { root: { file: 'postureops.yaml', accounts, defaultAccount: 'zeta', prune: { Channel: false, Rule: false, Profile: false, Template: false } }, resources },
    l: {
      accounts,
      resources: NAMES.flatMap((account) => [live('Channel', 'extra-0', `id-${account}`, { type: 'Hook', data: { url: 'https://old' } }, { account }), live('Channel', 'console', `c-${account}`, { type: 'Hook' }, { account })]),
      calls: { total: 3, byBucket: { 'GET AlertChannels': 3 } },
    },
  };
}

function planned(changed?: ChangedAccounts, shard?: { index: number; count: number }): Plan {
  const { d, l } = state();
  const narrowed = narrowScope(d, d.root.accounts, { ...(changed ? { changed } : {}), ...(shard ? { shard } : {}) });
  const names = new Set(narrowed.accounts.map((a) => a.name));
  const live = { ...l, accounts: l.accounts.filter((a) => names.has(a.name)), resources: l.resources.filter((r) => names.has(r.account)) };
  const result = withBudget(plan(d, live, { kinds: FAKE_KINDS, accounts: [...names], apiCalls: live.calls, ...(narrowed.scope ? { scope: narrowed.scope } : {}) }), FAKE_KINDS);
  expect(result.diagnostics.filter((x) => x.severity === 'error')).toEqual([]);
  return result.plan!;
}

const shards = (count: number, changed?: ChangedAccounts): ShardPlan[] =>
  Array.from({ length: count }, (_, i) => ({ file: `shard-${i + 1}.json`, plan: planned(changed, { index: i + 1, count }) }));

describe('mergePlans', () => {
  it.each([2, 3])('%i shards merge into the unsharded plan (calls summed)', (count) => {
    const whole = planned();
    const merged = mergePlans(shards(count), FAKE_KINDS);
    const { apiCalls, budget, ...rest } = merged;
    const { apiCalls: wholeCalls, budget: wholeBudget, ...wholeRest } = whole;
    expect(rest).toEqual(wholeRest);
    expect(apiCalls.total).toBe(3 * count);
    expect(wholeBudget.length).toBeGreaterThan(0);
    expect(budget.map((b) => [b.bucket, b.needed])).toEqual(wholeBudget.map((b) => [b.bucket, b.needed]));
    expect(wholeCalls.total).toBe(3);
    expect(merged.changes.some((c) => c.dependsOn.length > 0)).toBe(true);
  });

  it('with --changed-since: the accounts no shard planned stay skipped, with their reason', () => {
    const changed: ChangedAccounts = { ref: 'main', commit: 'a'.repeat(40), accounts: new Set(['alpha', 'beta', 'gamma', 'delta']) };
    const merged = mergePlans(shards(2, changed), FAKE_KINDS);
    const whole = planned(changed);
    expect(merged.scope).toEqual(whole.scope);
    expect(merged.scope?.skipped.map((s) => s.account)).toEqual(['zeta', 'mid', 'omega']);
    expect(merged.changes.map((c) => c.key)).toEqual(whole.changes.map((c) => c.key));
  });

  it('refuses overlapping, missing, foreign or mismatched shards', () => {
    const [one, two] = shards(2);
    expect(() => mergePlans([one, one], FAKE_KINDS)).toThrow(/both shard 1 of 2: the shards overlap/);
    expect(() => mergePlans([two], FAKE_KINDS)).toThrow(/shard 1 of 2 is missing/);
    expect(() => mergePlans([{ file: 'whole.json', plan: planned() }, two], FAKE_KINDS)).toThrow(/whole\.json is not the plan of a shard/);
    const other = { file: 'other.json', plan: { ...two.plan, scope: { ...two.plan.scope!, configDigest: 'f'.repeat(64) } } };
    expect(() => mergePlans([one, other], FAKE_KINDS)).toThrow(MergeError);
    expect(() => mergePlans([one, other], FAKE_KINDS)).toThrow(/from different configurations/);
    const three = shards(3)[2];
    expect(() => mergePlans([one, three], FAKE_KINDS)).toThrow(/shard counts|different counts/);
  });

  it('a refusal of any shard refuses the merged plan; preventDestroy decides the code', () => {
    const [one, two] = shards(2);
    const refused = (p: Plan, code: 'in-use' | 'prevent-destroy'): Plan => ({ ...p, refusal: { code, message: code, details: [code] } });
    const merged = mergePlans([{ ...one, plan: refused(one.plan, 'in-use') }, { ...two, plan: refused(two.plan, 'prevent-destroy') }], FAKE_KINDS);
    expect(merged.refusal?.code).toBe('prevent-destroy');
    expect(merged.refusal?.details).toEqual(['prevent-destroy', 'in-use']);
    // A rehearsal's refusal joins in shard order, its rehearsal with it (what keeps it beyond --force).
    const rehearsal: Refusal = { code: 'rehearsal', message: 'rehearsal', details: ['r'] };
    const both = mergePlans(
      [{ ...one, plan: refused(one.plan, 'in-use') }, { ...two, plan: { ...two.plan, refusal: rehearsal, rehearsal: { outcome: 'refused', accepted: 0, refused: [{ key: 'k', action: 'create', message: 'r' }] } } }],
      FAKE_KINDS,
    );
    expect(both.refusal).toEqual({ code: 'in-use', message: 'in-use; also, rehearsal', details: ['in-use', 'r'] });
    expect(() => refuseUnlessForced(both, true)).toThrow(PlanRefusedError);
  });

  it("the shards' rehearsals as one: the worst outcome, counts summed, changes in shard order", () => {
    const [one, two] = shards(2);
    const clean = mergePlans([{ ...one, plan: { ...one.plan, rehearsal: { outcome: 'clean', accepted: 2 } } }, { ...two, plan: { ...two.plan, rehearsal: { outcome: 'clean', accepted: 3 } } }], FAKE_KINDS);
    expect(clean.rehearsal).toEqual({ outcome: 'clean', accepted: 5 });
    expect(mergePlans(shards(2), FAKE_KINDS).rehearsal).toBeUndefined();
    const refused = mergePlans(
      [
        { ...one, plan: { ...one.plan, rehearsal: { outcome: 'unsettled', accepted: 1, remaining: [{ key: 'a/X/1', action: 'update' }], remainingCount: 1 } } },
        { ...two, plan: { ...two.plan, rehearsal: { outcome: 'refused', accepted: 0, refused: [{ key: 'b/X/2', action: 'create', message: '400' }], notTried: 2 } } },
      ],
      FAKE_KINDS,
    );
    expect(refused.rehearsal).toEqual({ outcome: 'refused', accepted: 1, refused: [{ key: 'b/X/2', action: 'create', message: '400' }], notTried: 2, remaining: [{ key: 'a/X/1', action: 'update' }], remainingCount: 1 });
  });
});

describe('configDigest', () => {
  it('takes values from the environment as their templates: jobs with other secret values agree; a changed file does not', async () => {
    const { configDigest } = await import('../../src/plan/core/plan-scope.js');
    const withValue = (url: string, literal = 'https://y'): DesiredState => {
      const { d } = state();
      return {
        ...d,
        resources: [
          desired('Channel', 'env', { type: 'Slack', data: { url } }, { account: 'alpha', envRefs: { '/data/url': '${env:URL}' } }),
          desired('Channel', 'lit', { type: 'Hook', data: { url: literal } }, { account: 'alpha' }),
        ],
      };
    };
    expect(configDigest(withValue('https://one'))).toBe(configDigest(withValue('https://two')));
    expect(configDigest(withValue('https://one'))).not.toBe(configDigest(withValue('https://one', 'https://z')));
  });
});
