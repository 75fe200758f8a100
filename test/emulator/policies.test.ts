// The emulator's Queries, Policies and policy Exceptions (api-facts.md "Queries, policies,
// exceptions, team members, data export"): client-chosen query ids and verbatim texts, the parse
// check, predefined content under the vendor's prefix, policy ids built from a suffix, the bulk
// PATCH with a bare array, the flat exceptions path with ?policyId=, and the service's texts.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { manualClock, type ManualClock } from '../../src/emulator/index.js';
import { boot, type Harness } from './helpers.js';

let h: Harness;
let clock: ManualClock;
beforeEach(async () => {
  clock = manualClock(Date.UTC(2025, 0, 2, 3, 4, 5));
  h = await boot({ accounts: ['prod', 'staging'], clock });
});
afterEach(() => h.close());

const TEXT = '{\n  source {\n    CloudTrailRawEvents e\n  }\n  filter {\n    e.EVENT_NAME = \'DeleteTrail\'\n  }\n  return distinct {\n    e.INSERT_ID as ID, e.EVENT_TIME\n  }\n}  \n';
const query = (queryId: string, queryText = TEXT) => ({ queryId, queryText });
const policy = (extra: Record<string, unknown> = {}) => ({
  policyType: 'Violation',
  queryId: 'my_query',
  title: 'Trail deleted',
  description: 'A trail was deleted',
  remediation: 'Restore it',
  severity: 'high',
  ...extra,
});
const prod = { account: 'prod' };
const post = (path: string, body: unknown) => h.call('POST', path, { ...prod, body });

