import { describe, expect, it } from 'vitest';
import { indexLive } from '../../../src/plan/steps/live-index.js';
import { resolveReferences } from '../../../src/plan/steps/references.js';
import type { Decision, Deletion } from '../../../src/plan/steps/shared.js';
import type { Action } from '../../../src/model/plan.js';
import type { JsonObject } from '../../../src/model/json.js';
import type { LiveResource } from '../../../src/model/resource.js';
import { Channel, desired, live, Rule } from '../plan-fakes.js';
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
      expect(r.refs.get(rule.key)).toStrictEqual([{ kind: 'Channel', name: 'ops', ...(c.id ? { id: c.id } : {}) }]);
    });
  }

  it('every declared resource gets an entry, in the order the spec names them', () => {
    const r2 = decisionOf(desired('Rule', 'r2', { channels: ['b', 'a'] }));
    const r = resolveReferences(decisionsOf([ops(), r2]), indexLive([live('Channel', 'a', 'C1', {}), live('Channel', 'b', 'C2', {})]), []);
    expect(r.refs.get('prod/Channel/ops')).toEqual([]);
    expect(r.refs.get(r2.key)?.map((x) => x.name)).toEqual(['b', 'a']);
  });
});

describe('resolve references: what the errors say', () => {
  const resolve = (lives: LiveResource[], deletions: Deletion[] = []) =>
    resolveReferences(decisionsOf([rule]), indexLive(frozen(lives)), frozen(deletions)).diagnostics;

  it('each error names the resource, the target and the account, with a hint where one helps', () => {
    expect(resolve([])).toEqual([
      {
        severity: 'error',
        code: 'unknown-reference',
        message: 'Rule r refers to Channel ops, which is neither declared nor live in account prod',
        field: '/channels',
        file: 'config/resources.yaml',
        line: 4,
        column: 1,
        hint: 'declare the Channel or remove it from the Rule',
      },
    ]);
    const gone = live('Channel', 'ops', 'C1', {});
    const [deleted] = resolve([gone], [{ live: gone, kind: Channel, reason: 'x', reasonCode: 'delete-because-not-declared' }]);
    expect([deleted.message, deleted.hint]).toEqual([
      'Rule r refers to Channel ops, which this plan deletes (not declared, prune is on)',
      'declare the Channel or remove it from the Rule',
    ]);
  });

  it('a name several live resources share lists their ids, sorted', () => {
    const [d] = resolve([live('Channel', 'ops', 'C9', {}), live('Channel', 'ops', 'C1', {}), live('Channel', 'ops', 'C5', {})]);
    expect(d.message).toBe('Rule r refers to Channel ops, a name 3 live resources share in account prod (ids C1, C5, C9)');
    expect([d.severity, d.hint]).toEqual(['error', undefined]);
  });

  it('a prune that deletes a resource of the same name in another account is no reference to it', () => {
    const elsewhere = live('Channel', 'ops', 'C2', {}, { account: 'staging' });
    expect(resolve([live('Channel', 'ops', 'C1', {}), elsewhere], [{ live: elsewhere, kind: Channel, reason: 'x', reasonCode: 'delete-because-not-declared' }])).toEqual([]);
  });

  it('a declared target whose name two live resources share gets no id: either would be a guess', () => {
    const r = resolveReferences(decisionsOf([ops(), rule]), indexLive([live('Channel', 'ops', 'C1', {}), live('Channel', 'ops', 'C2', {})]), []);
    expect(r.diagnostics).toEqual([]);
    expect(r.refs.get(rule.key)).toEqual([{ kind: 'Channel', name: 'ops' }]);
  });
});

