// Seeding in process from list bodies as a client fetched them (issue 35's rehearsal): records taken
// as they are (unknown types and members carried), writable afterwards, no rate limits, no faults.

import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { HELD_SECRET, seededPrefix } from '../../src/emulator/seeding.js';
import { boot, type Harness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const CHANNELS = {
  data: [
    {
      createdOrUpdatedBy: 'someone@example.com',
      createdOrUpdatedTime: '2023-04-05T06:07:08.123Z',
      enabled: 1,
      intgGuid: 'PROD_AAAA',
      isOrg: 0,
      name: 'ops-slack',
      props: { createdBy: 'someone@example.com', createdTime: '2023-04-05T06:07:08.123Z', updatedBy: 'x', isDefault: 1 },
      state: { ok: false, lastUpdatedTime: 1700000000000, lastSuccessfulTime: 1690000000000, details: { message: 'boom' } },
      type: 'SlackChannel',
      data: { slackUrl: 'https://hooks.slack.com/services/T/B/X', issueGrouping: 'Events' },
      futureMember: { kept: true },
    },
    {
      intgGuid: 'PROD_BBBB',
      name: 'new-kind',
      type: 'MicrosoftTeamsV2',
      enabled: 1,
      createdOrUpdatedTime: 'not a time',
      data: { workflowUrl: 'https://example.com/wf' },
    },
    {
      intgGuid: 'PROD_S3',
      name: 'export',
      type: 'AwsS3',
      enabled: 1,
      data: { s3CrossAccountCredentials: { roleArn: 'arn:aws:iam::1:role/r', externalId: 'e', bucketArn: 'arn:aws:s3:::b' } },
    },
  ],
};

const LISTS = {
  AlertChannels: CHANNELS,
  CloudAccounts: {
    data: [
      {
        intgGuid: 'PROD_SCAN',
        name: 'scanner',
        type: 'AwsSidekick',
        enabled: 1,
        serverToken: { serverToken: 'issued-by-the-service', uri: 'https://example.com' },
        data: { scanFrequency: 24, awsAccountId: '123456789012', crossAccountCredentials: { roleArn: 'arn:aws:iam::1:role/r', externalId: 'e' } },
      },
    ],
  },
  AlertRules: {
    data: [
      {
        mcGuid: 'RULE-1',
        type: 'Event',
        name: 'old rule',
        intgGuidList: ['PROD_AAAA'],
        filters: { name: 'old rule', enabled: 1, resourceGroups: [], eventCategory: ['Compliance'], severity: [1, 2], createdOrUpdatedTime: '1690000000000', createdOrUpdatedBy: 'x' },
      },
    ],
  },
  ResourceGroups: { data: [{ guid: 'RG-1', resourceName: 'legacy', resourceType: 'AWS', enabled: 1, props: '{"accountIds":["*"]}', isDefaultBoolean: false }] },
  Queries: {
    data: [
      { queryId: 'LW_Global_AWS_CTA_Thing', queryText: '{ source { CloudTrailRawEvents e } return { e.X } }', owner: 'Lacework', lastUpdateTime: '2024-01-01T00:00:00.000Z' },
      { queryId: 'my_query', queryText: 'my_query { source { LW_CFG_AWS_S3 b } return { b.ARN } }', owner: 'me', resultSchema: [{ name: 'ARN' }], newThing: 'x' },
    ],
  },
  Policies: {
    data: [
      { policyId: 'lacework-global-46', policyType: 'Manual', title: 'manual', severity: 'low', enabled: false, owner: 'Lacework', tags: ['framework:cis-aws-1-4-0'] },
      {
        policyId: 'acme-mine-1',
        policyType: 'Violation',
        queryId: 'my_query',
        title: 't',
        description: 'd',
        remediation: 'r',
        severity: 'High',
        enabled: true,
        alertEnabled: true,
        evalFrequency: 'Daily',
        limit: 1000,
        tags: ['custom'],
        owner: 'me',
        exceptionConfiguration: { constraintFields: [{ fieldKey: 'accountIds', dataType: 'String', multiValue: true }] },
      },
    ],
  },
  'Exceptions?policyId=acme-mine-1': { data: [{ exceptionId: 'EX-1', description: 'kept', constraints: [{ fieldKey: 'accountIds', fieldValues: ['1'] }], lastUpdateUser: 'me' }] },
  VulnerabilityExceptions: { data: [{ exceptionGuid: 'VE-1', exceptionName: 'v', exceptionType: 'Host', exceptionReason: 'Other', state: 1, vulnerabilityCriteria: { cve: ['CVE-1'] }, envGuid: 'ENV' }] },
  DataExportRules: [{ mcGuid: 'DX-1', type: 'Dataexport', intgGuidList: ['PROD_S3'], filters: { name: 'dx', enabled: 1 } }],
  AgentAccessTokens: { data: [{ accessToken: 'TOKEN1', tokenAlias: 'a', tokenEnabled: '1', props: { os: 'windows', description: 'd' }, version: '0.1', createdTime: '2024-01-01T00:00:00Z' }] },
  TeamMembers: { data: [{ userGuid: 'U1', userName: 'a@example.com' }] },
  AlertProfiles: {
    data: [
      {
        alertProfileId: 'LW_CloudTrail_Alerts',
        extends: 'LW_BASE_PROFILE',
        fields: [{ name: '_OCCURRENCE' }],
        descriptionKeys: [{ name: '_OCCURRENCE', spec: '{{_OCCURRENCE}}' }],
        alerts: [{ name: 'CloudTrailDefaultAlert_1', eventName: 'LW Cloud', description: '{{_OCCURRENCE}}', subject: 's' }],
      },
      { alertProfileId: 'MY_PROFILE', extends: 'LW_CloudTrail_Alerts', alerts: [{ name: 'Mine', eventName: 'e', description: '{{_OCCURRENCE}}', subject: 's' }] },
    ],
  },
};

const seeded = () => boot({ accounts: ['prod', 'staging'], predefinedPrefix: 'LW_', vendor: 'Lacework', seedFromLists: { prod: LISTS } });

describe('seedFromLists', () => {
  it('answers the records as fetched, with what the emulator does not model carried', async () => {
    h = await seeded();
    const prod = { account: 'prod' };
    const channels = (await h.call('GET', 'AlertChannels', prod)).body.data;
    expect(channels.map((c: any) => c.intgGuid)).toEqual(['PROD_AAAA', 'PROD_BBBB', 'PROD_S3']);
    // A token the service issued is kept as it was.
    const [scanner] = (await h.call('GET', 'CloudAccounts', prod)).body.data;
    expect(scanner).toMatchObject({ intgGuid: 'PROD_SCAN', serverToken: { serverToken: 'issued-by-the-service', uri: 'https://example.com' } });
    expect(channels[0]).toMatchObject({ name: 'ops-slack', futureMember: { kept: true }, props: { isDefault: 1, createdBy: 'someone@example.com' }, data: CHANNELS.data[0].data });
    expect(channels[0].state.lastSuccessfulTime).toBe(1690000000000);
    expect(channels[1]).toMatchObject({ type: 'MicrosoftTeamsV2', data: { workflowUrl: 'https://example.com/wf' } });
    const rule = (await h.call('GET', 'AlertRules/RULE-1', prod)).body.data;
    expect(rule).toMatchObject({ name: 'old rule', filters: { eventCategory: ['Compliance'], resourceGroups: [] } });
    const groups = (await h.call('GET', 'ResourceGroups', prod)).body.data;
    // An older group's props given as JSON text (as the real service answered some) is answered as that text.
    expect(groups).toEqual([expect.objectContaining({ guid: 'RG-1', resourceName: 'legacy', props: '{"accountIds":["*"]}' })]);
    const queries = (await h.call('GET', 'Queries', prod)).body.data;
    expect(queries.find((q: any) => q.queryId === 'my_query')).toMatchObject({ newThing: 'x', usedByPolicies: ['acme-mine-1'] });
    const policies = (await h.call('GET', 'Policies', prod)).body.data;
    expect(policies.map((p: any) => p.policyId)).toEqual(['lacework-global-46', 'acme-mine-1']);
    expect(policies[1]).toMatchObject({ severity: 'high', evalFrequency: 'Daily', queryText: LISTS.Queries.data[1].queryText });
    expect((await h.call('GET', 'Exceptions?policyId=acme-mine-1', prod)).body.data).toEqual([expect.objectContaining({ exceptionId: 'EX-1', description: 'kept' })]);
    expect((await h.call('GET', 'VulnerabilityExceptions/VE-1', prod)).body.data).toMatchObject({ exceptionName: 'v', vulnerabilityCriteria: { cve: ['CVE-1'] } });
    expect((await h.call('GET', 'DataExportRules/DX-1', prod)).body.data.intgGuidList).toEqual(['PROD_S3']);
    expect((await h.call('GET', 'AgentAccessTokens', prod)).body.data[0].props).toMatchObject({ os: 'windows', description: 'd' });
    // The other account is as the emulator makes it.
    expect((await h.call('GET', 'AlertChannels', { account: 'staging' })).body.data).toEqual([]);
  });

  it('lets the seeded records be written: known types checked, unknown types carried, references found', async () => {
    h = await seeded();
    const prod = { account: 'prod' };
    const known = await h.call('PATCH', 'AlertChannels/PROD_AAAA', { ...prod, body: { name: 'renamed' } });
    expect(known.status).toBe(200);
    expect(known.body.data).toMatchObject({ name: 'renamed', futureMember: { kept: true } });
    const unknown = await h.call('PATCH', 'AlertChannels/PROD_BBBB', { ...prod, body: { data: { workflowUrl: 'https://example.com/new', more: 1 } } });
    expect(unknown.status).toBe(200);
    expect(unknown.body.data.data).toEqual({ workflowUrl: 'https://example.com/new', more: 1 });
    const created = await h.call('POST', 'AlertChannels', { ...prod, body: { name: 'n', type: 'SomethingNew', enabled: 1, data: { x: 1 } } });
    expect(created.status).toBe(201);
    // A known type is still checked.
    expect((await h.call('POST', 'AlertChannels', { ...prod, body: { name: 'n', type: 'SlackChannel', enabled: 1, data: {} } })).status).toBe(400);
    // References between seeded records hold: the channel of a rule, the query of a policy, the S3 channel of an export rule.
    expect((await h.call('DELETE', 'AlertChannels/PROD_AAAA', prod)).status).toBe(409);
    expect((await h.call('DELETE', 'Queries/my_query', prod)).status).toBe(400);
    expect((await h.call('DELETE', 'AlertChannels/PROD_S3', prod)).status).toBe(409);
    const ex = await h.call('POST', 'Exceptions?policyId=acme-mine-1', { ...prod, body: { description: 'x', constraints: [{ fieldKey: 'arns', fieldValues: ['a'] }] } });
    expect(ex.body.message).toBe('fieldKey: arns is not applicable to policy acme-mine-1. Valid fieldKey are [accountIds]');
    expect((await h.call('PATCH', 'Policies', { ...prod, body: [{ policyId: 'lacework-global-46', enabled: true }] })).body.data[0].enabled).toBe(true);
    expect((await h.call('PATCH', 'Policies/lacework-global-46', { ...prod, body: { title: 'x' } })).status).toBe(403);
    expect((await h.call('DELETE', 'VulnerabilityExceptions/VE-1', prod)).status).toBe(204);    // The account's own predefined profiles replace the emulator's: policies and custom profiles refer to them.
    const profiles = (await h.call('GET', 'AlertProfiles', prod)).body.data.map((p: any) => p.alertProfileId);
    expect(profiles).toEqual(['LW_CloudTrail_Alerts', 'MY_PROFILE']);
    const policy = { policyType: 'Violation', queryId: 'my_query', title: 't', description: 'd', remediation: 'r', severity: 'low' };
    expect((await h.call('POST', 'Policies', { ...prod, body: { ...policy, alertProfile: 'LW_CloudTrail_Alerts.CloudTrailDefaultAlert_1' } })).status).toBe(201);
    expect((await h.call('POST', 'Policies', { ...prod, body: { ...policy, alertProfile: 'MY_PROFILE.Mine' } })).status).toBe(201);
    expect((await h.call('POST', 'Policies', { ...prod, body: { ...policy, alertProfile: 'LW_HE_FILES_DEFAULT_PROFILE' } })).status).toBe(400);
    expect((await h.call('PATCH', 'AlertProfiles/LW_CloudTrail_Alerts', { ...prod, body: { alerts: [] } })).status).toBe(403);
  });

  it('holds the write-only secrets a record was listed without, answers them masked as ever, and checks writes that leave them alone', async () => {
    const lists = {
      AlertChannels: {
        data: [
          { intgGuid: 'PD', name: 'pager', type: 'PagerDutyApi', enabled: 1, data: {} },
          { intgGuid: 'DD', name: 'dd', type: 'Datadog', enabled: 1, data: { datadogSite: 'eu', datadogType: 'Events Summary' } },
        ],
      },
      ContainerRegistries: {
        data: [{ intgGuid: 'HUB', name: 'hub', type: 'ContVulnCfg', enabled: 1, data: { registryType: 'DOCKERHUB', credentials: { username: 'u', password: '' }, limitByRep: [] } }],
      },
    };
    h = await boot({ accounts: ['prod'], seedFromLists: { prod: lists } });
    const prod = { account: 'prod' };
    // Without the secret held, each of these would be a 400 for a secret the service has.
    for (const [path, body] of [['AlertChannels/PD', { enabled: 0 }], ['AlertChannels/DD', { name: 'dd2' }], ['ContainerRegistries/HUB', { enabled: 0 }]] as const) {
      const r = await h.call('PATCH', path, { ...prod, body });
      expect(r.status, path).toBe(200);
    }
    // A write that sends data without the secret is checked as the service checks it.
    expect((await h.call('PATCH', 'AlertChannels/DD', { ...prod, body: { data: { datadogSite: 'eu', datadogType: 'Events Summary' } } })).status).toBe(400);
    const answers = JSON.stringify([(await h.call('GET', 'AlertChannels', prod)).body, (await h.call('GET', 'ContainerRegistries', prod)).body, (await h.call('GET', 'AlertChannels/PD', prod)).body]);
    expect(answers).not.toContain(HELD_SECRET);
    const pager = (await h.call('GET', 'AlertChannels/PD', prod)).body.data;
    expect(pager.data).toEqual({});
    const hub = (await h.call('GET', 'ContainerRegistries', prod)).body.data[0];
    expect(hub.data.credentials).toEqual({ username: 'u', password: '' });
  });

  it('takes the predefined prefix from the seeded profiles when none is given', async () => {
    expect(seededPrefix({ prod: { AlertProfiles: LISTS.AlertProfiles } })).toBe('LW_');
    expect(seededPrefix({ prod: { AlertProfiles: [{ alertProfileId: 'ACME_BASE_PROFILE' }, { alertProfileId: 'ACME_X', extends: 'ACME_BASE_PROFILE' }] } })).toBe('ACME_');
    expect(seededPrefix({ prod: { AlertChannels: { data: [] } } })).toBeUndefined();
    h = await boot({ accounts: ['prod'], seedFromLists: { prod: { AlertProfiles: LISTS.AlertProfiles } } });
    // LW_ is the vendor's here: a custom profile may extend LW_CloudTrail_Alerts and may not take the prefix.
    const body = { alertProfileId: 'MINE', extends: 'LW_CloudTrail_Alerts', alerts: [{ name: 'a', eventName: 'e', subject: 's', description: '{{_OCCURRENCE}}' }] };
    expect((await h.call('POST', 'AlertProfiles', { account: 'prod', body })).status).toBe(201);
    expect((await h.call('POST', 'AlertProfiles', { account: 'prod', body: { ...body, alertProfileId: 'LW_MINE' } })).status).toBe(400);
  });

  it('runs without rate limits or faults', async () => {
    h = await seeded();
    const r = await h.call('GET', 'AlertChannels', { account: 'prod' });
    expect(r.headers.get('RateLimit-Limit')).toBe('1000000000');
    for (let i = 0; i < 130; i++) expect((await h.call('GET', 'Policies', { account: 'prod' })).status).toBe(200);
    await expect(startEmulator({ seedFromLists: { prod: {} }, rateLimit: 10 })).rejects.toThrow('seedFromLists runs without rate limits or faults');
    await expect(startEmulator({ seedFromLists: { prod: {} }, faults: 0.5 })).rejects.toThrow('seedFromLists runs without rate limits or faults');
  });

  it('refuses an account it does not serve and a body that is not a list', async () => {
    await expect(startEmulator({ accounts: ['prod'], seedFromLists: { dev: {} } })).rejects.toThrow('seedFromLists: dev is not one of the accounts');
    await expect(startEmulator({ accounts: ['prod'], seedFromLists: { prod: { AlertChannels: { data: 'x' } } } })).rejects.toThrow(
      'seedFromLists: AlertChannels is neither a list body',
    );
  });
});
