// PredefinedPolicies alone: the live predefined policies of a Policies list (custom ones left to
// Policy), the entries expanded against them (by id, by tag with `*`, later entries winning member by
// member), what a selection cannot do (a second document, an unknown id, a tag that selects nothing),
// the offline checks of an entry, the bulk request, and export's one document.

import { describe, expect, it } from 'vitest';
import { kindOf } from '../../src/kinds/index.js';
import type { LiveResource } from '../../src/model/resource.js';
import { desiredOf, doc, fetchCtx, requestCtx } from './helpers.js';

const kind = kindOf('PredefinedPolicies');
const record = (policyId: string, extra: Record<string, unknown> = {}) => ({
  policyId,
  policyType: 'Compliance',
  owner: 'SVC',
  enabled: true,
  severity: 'High',
  tags: ['framework:cis-aws-1-4-0', 'domain:AWS'],
  lastUpdateUser: 'SVC',
  lastUpdateTime: '2024-01-15T08:00:00.000Z',
  ...extra,
});
const LIST = {
  data: [
    record('svc-global-8'),
    record('svc-global-2', { policyType: 'Manual', enabled: false, severity: 'low' }),
    record('svc-global-73', { tags: ['framework:cis-gcp-1-3-0'] }),
    record('prod-mine', { owner: 'me@example.com', tags: ['framework:cis-aws-1-4-0'] }),
  ],
};

async function live(): Promise<LiveResource[]> {
  return kind.list(fetchCtx({ '/api/v2/Policies': LIST }));
}

describe('PredefinedPolicies', () => {
  it('lists the predefined policies only, in the service order, state in spec and tags in info', async () => {
    const all = await live();
    expect(all.map((r) => [r.name, r.spec])).toEqual([
      ['svc-global-2', { enabled: false, severity: 'low' }],
      ['svc-global-8', { enabled: true, severity: 'high' }],
      ['svc-global-73', { enabled: true, severity: 'high' }],
    ]);
    expect(all[1].info?.tags).toEqual(['framework:cis-aws-1-4-0', 'domain:AWS']);
    expect(all[1].lastChange).toEqual({ by: 'SVC', at: '2024-01-15T08:00:00.000Z' });
  });

  it('expands entries: by id and by tag (with *), later entries winning member by member, at the line of the entry that set them last', async () => {
    const d = desiredOf(
      kind,
      doc('PredefinedPolicies', 'state', {
        policies: [
          { tag: 'framework:cis-*', enabled: true, severity: 'CRITICAL' },
          { policy: 'svc-global-2', enabled: 0 },
        ],
      }, { positions: { '/policies/0': { file: 'f.yaml', line: 5, column: 7 }, '/policies/1': { file: 'f.yaml', line: 8, column: 7 } } }),
    );
    const { resources, diagnostics } = kind.select!.expand(d, await live());
    expect(diagnostics).toEqual([]);
    expect(resources.map((r) => [r.name, r.spec, r.source?.line])).toEqual([
      ['svc-global-2', { enabled: false, severity: 'critical' }, 8],
      ['svc-global-8', { enabled: true, severity: 'critical' }, 5],
      ['svc-global-73', { enabled: true, severity: 'critical' }, 5],
    ]);
  });

  it('says what a selection cannot do: a second document, an id the account lacks (a custom one too), a tag that selects nothing', async () => {
    const first = desiredOf(kind, doc('PredefinedPolicies', 'state', { policies: [{ policy: 'svc-global-5', enabled: true }, { policy: 'prod-mine', enabled: true }, { tag: 'framework:none', severity: 'low' }] }));
    const second = desiredOf(kind, doc('PredefinedPolicies', 'more', { policies: [{ policy: 'svc-global-8', enabled: true }] }));
    const { resources, diagnostics } = kind.select!.expand([...first, ...second], await live());
    expect(resources).toEqual([]);
    expect(diagnostics.map((x) => [x.severity, x.code, x.field])).toEqual([
      ['error', 'duplicate-resource', undefined],
      ['error', 'unknown-reference', '/spec/policies/0/policy'],
      ['error', 'unknown-reference', '/spec/policies/1/policy'],
      ['warning', 'selector-matches-nothing', '/spec/policies/2/tag'],
    ]);
    expect(diagnostics[0].message).toContain('`more` is a second PredefinedPolicies document for account prod');
  });

  it('checks entries offline: policy or tag, something to set, an id once', () => {
    const at = (pointer: string) => ({ field: pointer });
    const problems = kind.documents!.check!(
      { kind: 'PredefinedPolicies', name: 'state', spec: { policies: [{ policy: 'svc-global-1', tag: 'x', enabled: true }, { severity: 'low' }, { policy: 'svc-global-8' }, { policy: 'svc-global-1', enabled: false }] } },
      at,
    );
    expect(problems.map((p) => [p.code, p.field])).toEqual([
      ['conflicting-members', '/spec/policies/0'],
      ['missing-field', '/spec/policies/1'],
      ['missing-field', '/spec/policies/2'],
      ['duplicate-item', '/spec/policies/3/policy'],
    ]);
  });

  it('sends the changed members of every update in one bare array; a single update goes the same way', () => {
    const ctx = requestCtx();
    const desired = (name: string, spec: Record<string, unknown>) => ({ kind: 'PredefinedPolicies', account: 'prod', name, spec: spec as never, envRefs: {} });
    const req = kind.bulkUpdate!.request(
      [
        { id: 'svc-global-8', desired: desired('svc-global-8', { enabled: false, severity: 'high' }), changed: ['enabled'] },
        { id: 'svc-global-2', desired: desired('svc-global-2', { enabled: true, severity: 'critical' }), changed: ['enabled', 'severity'] },
      ],
      ctx,
    );
    expect(req).toMatchObject({ method: 'PATCH', path: '/api/v2/Policies', account: 'prod' });
    expect(req.body).toEqual([{ policyId: 'svc-global-8', enabled: false }, { policyId: 'svc-global-2', enabled: true, severity: 'critical' }]);
    expect(kind.updateRequests('svc-global-8', desired('svc-global-8', { severity: 'low' }), ['severity'], ctx)[0].body).toEqual([{ policyId: 'svc-global-8', severity: 'low' }]);
    expect(() => kind.createRequest(desired('svc-global-9', {}), [], ctx)).toThrow(/cannot be created/);
    expect(() => kind.deleteRequest('svc-global-9', ctx)).toThrow(/cannot be deleted/);
  });

  it('exports one document holding the state of every predefined policy', async () => {
    const all = await live();
    const doc = kind.export!.toDocument({ kind: 'PredefinedPolicies', account: 'prod', name: kind.export!.documentOf!(all[0]), id: 'x', spec: {} }, all);
    expect(doc).toEqual({
      kind: 'PredefinedPolicies',
      name: 'predefined-policies',
      spec: {
        policies: [
          { policy: 'svc-global-2', enabled: false, severity: 'low' },
          { policy: 'svc-global-8', enabled: true, severity: 'high' },
          { policy: 'svc-global-73', enabled: true, severity: 'high' },
        ],
      },
    });
  });
});
