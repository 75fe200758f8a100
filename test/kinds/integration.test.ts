import { describe, expect, it } from 'vitest';
import { bucketOf } from '../../src/api/buckets.js';
import { apiPath } from '../../src/kinds/common.js';
import { MalformedBodyError } from '../../src/model/service-body.js';
import { AlertChannel } from '../../src/kinds/alert-channel/index.js';
import { CloudAccount } from '../../src/kinds/cloud-account/index.js';
import { ContainerRegistry } from '../../src/kinds/container-registry/index.js';
import type { JsonObject } from '../../src/model/json.js';
import type { Kind } from '../../src/kinds/types.js';
import { getAt } from '../../src/model/json-pointer.js';
import { byName, comparable, desiredOf, doc, fetchCtx, integrationRecord, requestCtx } from './helpers.js';

interface RoundTrip {
  title: string;
  kind: Kind;
  listPath: string;
  /** File-form spec. */
  file: JsonObject;
  /** What the service answers: enabled flag and data (masked, defaults added). */
  liveEnabled: 0 | 1;
  liveData: JsonObject;
  /** Canonical spec both sides must produce (write-only secrets aside). */
  canonical: JsonObject;
}

const ROUND_TRIPS: RoundTrip[] = [
  {
    title: 'Slack channel (secret URL returned in clear)',
    kind: AlertChannel,
    listPath: '/api/v2/AlertChannels',
    file: { type: 'SlackChannel', data: { slackUrl: 'https://hooks.slack.com/services/T0/B0/x' } },
    liveEnabled: 1,
    liveData: { slackUrl: 'https://hooks.slack.com/services/T0/B0/x' },
    canonical: { type: 'SlackChannel', enabled: true, data: { slackUrl: 'https://hooks.slack.com/services/T0/B0/x' } },
  },
  {
    title: 'Datadog channel with apiKey omitted by the service, enabled as 1',
    kind: AlertChannel,
    listPath: '/api/v2/AlertChannels',
    file: { type: 'Datadog', enabled: 1, data: { apiKey: 'dd-key', datadogSite: 'eu', datadogType: 'Logs Detail' } },
    liveEnabled: 1,
    liveData: { datadogSite: 'eu', datadogType: 'Logs Detail' },
    canonical: { type: 'Datadog', enabled: true, data: { datadogSite: 'eu', datadogType: 'Logs Detail' } },
  },
  {
    title: 'disabled Pub/Sub channel with private key masked as ""',
    kind: AlertChannel,
    listPath: '/api/v2/AlertChannels',
    file: {
      type: 'GcpPubsub',
      enabled: false,
      data: { projectId: 'p', topicId: 't', credentials: { clientEmail: 'a@p.iam', clientId: '1', privateKey: 'pk', privateKeyId: 'pkid' } },
    },
    liveEnabled: 0,
    liveData: { projectId: 'p', topicId: 't', credentials: { clientEmail: 'a@p.iam', clientId: '1', privateKey: '', privateKeyId: '' } },
    canonical: { type: 'GcpPubsub', enabled: false, data: { projectId: 'p', topicId: 't', credentials: { clientEmail: 'a@p.iam', clientId: '1' } } },
  },
  {
    title: 'Jira Cloud channel with apiToken omitted',
    kind: AlertChannel,
    listPath: '/api/v2/AlertChannels',
    file: {
      type: 'Jira',
      enabled: 0,
      data: { jiraType: 'JIRA_CLOUD', jiraUrl: 'x.atlassian.net', projectId: 'OPS', issueType: 'Bug', username: 'bot', apiToken: 'tok' },
    },
    liveEnabled: 0,
    liveData: { jiraType: 'JIRA_CLOUD', jiraUrl: 'x.atlassian.net', projectId: 'OPS', issueType: 'Bug', username: 'bot' },
    canonical: {
      type: 'Jira',
      enabled: false,
      data: { jiraType: 'JIRA_CLOUD', jiraUrl: 'x.atlassian.net', projectId: 'OPS', issueType: 'Bug', username: 'bot' },
    },
  },
  {
    title: 'AWS config cloud account',
    kind: CloudAccount,
    listPath: '/api/v2/CloudAccounts',
    file: { type: 'AwsCfg', enabled: true, data: { awsAccountId: '123456789012', crossAccountCredentials: { roleArn: 'arn:aws:iam::1:role/r', externalId: 'ext' } } },
    liveEnabled: 1,
    liveData: { awsAccountId: '123456789012', crossAccountCredentials: { roleArn: 'arn:aws:iam::1:role/r', externalId: 'ext' } },
    canonical: {
      type: 'AwsCfg',
      enabled: true,
      data: { awsAccountId: '123456789012', crossAccountCredentials: { roleArn: 'arn:aws:iam::1:role/r', externalId: 'ext' } },
    },
  },
  {
    title: 'Azure cloud account with clientSecret masked',
    kind: CloudAccount,
    listPath: '/api/v2/CloudAccounts',
    file: { type: 'AzureCfg', data: { tenantId: 't', credentials: { clientId: 'c', clientSecret: 's' } } },
    liveEnabled: 1,
    liveData: { tenantId: 't', credentials: { clientId: 'c', clientSecret: '' } },
    canonical: { type: 'AzureCfg', enabled: true, data: { tenantId: 't', credentials: { clientId: 'c' } } },
  },
  {
    title: 'ECR registry with masked secretAccessKey and service-filled defaults',
    kind: ContainerRegistry,
    listPath: '/api/v2/ContainerRegistries',
    file: {
      data: {
        registryType: 'AWS_ECR',
        awsAuthType: 'AWS_ACCESS_KEY',
        registryDomain: '1.dkr.ecr.us-east-1.amazonaws.com',
        accessKeyCredentials: { accessKeyId: 'AKIA1', secretAccessKey: 'sak' },
      },
    },
    liveEnabled: 1,
    liveData: {
      registryType: 'AWS_ECR',
      awsAuthType: 'AWS_ACCESS_KEY',
      registryDomain: '1.dkr.ecr.us-east-1.amazonaws.com',
      accessKeyCredentials: { accessKeyId: 'AKIA1', secretAccessKey: '' },
      limitNumImg: 5,
      limitByRep: [],
      limitByTag: [],
      limitByLabel: [],
      nonOsPackageEval: false,
      identifierTag: [],
    },
    canonical: {
      type: 'ContVulnCfg',
      enabled: true,
      data: {
        limitNumImg: 5,
        limitByRep: [],
        limitByTag: [],
        limitByLabel: [],
        nonOsPackageEval: false,
        identifierTag: [],
        registryType: 'AWS_ECR',
        awsAuthType: 'AWS_ACCESS_KEY',
        registryDomain: '1.dkr.ecr.us-east-1.amazonaws.com',
        accessKeyCredentials: { accessKeyId: 'AKIA1' },
      },
    },
  },
  {
    title: 'role-based ECR registry answered as seed 000 says: no role, a masked access key instead',
    kind: ContainerRegistry,
    listPath: '/api/v2/ContainerRegistries',
    file: {
      data: {
        registryType: 'AWS_ECR',
        awsAuthType: 'AWS_IAM',
        registryDomain: '1.dkr.ecr.us-east-1.amazonaws.com',
        crossAccountCredentials: { roleArn: 'arn:aws:iam::1:role/ecr', externalId: 'ext-1' },
      },
    },
    liveEnabled: 1,
    liveData: {
      registryType: 'AWS_ECR',
      awsAuthType: 'AWS_IAM',
      registryDomain: '1.dkr.ecr.us-east-1.amazonaws.com',
      accessKeyCredentials: { accessKeyId: '', secretAccessKey: '' },
      limitNumImg: 5,
      limitByRep: [],
      limitByTag: [],
      limitByLabel: [],
      nonOsPackageEval: false,
      identifierTag: [],
    },
    canonical: {
      type: 'ContVulnCfg',
      enabled: true,
      data: {
        limitNumImg: 5,
        limitByRep: [],
        limitByTag: [],
        limitByLabel: [],
        nonOsPackageEval: false,
        identifierTag: [],
        registryType: 'AWS_ECR',
        awsAuthType: 'AWS_IAM',
        registryDomain: '1.dkr.ecr.us-east-1.amazonaws.com',
      },
    },
  },
  {
    title: 'Docker Hub registry with a non-default image limit, service echoing no identifierTag',
    kind: ContainerRegistry,
    listPath: '/api/v2/ContainerRegistries',
    file: { type: 'ContVulnCfg', data: { registryType: 'DOCKERHUB', limitNumImg: 10, credentials: { username: 'u', password: 'p' } } },
    liveEnabled: 1,
    liveData: {
      registryType: 'DOCKERHUB',
      limitNumImg: 10,
      credentials: { username: 'u', password: '' },
      limitByRep: [],
      limitByTag: [],
      limitByLabel: [],
      nonOsPackageEval: false,
    },
    canonical: {
      type: 'ContVulnCfg',
      enabled: true,
      data: {
        limitNumImg: 10,
        limitByRep: [],
        limitByTag: [],
        limitByLabel: [],
        nonOsPackageEval: false,
        identifierTag: [],
        registryType: 'DOCKERHUB',
        credentials: { username: 'u' },
      },
    },
  },
];

