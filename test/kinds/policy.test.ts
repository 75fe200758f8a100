// Query and Policy as kinds: records in the shapes of the public clients' recorded answers read to
// the spec a file gives (severity in any case, tags as a set, a record without queryId, a bare
// profile, a Compliance policy without frequency), the vendor's records told apart, the id suffix
// read whatever the tenant, requests with the service's member names, and the offline checks.

import { describe, expect, it } from 'vitest';
import { Policy } from '../../src/kinds/policy/index.js';
import { isPredefinedPolicy, suffixOf } from '../../src/kinds/policy/ids.js';
import { Query } from '../../src/kinds/query/index.js';
import { queryTextFindings } from '../../src/kinds/query/text.js';
import type { Locate } from '../../src/kinds/types.js';
import type { Json, JsonObject } from '../../src/model/json.js';
import { desiredOf, doc, fetchCtx, requestCtx } from './helpers.js';

const at: Locate = (pointer) => ({ file: 'p.yaml', line: 1, column: 1, field: pointer });

/** A custom policy as the service's recorded answers show one. */
const recorded = (over: Record<string, Json | undefined> = {}): JsonObject => without({
  policyId: 'acme-corp-publicbucket-12',
  policyType: 'Violation',
  queryId: 'PublicBucket',
  title: 'Public bucket',
  description: 'Buckets anyone may read',
  remediation: 'Remove the grant',
  severity: 'high',
  enabled: true,
  alertEnabled: false,
  alertProfile: 'CUSTOM_PROFILE.Bucket_Violation',
  evalFrequency: 'Daily',
  limit: 1000,
  tags: ['team:data', 'domain:AWS'],
  owner: 'alice@example.com',
  lastUpdateTime: '2026-03-01T10:00:00.000Z',
  lastUpdateUser: 'alice@example.com',
  exceptionConfiguration: { constraintFields: [{ fieldKey: 'accountIds', dataType: 'String', multiValue: true }] },
  ...over,
});
/** The object without its undefined members (a record that leaves a member out). */
const without = (o: Record<string, Json | undefined>): JsonObject => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as JsonObject;

describe('policy ids', () => {
  it('reads the suffix from the end of the id, whatever the tenant', () => {
    expect(suffixOf('prod-traildeleted')).toBe('traildeleted');
    expect(suffixOf('acme-corp-publicbucket-12')).toBe('publicbucket-12');
    expect(suffixOf('acme-7-pol')).toBe('pol');
    expect(suffixOf('acme-default-3')).toBe('default-3');
    expect(suffixOf('acme-abcdefghijklmnopq')).toBeUndefined();
    expect(suffixOf('nodash')).toBeUndefined();
  });

  it("tells the vendor's policies by owner and id, or by the Manual type", () => {
    expect(isPredefinedPolicy({ policyId: 'lacework-global-46', owner: 'Lacework' })).toBe(true);
    expect(isPredefinedPolicy({ policyId: 'svc-global-1', owner: 'SVC' })).toBe(true);
    expect(isPredefinedPolicy({ policyId: 'acme-global-1', owner: 'alice@example.com' })).toBe(false);
    expect(isPredefinedPolicy({ policyId: 'svc-global-x', owner: 'SVC' })).toBe(false);
    expect(isPredefinedPolicy({ policyId: 'acme-thing', policyType: 'Manual' })).toBe(true);
    expect(isPredefinedPolicy({ owner: 'SVC' })).toBe(false);
  });
});

