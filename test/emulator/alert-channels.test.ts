import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHANNEL_TYPES } from '../../src/kinds/spellings.js';
import { boot, slack, type Harness } from './helpers.js';

let h: Harness;
beforeEach(async () => {
  h = await boot({ user: 'ops@example.com' });
});
afterEach(() => h.close());

const datadog = { name: 'dd', type: 'Datadog', enabled: 1, data: { apiKey: 'DDKEY', datadogSite: 'eu', datadogType: 'Logs Detail' } };

describe('AlertChannels', () => {
  it('creates a record with the response-only fields', async () => {
    const r = await h.call('POST', 'AlertChannels', { body: { ...slack('ops'), unknownMember: 42 } });
    expect(r.status).toBe(201);
    const d = r.body.data;
    expect(d).toMatchObject({ name: 'ops', type: 'SlackChannel', enabled: 1, isOrg: 0, createdOrUpdatedBy: 'ops@example.com' });
    expect(d.intgGuid).toMatch(/^PROD_[0-9A-F]{32}$/);
    expect(d.createdOrUpdatedTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(d.state).toMatchObject({ ok: true, details: {} });
    expect(typeof d.state.lastUpdatedTime).toBe('number');
    expect(typeof d.state.lastSuccessfulTime).toBe('number');
    expect(d.props.createdBy).toBe('ops@example.com');
    expect(d.unknownMember).toBeUndefined();
  });

  it('lists, reads, lists by type, updates (PATCH and PUT), tests and deletes', async () => {
    const a = (await h.call('POST', 'AlertChannels', { body: slack('a') })).body.data;
    await h.call('POST', 'AlertChannels', { body: datadog });
    expect((await h.call('GET', 'AlertChannels')).body.data).toHaveLength(2);
    const bySlack = await h.call('GET', 'AlertChannels/SlackChannel');
    expect(bySlack.body.data.map((c: any) => c.name)).toEqual(['a']);
    expect((await h.call('GET', 'AlertChannels/Webhook')).body.data).toEqual([]);
    expect((await h.call('GET', `AlertChannels/${a.intgGuid}`)).body.data.name).toBe('a');

    const patched = await h.call('PATCH', `AlertChannels/${a.intgGuid}`, { body: { enabled: 0 } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ name: 'a', enabled: 0, data: { slackUrl: a.data.slackUrl } });

    const put = await h.call('PUT', `AlertChannels/${a.intgGuid}`, { body: slack('renamed', 'https://hooks.slack.com/new') });
    expect(put.body.data).toMatchObject({ name: 'renamed', enabled: 1, data: { slackUrl: 'https://hooks.slack.com/new' } });
    const partialPut = await h.call('PUT', `AlertChannels/${a.intgGuid}`, { body: { enabled: 1 } });
    expect(partialPut.status).toBe(400);
    expect(partialPut.body.message).toContain('name: required');

    expect((await h.call('POST', `AlertChannels/${a.intgGuid}/test`)).status).toBe(204);
    expect((await h.call('POST', 'AlertChannels/PROD_NOPE/test')).status).toBe(404);

    expect((await h.call('DELETE', `AlertChannels/${a.intgGuid}`)).status).toBe(204);
    const gone = await h.call('GET', `AlertChannels/${a.intgGuid}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ message: 'Not found' });
  });

  it('PATCH replaces data whole', async () => {
    const c = (await h.call('POST', 'AlertChannels', { body: datadog })).body.data;
    const r = await h.call('PATCH', `AlertChannels/${c.intgGuid}`, { body: { data: { datadogSite: 'com' } } });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('Invalid data: #1: [data/apiKey: required]');
  });

  it('validates per-type data and says which field is wrong', async () => {
    const missing = await h.call('POST', 'AlertChannels', { body: { name: 'x', type: 'SlackChannel', enabled: 1, data: {} } });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe('Invalid data: #1: [data/slackUrl: required]');
    const http = await h.call('POST', 'AlertChannels', { body: slack('x', 'http://hooks.slack.com/x') });
    expect(http.status).toBe(400);
    expect(http.body.message).toContain('data/slackUrl: must match pattern');
    const nested = await h.call('POST', 'AlertChannels', {
      body: { name: 'x', type: 'AwsS3', enabled: 1, data: { s3CrossAccountCredentials: { roleArn: 'arn:r', externalId: 'e' } } },
    });
    expect(nested.body.message).toBe('Invalid data: #1: [data/s3CrossAccountCredentials/bucketArn: required]');
    const jira = await h.call('POST', 'AlertChannels', {
      body: { name: 'j', type: 'Jira', enabled: 1, data: { jiraType: 'JIRA_CLOUD', jiraUrl: 'x.atlassian.net', projectId: 'P', issueType: 'Bug', username: 'u' } },
    });
    expect(jira.body.message).toBe('Invalid data: #1: [data/apiToken: required for jiraType JIRA_CLOUD]');
  });

  it('validates the record members: type enum, enabled 0|1, name', async () => {
    const type = await h.call('POST', 'AlertChannels', { body: { ...slack('x'), type: 'Slack' } });
    expect(type.status).toBe(400);
    expect(type.body.message).toContain('type: must be one of');
    const enabled = await h.call('POST', 'AlertChannels', { body: { ...slack('x'), enabled: true } });
    expect(enabled.body.message).toBe('Invalid data: #1: [enabled: must be integer, got boolean]');
    const two = await h.call('POST', 'AlertChannels', { body: { ...slack('x'), enabled: 2 } });
    expect(two.body.message).toBe('Invalid data: #1: [enabled: must be <= 1]');
    const blank = await h.call('POST', 'AlertChannels', { body: { ...slack('   ') } });
    expect(blank.body.message).toContain('name: must match pattern');
    const all = await h.call('POST', 'AlertChannels', { body: {} });
    expect(all.body.message).toBe('Invalid data: #1: [name: required], #2: [type: required], #3: [enabled: required], #4: [data: required]');
    const notObject = await h.call('POST', 'AlertChannels', { body: [1] });
    expect(notObject.status).toBe(400);
  });

  it('accepts every one of the 16 types by name in GET /{type}', async () => {
    expect(CHANNEL_TYPES).toHaveLength(16);
    for (const t of ['GcpPubsub', 'IbmQradar', 'EmailUser']) {
      expect((await h.call('GET', `AlertChannels/${t}`)).status).toBe(200);
    }
  });

  it('masks write-only secrets and keeps the others in clear', async () => {
    const dd = await h.call('POST', 'AlertChannels', { body: datadog });
    expect(dd.body.data.data).toEqual({ datadogSite: 'eu', datadogType: 'Logs Detail' });
    const gcp = await h.call('POST', 'AlertChannels', {
      body: {
        name: 'pubsub',
        type: 'GcpPubsub',
        enabled: 1,
        data: { projectId: 'p', topicId: 't', credentials: { clientEmail: 'a@b.iam', clientId: '1', privateKey: 'PK', privateKeyId: 'PKID' } },
      },
    });
    expect(gcp.body.data.data.credentials).toEqual({ clientEmail: 'a@b.iam', clientId: '1', privateKey: '', privateKeyId: '' });
    const sl = await h.call('POST', 'AlertChannels', { body: slack('s', 'https://hooks.slack.com/secret-url') });
    expect(sl.body.data.data.slackUrl).toBe('https://hooks.slack.com/secret-url');
    const listed = JSON.stringify((await h.call('GET', 'AlertChannels')).body);
    expect(listed).not.toContain('DDKEY');
    expect(listed).not.toContain('"PK"');
    // The secret is kept: a PATCH that leaves data alone still validates.
    const p = await h.call('PATCH', `AlertChannels/${dd.body.data.intgGuid}`, { body: { name: 'dd2' } });
    expect(p.status).toBe(200);
  });

  it('leaves top-level write-only members out and returns hecToken in clear', async () => {
    const pd = await h.call('POST', 'AlertChannels', { body: { name: 'pd', type: 'PagerDutyApi', enabled: 1, data: { apiIntgKey: 'PDKEY' } } });
    expect(pd.status).toBe(201);
    expect(pd.body.data.data).toEqual({});
    const snow = await h.call('POST', 'AlertChannels', {
      body: { name: 'snow', type: 'ServiceNowRest', enabled: 1, data: { instanceUrl: 'https://x.service-now.com', userName: 'u', password: 'SNPW' } },
    });
    expect(snow.status).toBe(201);
    expect(snow.body.data.data).toEqual({ instanceUrl: 'https://x.service-now.com', userName: 'u' });
    const hec = { host: 'splunk.example.com', port: 8088, channel: 'c', hecToken: 'HEC', eventData: { index: 'i', source: 's' } };
    const splunk = await h.call('POST', 'AlertChannels', { body: { name: 'splunk', type: 'SplunkHec', enabled: 1, data: hec } });
    expect(splunk.status).toBe(201);
    expect(splunk.body.data.data).toEqual(hec);
  });

  it('refuses to delete a channel an alert rule uses (409 naming the rule)', async () => {
    const c = (await h.call('POST', 'AlertChannels', { body: slack('ops') })).body.data;
    const rule = await h.call('POST', 'AlertRules', {
      body: { type: 'Event', intgGuidList: [c.intgGuid], filters: { name: 'critical-cloud', enabled: 1 } },
    });
    expect(rule.status).toBe(201);
    const del = await h.call('DELETE', `AlertChannels/${c.intgGuid}`);
    expect(del.status).toBe(409);
    expect(del.body.message).toContain('critical-cloud');
    await h.call('DELETE', `AlertRules/${rule.body.data.mcGuid}`);
    expect((await h.call('DELETE', `AlertChannels/${c.intgGuid}`)).status).toBe(204);
  });

  it('answers 405 for a method the path does not take and 404 for unknown paths', async () => {
    const c = (await h.call('POST', 'AlertChannels', { body: slack('ops') })).body.data;
    const post = await h.call('POST', `AlertChannels/${c.intgGuid}`, { body: {} });
    expect(post.status).toBe(405);
    expect(post.body.message).toMatch(/not allowed/);
    expect(post.headers.get('Allow')).toContain('GET');
    expect((await h.call('DELETE', 'AlertChannels')).status).toBe(405);
    expect((await h.call('GET', 'Nothing/Here')).status).toBe(404);
  });

  it('answers 400 "Invalid JSON body" for malformed JSON', async () => {
    const r = await h.call('POST', 'AlertChannels', { raw: '{"name": ' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: 'Invalid JSON body' });
  });
});