describe('Queries', () => {
  it('creates with a client-chosen id, keeps the text verbatim and answers `already exists` for a taken id', async () => {
    const r = await post('Queries', { ...query('my_query'), queryName: 'n', description: 'd' });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({ queryId: 'my_query', queryText: TEXT, queryName: 'n', description: 'd', owner: 'admin@example.com', lastUpdateUser: 'admin@example.com', usedByPolicies: [] });
    expect(r.body.data.lastUpdateTime).toBe('2025-01-02T03:04:05.000Z');
    expect(r.body.data.resultSchema).toEqual([
      { name: 'ID', dataType: 'String' },
      { name: 'EVENT_TIME', dataType: 'String' },
    ]);
    expect(r.body.data.providers).toEqual(['AWS']);
    expect((await h.call('GET', 'Queries/my_query', prod)).body.data.queryText).toBe(TEXT);
    const again = await post('Queries', query('my_query'));
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('already exists');
    // Accounts are apart.
    expect((await h.call('GET', 'Queries/my_query', { account: 'staging' })).status).toBe(404);
  });

  it('answers an unknown id with the service text', async () => {
    const r = await h.call('GET', 'Queries/ID_NOT_FOUND', prod);
    expect(r).toMatchObject({ status: 404, body: { message: 'Query id ID_NOT_FOUND not found' } });
  });

  it.each([
    ['an unclosed brace', '{ source { A a } return { a.X }', 'line 1: the { opened here is not closed'],
    ['an extra closing brace', '{ source { A a } return { a.X } } }', 'unexpected }'],
    ['no return section', '{ source { A a } filter { a.X = 1 } }', 'no return section'],
    ['no source section', '{ return { a.X } }', 'no source section'],
    ['an unknown section', '{ source { A a } select { a.X } return { a.X } }', 'expected a section source, filter or return, found "select"'],
    ['sections out of order', '{ return { a.X } source { A a } }', 'out of order'],
    ['an empty source', '{ source { } return { a.X } }', 'the source section is empty'],
    ['an unclosed quote', "{ source { A a } filter { a.X = 'x } return { a.X } }", 'quoted text'],
    ['text after the query', '{ source { A a } return { a.X } } trailing', 'text after the closing }'],
  ])('refuses a text with %s, at validate and at create (400)', async (_, text, problem) => {
    const v = await post('Queries/validate', { queryText: text });
    expect(v.status).toBe(400);
    expect(v.body.message).toContain(problem);
    expect((await post('Queries', query('q_bad', text))).status).toBe(400);
    expect((await h.call('GET', 'Queries/q_bad', prod)).status).toBe(404);
  });

  it('validates both text forms and comment lines, answering query-shaped data and storing nothing', async () => {
    const named = 'my_named_query {\n--- a comment with { an unbalanced brace\n  source { LW_HE_FILES f }\n  return { f.PATH }\n}';
    const v = await post('Queries/validate', { queryText: named });
    expect(v.status).toBe(200);
    expect(v.body.data).toMatchObject({ queryId: 'my_named_query', queryText: named, resultSchema: [{ name: 'PATH', dataType: 'String' }], providers: ['Agent'] });
    expect((await post('Queries/validate', { queryText: TEXT })).body.data.queryId).toBe('');
    expect((await h.call('GET', 'Queries', prod)).body.data.some((q: any) => q.queryId === 'my_named_query')).toBe(false);
  });

  it('patches without queryId (400 with it), refuses a change of evaluatorId, deletes with 204', async () => {
    await post('Queries', { ...query('my_query'), evaluatorId: 'Cloudtrail' });
    const moved = await h.call('PATCH', 'Queries/my_query', { ...prod, body: { queryId: 'other', description: 'x' } });
    expect(moved.status).toBe(400);
    expect(moved.body.message).toContain('queryId');
    const text2 = '{ source { CloudTrailRawEvents e } return { e.X } }';
    const p = await h.call('PATCH', 'Queries/my_query', { ...prod, body: { queryText: text2 } });
    expect(p.status).toBe(200);
    expect(p.body.data).toMatchObject({ queryId: 'my_query', queryText: text2, evaluatorId: 'Cloudtrail' });
    expect((await h.call('PATCH', 'Queries/my_query', { ...prod, body: { evaluatorId: '' } })).status).toBe(400);
    expect((await h.call('PATCH', 'Queries/my_query', { ...prod, body: { queryText: '{ source {' } })).status).toBe(400);
    const d = await h.call('DELETE', 'Queries/my_query', prod);
    expect(d.status).toBe(204);
    expect(d.body).toBeUndefined();
    expect((await h.call('GET', 'Queries/my_query', prod)).status).toBe(404);
  });

  it('lists the predefined queries under the prefix with the vendor as owner; they are read-only and their prefix reserved', async () => {
    const list = (await h.call('GET', 'Queries', prod)).body.data;
    const predefined = list.filter((q: any) => q.queryId.startsWith('SVC_Global_'));
    expect(predefined.length).toBeGreaterThanOrEqual(5);
    expect(predefined.every((q: any) => q.owner === 'SVC')).toBe(true);
    expect(predefined.map((q: any) => q.queryId)).toContain('SVC_Global_AWS_CTA_AccessKeyDeleted');
    const used = predefined.find((q: any) => q.queryId === 'SVC_Global_AWS_CTA_AccessKeyDeleted');
    expect(used.usedByPolicies).toEqual(['svc-global-39']);
    expect((await h.call('PATCH', 'Queries/SVC_Global_AWS_CTA_AccessKeyDeleted', { ...prod, body: { description: 'x' } })).status).toBe(403);
    expect((await h.call('DELETE', 'Queries/SVC_Global_AWS_CTA_AccessKeyDeleted', prod)).status).toBe(403);
    const reserved = await post('Queries', query('SVC_mine'));
    expect(reserved.status).toBe(400);
    expect(reserved.body.message).toContain('reserved');
  });

  it('refuses to delete a query a policy uses, naming the policy; after the policy goes, the query may', async () => {
    await post('Queries', query('my_query'));
    const p = (await post('Policies', policy({ policyId: 'trail' }))).body.data;
    expect((await h.call('GET', 'Queries/my_query', prod)).body.data.usedByPolicies).toEqual(['prod-trail']);
    const refused = await h.call('DELETE', 'Queries/my_query', prod);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('Query my_query is used by policy prod-trail; delete the policy or change its query first');
    expect((await h.call('DELETE', `Policies/${p.policyId}`, prod)).status).toBe(204);
    expect((await h.call('DELETE', 'Queries/my_query', prod)).status).toBe(204);
  });
});

