// The plan with the registered Query, Policy and AlertProfile kinds: a profile named by a live
// policy's `alertTemplate` (a member reference) is in use like a channel a rule names; a policy
// moving its template runs before the profile it leaves is deleted; the service's own policy
// (`svc-global-1`) is no twin of a custom policy named `global-1`.

import { describe, expect, it } from 'vitest';
import { KINDS, kindOf } from '../../src/kinds/index.js';
import type { DesiredResource, LiveResource } from '../../src/model/resource.js';
import type { JsonObject } from '../../src/model/json.js';
import { plan } from '../../src/plan/steps/plan.js';
import { desiredOf, doc } from '../kinds/helpers.js';
import { desiredState, live, liveState } from './plan-fakes.js';

const POLICY: JsonObject = { query: 'Q', title: 't', remediation: 'r', severity: 'low' };
const policy = (name: string, spec: JsonObject): DesiredResource[] => desiredOf(kindOf('Policy'), doc('Policy', name, { ...POLICY, ...spec }));
const livePolicy = (name: string, spec: JsonObject): LiveResource => {
  const [d] = policy(name, spec);
  return live('Policy', name, `prod-${name}`, d.spec);
};
const query = live('Query', 'Q', 'Q', { text: '{ source { x } return { y } }' });
const profile = (id: string): LiveResource[] => [live('AlertProfile', id, id, { extends: 'SVC_CFG_AWS_DEFAULT_PROFILE' }), live('AlertTemplate', `${id}.T`, `${id}.T`, { eventName: 'e', subject: 's', description: 'd' }, { parent: id })];
const settings = { Query: false, Policy: false, AlertProfile: false, AlertTemplate: false };

describe('policies and the profiles they name', () => {
  it('a profile a live policy names through its alert template is not deleted: refused, naming the policy', () => {
    const result = plan(desiredState([], { ...settings, AlertProfile: true }), liveState([query, ...profile('OLD'), livePolicy('legacy', { alertTemplate: 'OLD.T' })]), { kinds: KINDS });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(result.plan!.changes.map((c) => `${c.action} ${c.key}`)).toEqual(['delete prod/AlertProfile/OLD']);
    expect(result.plan!.refusal?.details).toContain('prod/AlertProfile/OLD (delete) is still used by Policy legacy (not declared in this configuration)');
  });

  it('a policy moving to another template is updated before the profile it leaves goes', () => {
    const state = desiredState([...policy('mover', { alertTemplate: 'NEW.T' })], { ...settings, AlertProfile: true });
    state.root.protect = ['AlertProfile/NEW'];
    const result = plan(state, liveState([query, ...profile('OLD'), ...profile('NEW'), livePolicy('mover', { alertTemplate: 'OLD.T' })]), { kinds: KINDS });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const p = result.plan!;
    expect(p.changes.map((c) => `${c.action} ${c.key}`)).toEqual(['update prod/Policy/mover', 'delete prod/AlertProfile/OLD']);
    expect(p.changes.find((c) => c.name === 'OLD')!.dependsOn).toEqual(['prod/Policy/mover']);
    expect(p.refusal?.details ?? []).not.toContainEqual(expect.stringContaining('still used'));
  });

  it("the service's own policy is no twin of a custom policy of the same suffix", () => {
    const vendor: LiveResource = { ...livePolicy('global-1', {}), name: 'svc-global-1', id: 'svc-global-1', managedByService: true };
    const result = plan(desiredState([...policy('global-1', {})], settings), liveState([query, vendor]), { kinds: KINDS });
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(result.plan!.changes.map((c) => `${c.action} ${c.key}`)).toEqual(['create prod/Policy/global-1']);
    // Matched by the suffix its id carries, whatever the live record's name says.
    const custom = { ...livePolicy('global-1', {}), name: 'Console title', id: 'acme-eu-global-1' };
    expect(plan(desiredState([...policy('global-1', {})], settings), liveState([query, vendor, custom]), { kinds: KINDS }).plan!.changes).toEqual([]);
  });
});