describe('resolve references: a reference that takes only some of its kind (EmailUser channels)', () => {
  // A Rule whose channels must be of type Email, as an alert profile's EmailUser routes.
  const EmailRule = { ...Rule, kind: 'EmailRule', references: [{ kind: 'Channel', pointer: '/channels', only: { member: '/type', values: ['Email', 'Mail'] } }] };
  const emailRule: Decision = { ...decisionOf(desired('Rule', 'er', { channels: ['ops'] }, { line: 7 })), kind: EmailRule };
  const channel = (type: unknown, action?: Action): Decision =>
    decisionOf(desired('Channel', 'ops', type === undefined ? {} : { type } as JsonObject), action ? { action } : {});
  const run = (decisions: Decision[], lives: LiveResource[]) => resolveReferences(decisionsOf([...decisions, emailRule]), indexLive(frozen(lives)), []);

  it('a declared target of another type is refused, saying which type it has and which are taken', () => {
    const r = run([channel('Slack')], [live('Channel', 'ops', 'C1', { type: 'Email' })]);
    expect(r.refs.get(emailRule.key)).toEqual([]);
    expect(r.diagnostics).toEqual([
      {
        severity: 'error',
        code: 'reference-not-allowed',
        message: 'Rule er refers to Channel ops, whose type is Slack; a Rule takes only Email, Mail',
        field: '/channels',
        file: 'config/resources.yaml',
        line: 7,
        column: 1,
        hint: 'name a Channel whose type is Email or Mail',
      },
    ]);
  });

  it('an undeclared target is judged as live; a declared one as declared, whatever the live one is', () => {
    expect(run([], [live('Channel', 'ops', 'C1', { type: 'Slack' })]).diagnostics.map((d) => d.code)).toEqual(['reference-not-allowed']);
    expect(run([], [live('Channel', 'ops', 'C1', { type: 'Mail' })]).refs.get(emailRule.key)).toEqual([{ kind: 'Channel', name: 'ops', id: 'C1' }]);
    expect(run([channel('Email', 'update')], [live('Channel', 'ops', 'C1', { type: 'Slack' })]).refs.get(emailRule.key)).toEqual([
      { kind: 'Channel', name: 'ops', id: 'C1' },
    ]);
  });

  it('a target without the member, or with a value that is not text, is not refused here (the schema checks it)', () => {
    expect(run([channel(undefined, 'create')], []).diagnostics).toEqual([]);
    expect(run([channel(3, 'create')], []).diagnostics).toEqual([]);
    expect(run([channel(3, 'create')], []).refs.get(emailRule.key)).toEqual([{ kind: 'Channel', name: 'ops' }]);
  });
});

describe('resolve references: an id the live resource holds though the account lists nothing with it', () => {
  const liveRule = live('Rule', 'r', 'R1', { channels: ['GONE_ID'] });
  const held = decisionOf(desired('Rule', 'r', { channels: ['GONE_ID'] }, { line: 4 }), { live: liveRule });

  it('is kept as the id, with a warning naming it: the plan neither changes nor refuses what the service holds', () => {
    const r = resolveReferences(decisionsOf([held]), indexLive(frozen([liveRule])), []);
    expect(r.refs.get(held.key)).toStrictEqual([{ kind: 'Channel', name: 'GONE_ID', id: 'GONE_ID' }]);
    expect(r.diagnostics.map((d) => [d.severity, d.code, d.field, d.line])).toEqual([['warning', 'reference-kept-as-id', '/channels', 4]]);
    expect(r.diagnostics[0].message).toBe('Rule r names Channel GONE_ID, which account prod does not list; the service holds it as an id: kept as written');
  });

  it('stays an error where the live resource does not hold it (a file naming nothing) or where there is no live resource', () => {
    const other = decisionOf(desired('Rule', 'r', { channels: ['OTHER_ID'] }), { live: liveRule });
    expect(resolveReferences(decisionsOf([other]), indexLive(frozen([liveRule])), []).diagnostics.map((d) => d.code)).toEqual(['unknown-reference']);
    const created = decisionOf(desired('Rule', 'r', { channels: ['GONE_ID'] }), { action: 'create' });
    expect(resolveReferences(decisionsOf([created]), indexLive([]), []).diagnostics.map((d) => d.code)).toEqual(['unknown-reference']);
  });
});