describe('integration kinds: desired and live agree', () => {
  it.each(ROUND_TRIPS)('$title', async (c) => {
    const [desired] = desiredOf(c.kind, doc(c.kind.kind, 'it', c.file));
    const record = integrationRecord({ intgGuid: 'PROD_0123456789ABCDEF0123456789ABCDEF', name: 'it', type: String(c.canonical.type), enabled: c.liveEnabled, data: c.liveData });
    const ctx = fetchCtx({ [c.listPath]: { data: [record] } });
    const live = byName(await c.kind.list(ctx), 'it');

    expect(ctx.calls).toEqual([c.listPath]);
    expect(live).toMatchObject({ kind: c.kind.kind, account: 'prod', id: 'PROD_0123456789ABCDEF0123456789ABCDEF', info: { ok: true } });
    expect(comparable(c.kind, desired.spec, live.spec)).toEqual(c.canonical);
    expect(comparable(c.kind, live.spec, desired.spec)).toEqual(c.canonical);
    // Masked secrets are not part of the live spec at all.
    for (const ptr of (c.kind.secrets?.writeOnly?.(live.spec) ?? [])) expect(getAt(live.spec, ptr)).toBeUndefined();

    // Export and read back: the same canonical spec.
    const exported = (c.kind.export?.toDocument(live, []) ?? null);
    expect(exported).not.toBeNull();
    const [again] = desiredOf(c.kind, doc(exported!.kind, exported!.name, exported!.spec));
    expect(comparable(c.kind, again.spec, live.spec)).toEqual(c.canonical);
  });

  it('export leaves defaults out and keeps a place for every write-only secret', async () => {
    const c = ROUND_TRIPS.find((r) => r.title.startsWith('ECR'))!;
    const record = integrationRecord({ intgGuid: 'PROD_1', name: 'ecr', type: 'ContVulnCfg', enabled: 1, data: c.liveData });
    const [live] = await ContainerRegistry.list(fetchCtx({ [c.listPath]: { data: [record] } }));
    expect((ContainerRegistry.export?.toDocument(live, []) ?? null)).toEqual({
      kind: 'ContainerRegistry',
      name: 'ecr',
      spec: {
        data: {
          registryType: 'AWS_ECR',
          awsAuthType: 'AWS_ACCESS_KEY',
          registryDomain: '1.dkr.ecr.us-east-1.amazonaws.com',
          accessKeyCredentials: { accessKeyId: 'AKIA1', secretAccessKey: '' },
        },
      },
    });
  });

  it('export keeps a disabled flag and the type of channels', async () => {
    const record = integrationRecord({ intgGuid: 'PROD_2', name: 'dd', type: 'Datadog', enabled: 0, data: { datadogSite: 'com' } });
    const [live] = await AlertChannel.list(fetchCtx({ '/api/v2/AlertChannels': [record] }));
    expect((AlertChannel.export?.toDocument(live, []) ?? null)).toEqual({
      kind: 'AlertChannel',
      name: 'dd',
      spec: { type: 'Datadog', enabled: false, data: { datadogSite: 'com', apiKey: '' } },
    });
  });

  it('keeps env references and the source position', () => {
    const d = doc('AlertChannel', 'ops', { type: 'SlackChannel', data: { slackUrl: 'https://hooks.slack.com/x' } }, { envRefs: { '/data/slackUrl': '${env:SLACK_URL}' } });
    const [r] = desiredOf(AlertChannel, d);
    expect(r).toMatchObject({ kind: 'AlertChannel', name: 'ops', account: 'prod', envRefs: { '/data/slackUrl': '${env:SLACK_URL}' }, source: d.source });
  });

  it('refuses an env reference for enabled (its value is converted)', () => {
    const { diagnostics } = AlertChannel.fromDocument(
      doc('AlertChannel', 'ops', { type: 'Webhook', enabled: true, data: { webhookUrl: 'https://x' } }, { envRefs: { '/enabled': '${env:ON}' } }),
    );
    expect(diagnostics).toMatchObject([{ severity: 'error', code: 'env-not-supported', field: '/spec/enabled' }]);
  });

  it('reports a list response that is not a list as a typed API error', async () => {
    await expect(AlertChannel.list(fetchCtx({ '/api/v2/AlertChannels': { data: { oops: 1 } } }))).rejects.toMatchObject({ name: 'MalformedBodyError', code: 'not-a-list', mayHaveApplied: false });
    await expect(CloudAccount.list(fetchCtx({ '/api/v2/CloudAccounts': { data: [{ name: 'no-guid' }] } }))).rejects.toThrow(/intgGuid/);
  });
});

