// PolicyException alone: a document per policy becomes one resource per exception named
// `<policy>/<description>`; constraints read in one canonical form from a file and from the service;
// the live read lists the parents it is handed (one path each, `?policyId=`); requests carry the
// policy on every verb, the id `<policyId>/<exceptionId>`; the offline and live checks; export.

import { describe, expect, it } from 'vitest';
import { kindOf } from '../../src/kinds/index.js';
import type { JsonObject } from '../../src/model/json.js';
import type { LiveResource } from '../../src/model/resource.js';
import { desiredOf, doc, fetchCtx, requestCtx } from './helpers.js';

const kind = kindOf('PolicyException');
const SPEC: JsonObject = {
  exceptions: [
    { description: 'Website', constraints: { resourceNames: ['b', 'a', 'b'], resourceTags: [{ key: 'public', value: ['yes', 'true'] }] } },
    { description: 'Sandbox', previousDescriptions: ['Old sandbox'], constraints: { accountIds: ['123456789012'] } },
  ],
};

describe('PolicyException', () => {
  it('reads a document as one resource per exception, constraints canonical, renames per exception', () => {
    const [website, sandbox] = desiredOf(kind, doc('PolicyException', 'svc-global-8', SPEC));
    expect(website).toMatchObject({
      name: 'svc-global-8/Website',
      parent: 'svc-global-8',
      spec: { policy: 'svc-global-8', description: 'Website', constraints: { resourceNames: ['a', 'b'], resourceTags: [{ key: 'public', value: ['true', 'yes'] }] } },
    });
    expect(sandbox.previousNames).toEqual(['svc-global-8/Old sandbox']);
  });

  it('lists the exceptions of the parents it is handed, one path each, in the same canonical form', async () => {
    const ctx = fetchCtx({
      '/api/v2/Exceptions?policyId=prod-mine': {
        data: [
          {
            exceptionId: 'E1',
            description: 'Website',
            constraints: [
              { fieldKey: 'resourceTags', fieldValues: [{ key: 'public', value: ['yes', 'true'] }] },
              { fieldKey: 'resourceNames', fieldValues: ['b', 'a'] },
            ],
            lastUpdateUser: 'ops@example.com',
            lastUpdateTime: '2026-01-02T03:04:05.000Z',
          },
        ],
      },
    });
    const live = await kind.list({ ...ctx, parents: [{ id: 'prod-mine', name: 'mine' }] });
    expect(ctx.fetched).toEqual(['/api/v2/Exceptions?policyId=prod-mine']);
    expect(live).toEqual([
      {
        kind: 'PolicyException',
        account: 'prod',
        name: 'mine/Website',
        id: 'prod-mine/E1',
        parent: 'mine',
        spec: { policy: 'prod-mine', description: 'Website', constraints: { resourceNames: ['a', 'b'], resourceTags: [{ key: 'public', value: ['true', 'yes'] }] } },
        lastChange: { by: 'ops@example.com', at: '2026-01-02T03:04:05.000Z' },
      },
    ]);
    expect(await kind.list(fetchCtx({}))).toEqual([]);
  });

  it('puts the policy on every verb; the id carries it', () => {
    const [website] = desiredOf(kind, doc('PolicyException', 'mine', SPEC));
    const ctx = requestCtx({ 'Policy/mine': 'prod-mine' });
    expect(kind.createRequest(website, [], ctx)).toMatchObject({
      method: 'POST',
      path: '/api/v2/Exceptions?policyId=prod-mine',
      body: { description: 'Website', constraints: [{ fieldKey: 'resourceNames', fieldValues: ['a', 'b'] }, { fieldKey: 'resourceTags', fieldValues: [{ key: 'public', value: ['true', 'yes'] }] }] },
    });
    expect(kind.createdId({ data: { exceptionId: 'E9' } }, website, ctx)).toBe('prod-mine/E9');
    expect(kind.updateRequests('prod-mine/E9', website, ['constraints'], ctx).map((r) => [r.method, r.path, Object.keys(r.body as object)])).toEqual([['PATCH', '/api/v2/Exceptions/E9?policyId=prod-mine', ['constraints']]]);
    expect(kind.updateRequests('prod-mine/E9', website, [], ctx, { rename: true })[0].body).toEqual({ description: 'Website' });
    expect(kind.deleteRequest('prod-mine/E9', ctx)).toMatchObject({ method: 'DELETE', path: '/api/v2/Exceptions/E9?policyId=prod-mine' });
    expect(() => kind.deleteRequest('E9', ctx)).toThrow(/not <policyId>\/<exceptionId>/);
  });

  it('checks offline: descriptions once, tags as lists without wildcards, renames per exception', () => {
    const at = (pointer: string) => ({ field: pointer });
    const problems = kind.documents!.check!(
      {
        kind: 'PolicyException',
        name: 'mine',
        previousNames: ['other'],
        spec: {
          exceptions: [
            { description: 'A', constraints: { resourceTags: [{ key: 'env', value: 'prod' }, { key: 'team*', value: ['x'] }, 'plain'] } },
            { description: 'A', constraints: { accountIds: ['1'] } },
          ],
        },
      },
      at,
    );
    expect(problems.map((p) => [p.code, p.field])).toEqual([
      ['rename-unsupported', '/previousNames'],
      ['invalid-value', '/spec/exceptions/0/constraints/resourceTags/0/value'],
      ['invalid-value', '/spec/exceptions/0/constraints/resourceTags/1'],
      ['invalid-type', '/spec/exceptions/0/constraints/resourceTags/2'],
      ['duplicate-item', '/spec/exceptions/1/description'],
    ]);
    expect(problems[1].hint).toBe('write the value as a list: value: ["prod"]');
  });

  it('checks field keys and their types against the live policy; says nothing without one', () => {
    const desired = desiredOf(
      kind,
      doc('PolicyException', 'mine', { exceptions: [{ description: 'X', constraints: { projects: ['p'], organizations: ['acme'], resourceLabels: ['plain'], accountIds: ['1'] } }] }),
    );
    const policy = (fields: unknown[]): LiveResource => ({ kind: 'Policy', account: 'prod', name: 'mine', id: 'prod-mine', spec: {}, info: { constraintFields: fields as never } });
    const gcp = [
      { fieldKey: 'organizations', dataType: 'Number', multiValue: true },
      { fieldKey: 'projects', dataType: 'String', multiValue: true },
      { fieldKey: 'resourceLabels', dataType: 'KVTagPair', multiValue: true },
    ];
    expect(kind.check!(desired[0], [policy(gcp)]).map((d) => d.message)).toEqual([
      'PolicyException mine/X: fieldKey accountIds is not applicable to policy prod-mine',
      'PolicyException mine/X: organizations of policy prod-mine takes numbers',
      'PolicyException mine/X: resourceLabels of policy prod-mine takes tags {key, value: [..]}',
    ]);
    expect(kind.check!(desired[0], [policy([])]).map((d) => d.message)).toEqual(['PolicyException mine/X: policy prod-mine takes no exceptions (its exceptionConfiguration lists no field)']);
    expect(kind.check!(desired[0], [])).toEqual([]);
  });

  it('exports one document per policy, exceptions by description; a repeated description is left out with a warning', () => {
    const rec = (id: string, description: string, constraints: Record<string, unknown>): LiveResource => ({ kind: 'PolicyException', account: 'prod', name: `svc-global-8/${description}`, id, parent: 'svc-global-8', spec: { policy: 'svc-global-8', description, constraints: constraints as never } });
    const records = [rec('svc-global-8/E2', 'B', { arns: ['x'] }), rec('svc-global-8/E1', 'A', { resourceTags: [{ key: 'k', value: 'one' }] }), rec('svc-global-8/E3', 'B', { arns: ['y'] })];
    const name = kind.export!.documentOf!(records[0]);
    const exported = kind.export!.toDocument({ kind: 'PolicyException', account: 'prod', name, id: name, spec: {} }, records)!;
    expect(exported.name).toBe('svc-global-8');
    expect(exported.spec).toEqual({
      exceptions: [
        { description: 'A', constraints: { resourceTags: [{ key: 'k', value: ['one'] }] } },
        { description: 'B', constraints: { arns: ['x'] } },
      ],
    });
    expect(exported.notes?.map((n) => n.code)).toEqual(['duplicate-live-name']);
  });
});