describe('Policies', () => {
  beforeEach(async () => {
    await post('Queries', query('my_query'));
  });

  it('builds the id from the suffix (<tenant>-<suffix>) and answers with message SUCCESS, severity lower case', async () => {
    const r = await post('Policies', policy({ policyId: 'lwcustom-4567', severity: 'HIGH', tags: ['team:a', 'custom'] }));
    expect(r.status).toBe(201);
    expect(r.body.message).toBe('SUCCESS');
    expect(r.body.data).toMatchObject({
      policyId: 'prod-lwcustom-4567',
      severity: 'high',
      policyType: 'Violation',
      queryId: 'my_query',
      queryText: TEXT,
      enabled: true,
      alertEnabled: true,
      evalFrequency: 'Hourly',
      limit: 1000,
      tags: ['team:a', 'custom'],
      owner: 'admin@example.com',
      lastUpdateUser: 'admin@example.com',
      lastUpdateTime: '2025-01-02T03:04:05.000Z',
    });
    expect(r.body.data.exceptionConfiguration.constraintFields.map((f: any) => f.fieldKey)).toEqual(['accountIds', 'arns', 'resourceNames', 'resourceTags']);
    const got = await h.call('GET', 'Policies/prod-lwcustom-4567', prod);
    expect(got.body).toMatchObject({ message: 'SUCCESS', data: { policyId: 'prod-lwcustom-4567' } });
    const dup = await post('Policies', policy({ policyId: 'lwcustom-4567' }));
    expect(dup.status).toBe(409);
    expect(dup.body.message).toContain('already exists');
  });

  it('generates <tenant>-default-<n> without a suffix', async () => {
    const a = (await post('Policies', policy())).body.data.policyId;
    const b = (await post('Policies', policy())).body.data.policyId;
    expect([a, b]).toEqual(['prod-default-1', 'prod-default-2']);
    expect((await h.call('POST', 'Queries', { account: 'staging', body: query('my_query') })).status).toBe(201);
    expect((await h.call('POST', 'Policies', { account: 'staging', body: policy() })).body.data.policyId).toBe('staging-default-1');
  });

  it.each(['Custom', 'abcdefghijklmnopq', 'abc-123456789', 'abc-', 'abc_1', '-12', 'abc-def'])('refuses the suffix %j with a clear 400', async (suffix) => {
    const r = await post('Policies', policy({ policyId: suffix }));
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('is not a valid policy id suffix: lower-case letters (at most 16), optionally followed by - and digits (at most 8)');
  });

  it.each([
    ['an empty remediation', { remediation: '' }, 'remediation'],
    ['a blank remediation', { remediation: '  ' }, 'remediation: must not be empty'],
    ['no remediation', { remediation: undefined }, 'remediation: required'],
    ['an unknown severity', { severity: 'urgent' }, 'severity: must be one of critical, high, medium, low, info'],
    ['a Manual policy', { policyType: 'Manual' }, 'Manual'],
    ['an unknown query', { queryId: 'nope' }, 'queryId: no query nope'],
    ['a limit above 5000', { limit: 5001 }, 'limit'],
    ['an unknown alert profile', { alertProfile: 'NOPE.T' }, 'no alert profile NOPE'],
    ['an unknown template', { alertProfile: 'SVC_HE_FILES_DEFAULT_PROFILE.Nope' }, 'has no template Nope'],
    ['an unknown frequency', { evalFrequency: 'Weekly' }, 'evalFrequency'],
  ])('refuses %s', async (_, extra, text) => {
    const r = await post('Policies', policy(extra));
    expect(r.status).toBe(400);
    expect(r.body.message).toContain(text);
  });

  it('accepts Compliance (no evalFrequency), an alert template as profile.template or a bare profile', async () => {
    const profiles = (await h.call('GET', 'AlertProfiles', prod)).body.data;
    const withTemplate = profiles.find((p: any) => p.alerts.length > 0);
    const c = await post('Policies', policy({ policyType: 'Compliance', evalFrequency: 'Daily', alertProfile: `${withTemplate.alertProfileId}.${withTemplate.alerts[0].name}` }));
    expect(c.status).toBe(201);
    expect(c.body.data.evalFrequency).toBeUndefined();
    expect(c.body.data.alertProfile).toBe(`${withTemplate.alertProfileId}.${withTemplate.alerts[0].name}`);
    expect((await post('Policies', policy({ alertProfile: withTemplate.alertProfileId }))).status).toBe(201);
  });

  it('patches partially, refusing policyId in the body; DELETE answers 204 and takes the exceptions', async () => {
    const id = (await post('Policies', policy({ policyId: 'trail', tags: ['a'] }))).body.data.policyId;
    const refused = await h.call('PATCH', `Policies/${id}`, { ...prod, body: { policyId: id, severity: 'low' } });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('policyId');
    clock.advance(60_000);
    const p = await h.call('PATCH', `Policies/${id}`, { ...prod, body: { severity: 'Low', queryId: 'my_query' } });
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ message: 'SUCCESS', data: { severity: 'low', title: 'Trail deleted', tags: ['a'], lastUpdateTime: '2025-01-02T03:05:05.000Z' } });
    await h.call('POST', `Exceptions?policyId=${id}`, { ...prod, body: { description: 'e', constraints: [{ fieldKey: 'accountIds', fieldValues: ['1'] }] } });
    expect((await h.call('DELETE', `Policies/${id}`, prod)).status).toBe(204);
    expect((await h.call('GET', `Policies/${id}`, prod)).status).toBe(404);
    expect((await h.call('GET', `Exceptions?policyId=${id}`, prod)).status).toBe(404);
  });

  it('lists predefined policies <vendor>-global-<n>, non-contiguous, owner the vendor, Manual ones among them, with framework tags', async () => {
    const list = (await h.call('GET', 'Policies', prod)).body;
    expect(list.message).toBe('SUCCESS');
    const predefined = list.data.filter((p: any) => p.policyId.startsWith('svc-global-'));
    const numbers = predefined.map((p: any) => Number(p.policyId.slice('svc-global-'.length)));
    expect(numbers).toContain(39);
    expect(numbers.some((n: number, i: number) => i > 0 && n !== numbers[i - 1] + 1)).toBe(true);
    expect(predefined.every((p: any) => p.owner === 'SVC')).toBe(true);
    const manual = predefined.filter((p: any) => p.policyType === 'Manual');
    expect(manual.length).toBeGreaterThan(0);
    expect(manual.every((p: any) => p.queryId === undefined && p.exceptionConfiguration.constraintFields.length === 0)).toBe(true);
    expect(predefined.find((p: any) => p.policyId === 'svc-global-1').tags).toEqual(expect.arrayContaining(['framework:cis-aws-1-4-0', 'domain:AWS']));
    const tags = (await h.call('GET', 'Policies/Tags', prod)).body.data;
    expect(tags).toEqual(expect.arrayContaining(['framework:cis-aws-1-4-0', 'domain:AWS', 'domain:GCP']));
  });

  it('lets a predefined policy change its state only: other members 403, DELETE 403', async () => {
    const ok = await h.call('PATCH', 'Policies/svc-global-8', { ...prod, body: { enabled: false, severity: 'critical' } });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ enabled: false, severity: 'critical', owner: 'SVC' });
    const other = await h.call('PATCH', 'Policies/svc-global-8', { ...prod, body: { title: 'mine' } });
    expect(other.status).toBe(403);
    expect(other.body.message).toContain('only enabled, alertEnabled, severity may change, not title');
    expect((await h.call('DELETE', 'Policies/svc-global-8', prod)).status).toBe(403);
    // Another account keeps its own state.
    expect((await h.call('GET', 'Policies/svc-global-8', { account: 'staging' })).body.data).toMatchObject({ enabled: true, severity: 'high' });
  });

  it('takes the bulk update as a bare array, leaves omitted members, answers {data: [records]}; custom ids too', async () => {
    const custom = (await post('Policies', policy({ policyId: 'mine' }))).body.data.policyId;
    const r = await h.call('PATCH', 'Policies', { ...prod, body: [{ policyId: 'svc-global-2', enabled: true }, { policyId: 'svc-global-39', severity: 'LOW' }, { policyId: custom, enabled: false }] });
    expect(r.status).toBe(200);
    expect(r.body.data.map((p: any) => [p.policyId, p.enabled, p.severity])).toEqual([
      ['svc-global-2', true, 'low'],
      ['svc-global-39', true, 'low'],
      ['prod-mine', false, 'high'],
    ]);
    expect(r.body.data[0]).toMatchObject({ title: expect.any(String), policyType: 'Manual', owner: 'SVC' });
  });

  it.each([
    ['an object instead of an array', { policies: [] }, 'must be array'],
    ['an unknown id', [{ policyId: 'svc-global-1', enabled: false }, { policyId: 'svc-global-3', enabled: true }], '1/policyId: no policy svc-global-3'],
    ['a duplicate id', [{ policyId: 'svc-global-1', enabled: false }, { policyId: 'svc-global-1', enabled: true }], 'listed twice'],
    ['a bad severity', [{ policyId: 'svc-global-1', severity: 'urgent' }], '0/severity'],
    ['no policyId', [{ enabled: true }], 'policyId: required'],
  ])('refuses a bulk update with %s and changes nothing', async (_, body, text) => {
    const r = await h.call('PATCH', 'Policies', { ...prod, body });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain(text);
    expect((await h.call('GET', 'Policies/svc-global-1', prod)).body.data.enabled).toBe(true);
  });

  it('can emulate the real vendor: LW_ queries, lacework-global-<n> policies owned by Lacework', async () => {
    const lw = await boot({ predefinedPrefix: 'LW_', vendor: 'Lacework' });
    try {
      const policies = (await lw.call('GET', 'Policies')).body.data;
      expect(policies.find((p: any) => p.policyId === 'lacework-global-39')).toMatchObject({ owner: 'Lacework', queryId: 'LW_Global_AWS_CTA_AccessKeyDeleted' });
      const q = (await lw.call('GET', 'Queries/LW_Global_AWS_Config_S3BucketPublicRead')).body.data;
      expect(q.owner).toBe('Lacework');
      expect(q.queryText).toContain('LW_CFG_AWS_S3');
    } finally {
      await lw.close();
    }
  });
});