describe('integration kinds: secrets', () => {
  const cases: { title: string; kind: Kind; spec: JsonObject; writeOnly: string[]; sensitive: string[] }[] = [
    { title: 'Slack', kind: AlertChannel, spec: { type: 'SlackChannel' }, writeOnly: [], sensitive: ['/data/slackUrl'] },
    // A generic webhook's URL is an ordinary value.
    { title: 'Webhook', kind: AlertChannel, spec: { type: 'Webhook' }, writeOnly: [], sensitive: [] },
    { title: 'Splunk', kind: AlertChannel, spec: { type: 'SplunkHec' }, writeOnly: [], sensitive: ['/data/hecToken'] },
    { title: 'Datadog', kind: AlertChannel, spec: { type: 'Datadog' }, writeOnly: ['/data/apiKey'], sensitive: [] },
    { title: 'PagerDuty', kind: AlertChannel, spec: { type: 'PagerDutyApi' }, writeOnly: ['/data/apiIntgKey'], sensitive: [] },
    {
      title: 'Pub/Sub',
      kind: AlertChannel,
      spec: { type: 'GcpPubsub' },
      writeOnly: ['/data/credentials/privateKey', '/data/credentials/privateKeyId'],
      sensitive: [],
    },
    { title: 'Jira Cloud', kind: AlertChannel, spec: { type: 'Jira', data: { jiraType: 'JIRA_CLOUD' } }, writeOnly: ['/data/apiToken'], sensitive: [] },
    { title: 'Jira Server', kind: AlertChannel, spec: { type: 'Jira', data: { jiraType: 'JIRA_SERVER' } }, writeOnly: ['/data/password'], sensitive: [] },
    { title: 'Jira of no stated type', kind: AlertChannel, spec: { type: 'Jira' }, writeOnly: ['/data/apiToken', '/data/password'], sensitive: [] },
    { title: 'e-mail', kind: AlertChannel, spec: { type: 'EmailUser' }, writeOnly: [], sensitive: [] },
    { title: 'unknown channel type', kind: AlertChannel, spec: { type: 'toString' }, writeOnly: [], sensitive: [] },
    { title: 'AWS config', kind: CloudAccount, spec: { type: 'AwsCfg' }, writeOnly: [], sensitive: [] },
    { title: 'Azure config', kind: CloudAccount, spec: { type: 'AzureCfg' }, writeOnly: ['/data/credentials/clientSecret'], sensitive: [] },
    {
      title: 'AWS GovCloud',
      kind: CloudAccount,
      spec: { type: 'AwsUsGovCfg' },
      writeOnly: ['/data/accessKeyCredentials/secretAccessKey'],
      sensitive: [],
    },
    {
      title: 'ECR with access key',
      kind: ContainerRegistry,
      spec: { data: { registryType: 'AWS_ECR', awsAuthType: 'AWS_ACCESS_KEY' } },
      writeOnly: ['/data/accessKeyCredentials/secretAccessKey'],
      sensitive: [],
    },
    { title: 'ECR with IAM role', kind: ContainerRegistry, spec: { data: { registryType: 'AWS_ECR', awsAuthType: 'AWS_IAM' } }, writeOnly: [], sensitive: [] },
    { title: 'GHCR', kind: ContainerRegistry, spec: { data: { registryType: 'GHCR' } }, writeOnly: ['/data/credentials/password'], sensitive: [] },
    {
      title: 'GAR',
      kind: ContainerRegistry,
      spec: { data: { registryType: 'GCP_GAR' } },
      writeOnly: ['/data/credentials/privateKey', '/data/credentials/privateKeyId'],
      sensitive: [],
    },
  ];
  it.each(cases)('$title', (c) => {
    expect((c.kind.secrets?.writeOnly?.(c.spec) ?? [])).toEqual(c.writeOnly);
    expect((c.kind.secrets?.sensitive?.(c.spec) ?? [])).toEqual(c.sensitive);
  });
});