describe('Policy', () => {
  const file: JsonObject = {
    query: 'PublicBucket',
    title: 'Public bucket',
    description: 'Buckets anyone may read',
    remediation: 'Remove the grant',
    severity: 'HIGH',
    alertEnabled: false,
    alertTemplate: 'CUSTOM_PROFILE.Bucket_Violation',
    frequency: 'Daily',
    tags: ['domain:AWS', 'team:data'],
  };

  it('reads a recorded answer as the spec the file gives, named by its suffix', async () => {
    const ctx = fetchCtx({ '/api/v2/Policies': { data: [recorded(), recorded({ policyId: 'svc-global-8', owner: 'SVC', policyType: 'Manual', queryId: undefined })], message: 'SUCCESS' } });
    const [custom, vendor] = await Policy.list(ctx);
    const [desired] = desiredOf(Policy, doc('Policy', 'publicbucket-12', file));
    expect(custom).toMatchObject({ name: 'publicbucket-12', id: 'acme-corp-publicbucket-12', lastChange: { by: 'alice@example.com', at: '2026-03-01T10:00:00.000Z' } });
    expect(custom.spec).toEqual(desired.spec);
    expect(custom.managedByService).toBeUndefined();
    expect(vendor).toMatchObject({ name: 'svc-global-8', id: 'svc-global-8', managedByService: true });
    expect(vendor.spec.query).toBeUndefined();
    expect(Policy.export!.toDocument(vendor, [])).toBeNull();
  });

  it('a Compliance policy has no frequency; a bare profile is alertProfile; defaults fill what a record leaves out', async () => {
    const rec = recorded({ policyType: 'Compliance', evalFrequency: undefined, alertProfile: 'SVC_CFG_AWS_DEFAULT_PROFILE', limit: undefined, severity: 'Info', tags: undefined });
    const [live] = await Policy.list(fetchCtx({ '/api/v2/Policies': { data: [rec] } }));
    expect(live.spec).toEqual({
      query: 'PublicBucket',
      type: 'Compliance',
      title: 'Public bucket',
      description: 'Buckets anyone may read',
      remediation: 'Remove the grant',
      severity: 'info',
      enabled: true,
      alertEnabled: false,
      limit: 1000,
      tags: [],
      alertProfile: 'SVC_CFG_AWS_DEFAULT_PROFILE',
    });
    // Export writes only what differs from the defaults, and reads back to the same spec.
    const exported = Policy.export!.toDocument(live, [])!;
    expect(exported).toEqual({
      kind: 'Policy',
      name: 'publicbucket-12',
      spec: { query: 'PublicBucket', title: 'Public bucket', description: 'Buckets anyone may read', remediation: 'Remove the grant', severity: 'info', type: 'Compliance', alertEnabled: false, alertProfile: 'SVC_CFG_AWS_DEFAULT_PROFILE' },
    });
    expect(desiredOf(Policy, doc('Policy', exported.name, exported.spec))[0].spec).toEqual(live.spec);
  });

  it('creates with the name as the suffix, under the service names; updates carry the query again and no policyId', () => {
    const [desired] = desiredOf(Policy, doc('Policy', 'publicbucket-12', file));
    const create = Policy.createRequest(desired, [], requestCtx());
    expect(create).toMatchObject({ method: 'POST', path: '/api/v2/Policies', account: 'prod' });
    expect(create.body).toEqual({
      policyId: 'publicbucket-12',
      queryId: 'PublicBucket',
      policyType: 'Violation',
      title: 'Public bucket',
      description: 'Buckets anyone may read',
      remediation: 'Remove the grant',
      severity: 'high',
      enabled: true,
      alertEnabled: false,
      evalFrequency: 'Daily',
      limit: 1000,
      tags: ['domain:AWS', 'team:data'],
      alertProfile: 'CUSTOM_PROFILE.Bucket_Violation',
    });
    expect(Policy.createdId({ data: { policyId: 'prod-publicbucket-12' }, message: 'SUCCESS' }, desired)).toBe('prod-publicbucket-12');
    expect(() => Policy.createdId({ data: {} }, desired)).toThrow(/policyId/);
    const [update] = Policy.updateRequests('acme-corp-publicbucket-12', desired, ['severity', 'tags'], requestCtx());
    expect(update).toMatchObject({ method: 'PATCH', path: '/api/v2/Policies/acme-corp-publicbucket-12', body: { severity: 'high', tags: ['domain:AWS', 'team:data'], queryId: 'PublicBucket' } });
    expect(Object.keys(update.body as JsonObject).sort()).toEqual(['queryId', 'severity', 'tags']);
    expect(Policy.updateRequests('x-y', desired, [], requestCtx())).toEqual([]);
    // To Compliance: the type goes, no frequency with it.
    const [compliance] = desiredOf(Policy, doc('Policy', 'publicbucket-12', without({ ...file, type: 'Compliance', frequency: undefined })));
    expect(Policy.updateRequests('x-y', compliance, ['type', 'frequency'], requestCtx())[0].body).toEqual({ policyType: 'Compliance', queryId: 'PublicBucket' });
  });

  it('checks offline: the name rule, a frequency on a Compliance policy, both alert members', () => {
    expect(Policy.documents!.check!({ kind: 'Policy', name: 'publicbucket-12', spec: file }, at)).toEqual([]);
    const bad = Policy.documents!.check!({ kind: 'Policy', name: 'Public_Bucket', spec: { ...file, type: 'Compliance', alertProfile: 'P' } }, at);
    expect(bad.map((d) => [d.code, d.field, d.message])).toEqual([
      ['invalid-name', '/name', 'Policy "Public_Bucket": the service derives its id from its name, and a name is lower-case letters (at most 16), optionally followed by `-` and digits (at most 8), such as `publicbucket` or `publicbucket-2`'],
      ['conflicting-members', '/spec/frequency', 'Policy "Public_Bucket": a Compliance policy has no evaluation frequency'],
      ['conflicting-members', '/spec/alertProfile', 'Policy "Public_Bucket": give alertTemplate or alertProfile, not both'],
    ]);
  });

  it("offers a profile's templates as members, declared (file form) or live (children)", () => {
    const members = Policy.memberReferences![0].members;
    expect(members({ extends: 'X', alerts: [{ name: 'A' }, { name: 'B' }] }, [])).toEqual(['A', 'B']);
    expect(members({ extends: 'X' }, [{ name: 'CUSTOM.C', spec: {} }, { name: 'CUSTOM.D.E', spec: {} }])).toEqual(['C', 'D.E']);
  });
});