describe('policy Exceptions (?policyId=)', () => {
  let id: string;
  beforeEach(async () => {
    await post('Queries', query('my_query'));
    id = (await post('Policies', policy({ policyId: 'trail' }))).body.data.policyId;
  });
  const at = (policyId: string, rest = '') => `Exceptions${rest}?policyId=${encodeURIComponent(policyId)}`;

  it('creates, lists, reads, patches and deletes exceptions on the flat path', async () => {
    const body = {
      description: 'known accounts',
      constraints: [
        { fieldKey: 'accountIds', fieldValues: ['123456789012', '*'] },
        { fieldKey: 'resourceTags', fieldValues: [{ key: 'env', value: ['dev', 'test'] }] },
      ],
    };
    const c = await h.call('POST', at(id), { ...prod, body });
    expect(c.status).toBe(201);
    expect(c.body.data).toMatchObject({ ...body, lastUpdateUser: 'admin@example.com', lastUpdateTime: '2025-01-02T03:04:05.000Z' });
    const eid = c.body.data.exceptionId;
    expect(eid).toEqual(expect.any(String));
    expect((await h.call('GET', at(id), prod)).body.data.map((e: any) => e.exceptionId)).toEqual([eid]);
    expect((await h.call('GET', at(id, `/${eid}`), prod)).body.data.constraints).toEqual(body.constraints);
    const withId = await h.call('PATCH', at(id, `/${eid}`), { ...prod, body: { exceptionId: eid, description: 'x' } });
    expect(withId.status).toBe(400);
    const p = await h.call('PATCH', at(id, `/${eid}`), { ...prod, body: { description: 'changed' } });
    expect(p.body.data).toMatchObject({ exceptionId: eid, description: 'changed', constraints: body.constraints });
    expect((await h.call('DELETE', at(id, `/${eid}`), prod)).status).toBe(204);
    expect(await h.call('GET', at(id, `/${eid}`), prod)).toMatchObject({ status: 404, body: { message: 'Not Found' } });
  });

  it('refuses a fieldKey the policy does not list with the service text', async () => {
    const r = await h.call('POST', at(id), { ...prod, body: { description: 'd', constraints: [{ fieldKey: 'invalid', fieldValues: ['x'] }] } });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe(`fieldKey: invalid is not applicable to policy ${id}. Valid fieldKey are [accountIds, arns, resourceNames, resourceTags]`);
  });

  it.each([
    ['no constraints', { description: 'd', constraints: [] }, 'constraints'],
    ['no values', { description: 'd', constraints: [{ fieldKey: 'arns', fieldValues: [] }] }, 'fieldValues'],
    ['a tag as a string', { description: 'd', constraints: [{ fieldKey: 'resourceTags', fieldValues: ['env:dev'] }] }, 'must be {key, value: [..]}'],
    ['a wildcard in a tag', { description: 'd', constraints: [{ fieldKey: 'resourceTags', fieldValues: [{ key: 'env', value: ['*'] }] }] }, 'wildcards are not accepted for resourceTags'],
    ['no description', { constraints: [{ fieldKey: 'arns', fieldValues: ['a'] }] }, 'description: required'],
  ])('refuses an exception with %s', async (_, body, text) => {
    const r = await h.call('POST', at(id), { ...prod, body });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain(text);
  });

  it('keeps the older one-value tag form as written', async () => {
    const constraints = [{ fieldKey: 'resourceTags', fieldValues: [{ key: 'env', value: 'dev' }] }];
    const r = await h.call('POST', at(id), { ...prod, body: { description: 'old', constraints } });
    expect(r.status).toBe(201);
    expect(r.body.data.constraints).toEqual(constraints);
  });

  it('needs ?policyId= on every verb, 404 for an unknown policy, and takes exceptions of predefined policies but not Manual ones', async () => {
    expect((await h.call('GET', 'Exceptions', prod)).status).toBe(400);
    expect((await h.call('GET', at('prod-nope'), prod)).status).toBe(404);
    const pre = await h.call('POST', at('svc-global-73'), { ...prod, body: { description: 'p', constraints: [{ fieldKey: 'organizations', fieldValues: ['1234'] }] } });
    expect(pre.status).toBe(201);
    const notNumber = await h.call('POST', at('svc-global-73'), { ...prod, body: { description: 'p', constraints: [{ fieldKey: 'organizations', fieldValues: ['acme'] }] } });
    expect(notNumber.status).toBe(400);
    const manual = await h.call('POST', at('svc-global-2'), { ...prod, body: { description: 'm', constraints: [{ fieldKey: 'accountIds', fieldValues: ['1'] }] } });
    expect(manual.status).toBe(400);
    expect(manual.body.message).toBe('Policy svc-global-2 is a Manual policy; Manual policies take no exceptions');
    // An exception is found through its own policy only.
    const eid = pre.body.data.exceptionId;
    expect((await h.call('GET', at(id, `/${eid}`), prod)).status).toBe(404);
  });
});