describe('integration kinds: requests', () => {
  const slack = desiredOf(AlertChannel, doc('AlertChannel', 'ops/slack', { type: 'SlackChannel', enabled: false, data: { slackUrl: 'https://h/x' } }))[0];
  const pd = desiredOf(AlertChannel, doc('AlertChannel', 'pager', { type: 'PagerDutyApi', data: { apiIntgKey: 'k1' } }))[0];
  const ecr = desiredOf(
    ContainerRegistry,
    doc('ContainerRegistry', 'ecr', { data: { registryType: 'AWS_ECR', awsAuthType: 'AWS_IAM', registryDomain: 'd', crossAccountCredentials: { roleArn: 'r', externalId: 'e' } } }),
  )[0];
  const ctx = requestCtx();
  const org = requestCtx({}, { account: 'organization', orgAccess: true });

  it('creates with POST and the full object, enabled as 0/1', () => {
    expect(AlertChannel.createRequest(slack, [], ctx)).toEqual({
      method: 'POST',
      path: '/api/v2/AlertChannels',
      account: 'prod',
      orgAccess: false,
      body: { name: 'ops/slack', type: 'SlackChannel', enabled: 0, data: { slackUrl: 'https://h/x' } },
    });
    expect(ContainerRegistry.createRequest(ecr, [], org)).toMatchObject({
      method: 'POST',
      path: '/api/v2/ContainerRegistries',
      account: undefined,
      orgAccess: true,
      body: { name: 'ecr', type: 'ContVulnCfg', enabled: 1, data: { registryType: 'AWS_ECR', limitNumImg: 5 } },
    });
  });

  it('reads the created id from {data: record}', () => {
    expect(AlertChannel.createdId({ data: { intgGuid: 'PROD_ABC', name: 'x' } }, slack)).toBe('PROD_ABC');
    expect(() => AlertChannel.createdId({ data: {} }, slack)).toThrow(MalformedBodyError);
    try {
      AlertChannel.createdId({ data: {} }, slack);
    } catch (err) {
      // A create answered without its id may have happened: apply looks it up before repeating it.
      expect(err).toMatchObject({ code: 'created-without-id', mayHaveApplied: true, method: 'POST' });
    }
  });

  it('patches only the changed members, a changed data whole with its write-only secrets', () => {
    expect(AlertChannel.updateRequests('PROD/1', slack, ['enabled'], ctx)).toEqual([
      { method: 'PATCH', path: '/api/v2/AlertChannels/PROD%2F1', account: 'prod', orgAccess: false, body: { enabled: 0 } },
    ]);
    expect(AlertChannel.updateRequests('PROD_1', pd, ['data'], ctx)).toEqual([
      { method: 'PATCH', path: '/api/v2/AlertChannels/PROD_1', account: 'prod', orgAccess: false, body: { data: { apiIntgKey: 'k1' } } },
    ]);
    expect(AlertChannel.updateRequests('PROD_1', pd, [], ctx)).toEqual([]);
  });

  it('renames in place: the PATCH carries the new name, with whatever else changed', () => {
    expect(AlertChannel.rename?.inPlace).toBe(true);
    expect(AlertChannel.updateRequests('PROD_1', slack, [], ctx, { rename: true })).toEqual([
      { method: 'PATCH', path: '/api/v2/AlertChannels/PROD_1', account: 'prod', orgAccess: false, body: { name: slack.name } },
    ]);
    expect(AlertChannel.updateRequests('PROD_1', slack, ['enabled'], ctx, { rename: true })[0].body).toEqual({ name: slack.name, enabled: 0 });
  });

  it('sends a type change of a channel or cloud account as PUT with the full object', () => {
    expect(AlertChannel.updateRequests('PROD_1', pd, ['type', 'data'], org)).toEqual([
      {
        method: 'PUT',
        path: '/api/v2/AlertChannels/PROD_1',
        account: undefined,
        orgAccess: true,
        body: { name: 'pager', type: 'PagerDutyApi', enabled: 1, data: { apiIntgKey: 'k1' } },
      },
    ]);
  });

  it('never uses PUT for registries', () => {
    const reqs = ContainerRegistry.updateRequests('PROD_9', ecr, ['type', 'enabled'], ctx);
    expect(reqs).toHaveLength(1);
    expect(reqs[0]).toMatchObject({ method: 'PATCH', path: '/api/v2/ContainerRegistries/PROD_9', body: { type: 'ContVulnCfg', enabled: 1 } });
  });

  it('deletes by id and tests channels only', () => {
    expect(CloudAccount.deleteRequest('PROD_7', ctx)).toEqual({ method: 'DELETE', path: '/api/v2/CloudAccounts/PROD_7', account: 'prod', orgAccess: false });
    expect(AlertChannel.lifecycle?.testRequest?.('PROD_7', ctx)).toEqual({ method: 'POST', path: '/api/v2/AlertChannels/PROD_7/test', account: 'prod', orgAccess: false });
    expect(ContainerRegistry.lifecycle?.testRequest).toBeUndefined();
    expect(CloudAccount.lifecycle?.testRequest).toBeUndefined();
  });

  it('names the list collection (and so its bucket) and set-like lists', () => {
    expect([AlertChannel, CloudAccount, ContainerRegistry].map((k) => bucketOf('GET', apiPath(k.collection)))).toEqual([
      'GET AlertChannels',
      'GET CloudAccounts',
      'GET ContainerRegistries',
    ]);
    expect((AlertChannel.compare?.setPointers?.({ type: 'EmailUser' }) ?? [])).toEqual(['/data/channelProps/recipients']);
    expect((ContainerRegistry.compare?.setPointers?.(ecr.spec) ?? [])).toContain('/data/limitByTag');
  });
});