describe('Query', () => {
  const TEXT = '--- a comment\n{\n  source { CloudTrailRawEvents e }\n  filter { e.X = 1 }  \n  return distinct { e.A }\n}\n';

  it('keeps the text verbatim, the predefined prefix marks the service\'s queries, optional members only when given', async () => {
    const ctx = fetchCtx({
      '/api/v2/Queries': {
        data: [
          { queryId: 'Mine', queryText: TEXT, queryName: 'Mine', owner: 'alice', lastUpdateTime: '2026-03-01T10:00:00.000Z', lastUpdateUser: 'alice', resultSchema: [], providers: ['AWS'], usedByPolicies: ['p'] },
          { queryId: 'LW_Global_AWS_CTA_X', queryText: '{ source { x } return { y } }', owner: 'Lacework' },
        ],
      },
    });
    ctx.settings = { predefinedProfilePrefix: 'LW_' };
    const [mine, vendor] = await Query.list(ctx);
    expect(mine).toMatchObject({ name: 'Mine', id: 'Mine', spec: { text: TEXT, name: 'Mine' } });
    expect(Object.keys(mine.spec).sort()).toEqual(['name', 'text']);
    expect(vendor.managedByService).toBe(true);
    expect(Query.export!.toDocument(vendor, [])).toBeNull();
    expect(Query.export!.toDocument(mine, [])).toEqual({ kind: 'Query', name: 'Mine', spec: { name: 'Mine', text: TEXT } });
    const [desired] = desiredOf(Query, doc('Query', 'Mine', { text: TEXT, description: 'd' }));
    expect(Query.createRequest(desired, [], requestCtx()).body).toEqual({ queryId: 'Mine', queryText: TEXT, description: 'd' });
    expect(Query.updateRequests('Mine', desired, ['text'], requestCtx())[0]).toMatchObject({ method: 'PATCH', path: '/api/v2/Queries/Mine', body: { queryText: TEXT } });
    expect(Query.serviceCheck!.request(desired, requestCtx())).toMatchObject({ method: 'POST', path: '/api/v2/Queries/validate', body: { queryText: TEXT } });
    expect(Query.serviceCheck!.verdict({ status: 200, body: { data: {} } })).toBeUndefined();
    expect(Query.serviceCheck!.verdict({ status: 400, message: 'Invalid query text: line 2' })).toBe('Invalid query text: line 2');
  });

  it('checks the name offline; the text shape is a warning that says the line', () => {
    const check = (name: string, text: string) => Query.documents!.check!({ kind: 'Query', name, spec: { text } }, at, {}).map((d) => [d.severity, d.code, d.message]);
    expect(check('Mine', TEXT)).toEqual([]);
    expect(check('my query', TEXT)).toEqual([['error', 'invalid-name', "Query \"my query\": a Query's name is its queryId, which holds letters, digits, `-`, `_` and `.` only"]]);
    expect(check('SVC_Mine', TEXT)).toEqual([['error', 'query-reserved-id', 'Query "SVC_Mine": ids starting with SVC_ are the service\'s predefined queries']]);
    expect(check('Mine', '{\n  source { x }\n')).toEqual([['warning', 'query-text-shape', 'Query "Mine": line 1 of the text: a `{` is not closed']]);
  });

  it('finds the shape problems a text the service parses cannot have', () => {
    expect(queryTextFindings('Mine {\n source { a }\n return { b }\n}')).toEqual([]);
    expect(queryTextFindings("{ source { a } filter { b = '}' } return { c } }")).toEqual([]);
    expect(queryTextFindings('--- only\n--- comments')).toEqual([{ line: 1, message: 'the text holds nothing but comments' }]);
    expect(queryTextFindings('{ source { a } } }')).toEqual([{ line: 1, message: 'a `}` closes nothing' }]);
    expect(queryTextFindings("{ source { a = 'x\n} return { b } }")).toEqual([{ line: 1, message: "a quoted text (') is not closed on its line" }]);
    expect(queryTextFindings('{ source { a } } { }')[0].message).toMatch(/^a query is one block/);
    expect(queryTextFindings('two words { source { a } return { b } }')).toEqual([{ line: 1, message: '`two words` before the block is not a query id' }]);
    expect(queryTextFindings('{\n source { a }\n select { b }\n return { c }\n}')).toEqual([{ line: 3, message: '`select` is not a section (source, filter, return)' }]);
    expect(queryTextFindings('{\n return { c }\n source { }\n}')).toEqual([
      { line: 3, message: 'section `source` comes after `return`; the order is source, filter, return' },
      { line: 3, message: 'section `source` is empty' },
    ]);
    expect(queryTextFindings('{ source { a } source { b } return { c } }')).toEqual([{ line: 1, message: 'section `source` is given twice' }]);
    expect(queryTextFindings('{ filter { a } stray }')).toEqual([
      { line: 1, message: '`stray` stands outside any section' },
      { line: 1, message: 'section `source` is missing' },
      { line: 1, message: 'section `return` is missing' },
    ]);
  });
});