describe('state file', () => {
  it('keeps queries, policies with their counter and state, and exceptions across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'emu-policies-'));
    const creds = { keyId: 'K', secret: 'S', statePath: join(dir, 'state.json') };
    let first: Harness | undefined = await boot(creds);
    try {
      await first.call('POST', 'Queries', { body: query('my_query') });
      const id = (await first.call('POST', 'Policies', { body: policy() })).body.data.policyId;
      await first.call('POST', `Exceptions?policyId=${id}`, { body: { description: 'e', constraints: [{ fieldKey: 'arns', fieldValues: ['a'] }] } });
      await first.call('PATCH', 'Policies', { body: [{ policyId: 'svc-global-1', enabled: false }] });
      await first.close();
      first = await boot(creds);
      expect((await first.call('GET', 'Queries/my_query')).body.data.usedByPolicies).toEqual([id]);
      expect((await first.call('GET', `Exceptions?policyId=${id}`)).body.data).toHaveLength(1);
      expect((await first.call('GET', 'Policies/svc-global-1')).body.data.enabled).toBe(false);
      expect((await first.call('POST', 'Policies', { body: policy() })).body.data.policyId).toBe('prod-default-2');
    } finally {
      await first?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('rate limits', () => {
  it('gives the new collections buckets of their own per functionality', async () => {
    const small = await boot({ rateLimit: 2 });
    try {
      const left = (r: { headers: Headers }) => r.headers.get('RateLimit-Remaining');
      expect(left(await small.call('GET', 'Queries'))).toBe('1');
      expect(left(await small.call('GET', 'Queries/SVC_Global_AWS_CTA_AccessKeyDeleted'))).toBe('0');
      expect((await small.call('GET', 'Queries')).status).toBe(429);
      // Validating, listing policies, exceptions, vulnerability exceptions and export rules: their own buckets.
      for (const path of ['Policies', 'Exceptions?policyId=svc-global-1', 'VulnerabilityExceptions', 'DataExportRules']) {
        expect(left(await small.call('GET', path)), path).toBe('1');
      }
      expect(left(await small.call('POST', 'Queries/validate', { body: { queryText: TEXT } }))).toBe('1');
      expect(left(await small.call('PATCH', 'Policies', { body: [] }))).toBe('1');
      expect(left(await small.call('POST', 'VulnerabilityExceptions/search', { body: {} }))).toBe('1');
    } finally {
      await small.close();
    }
  });
});
