// Shapes the public client library and the best-known infrastructure-as-code provider send
// (api-facts.md) validate: optional members left out, types as the service takes them, severities
// in any case, agent token `os`, a 9-digit GovCloud account id and ARNs of other partitions (format
// guesses: at most a `format` warning), and every one of the 19 cloud account types.

import { stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadFileText } from '../../src/config/load-file.js';
import { prepareValidators } from '../../src/config/validators.js';
import { AlertChannel } from '../../src/kinds/alert-channel/index.js';
import { AgentAccessToken } from '../../src/kinds/agent-access-token/index.js';
import { AlertRule } from '../../src/kinds/alert-rule/index.js';
import { KNOWN_CLOUD_ACCOUNT_TYPES } from '../../src/kinds/spellings.js';
import { CloudAccount } from '../../src/kinds/cloud-account/index.js';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import type { JsonObject } from '../../src/model/json.js';
import { desiredOf, doc, fetchCtx, requestCtx } from '../kinds/helpers.js';

beforeAll(async () => {
  await prepareValidators();
});

const ENV = { SECRET: 's3cr3t-value', GCP_KEY: '-----BEGIN PRIVATE KEY-----' };

function check(kind: string, spec: JsonObject): Diagnostic[] {
  return loadFileText('shape.yaml', stringify({ kind, name: 'shape', spec }), undefined, { env: ENV, parallel: false }).diagnostics;
}

const errors = (d: Diagnostic[]): string[] => d.filter((x) => x.severity === 'error').map((x) => `${x.line}: ${x.code} ${x.message}`);

const GCP = { clientEmail: 'r@p.iam.gserviceaccount.com', clientId: '1098', privateKey: '${env:GCP_KEY}' };
const AZURE = { clientId: 'c', clientSecret: '${env:SECRET}' };
const ROLE = { roleArn: 'arn:aws:iam::123456789012:role/r', externalId: 'e' };

const SHAPES: [string, string, JsonObject][] = [
  [
    'Jira with bidirectionalConfig as a string',
    'AlertChannel',
    {
      type: 'Jira',
      data: { jiraType: 'JIRA_CLOUD', jiraUrl: 'https://x.atlassian.net', projectId: 'SEC', issueType: 'Bug', username: 'u', apiToken: '${env:SECRET}', bidirectionalConfig: '{"enabled":false}' },
    },
  ],
  ['Splunk without channel', 'AlertChannel', { type: 'SplunkHec', data: { host: 'h', port: 8088, ssl: true, hecToken: '${env:SECRET}', eventData: { index: 'i', source: 's' } } }],
  ['QRadar without qradarHostPort', 'AlertChannel', { type: 'IbmQradar', data: { qradarHostUrl: 'https://q.example.com', qradarCommType: 'HTTPS Self Signed Cert' } }],
  ['Pub/Sub without privateKeyId', 'AlertChannel', { type: 'GcpPubsub', data: { credentials: GCP, projectId: 'p', topicId: 't', issueGrouping: 'Resources' } }],
  ['e-mail recipients as one comma-separated string', 'AlertChannel', { type: 'EmailUser', data: { channelProps: { recipients: 'a@example.com, b@example.com' } } }],
  ['GCP configuration without privateKeyId', 'CloudAccount', { type: 'GcpCfg', data: { credentials: GCP, idType: 'ORGANIZATION', id: '1234' } }],
  ['GCR without privateKeyId', 'ContainerRegistry', { data: { registryType: 'GCP_GCR', registryDomain: 'gcr.io', credentials: GCP } }],
  ['inline scanner with limitNumScan as a string', 'ContainerRegistry', { data: { registryType: 'INLINE_SCANNER', limitNumScan: '60', identifierTag: [{ env: 'ci' }] } }],
  ['severities in any case and by number', 'AlertRule', { channels: ['c'], severity: ['High', 'HIGH', 'high', 2, 'Critical'] }],
  ['agent token os', 'AgentAccessToken', { enabled: true, os: 'windows' }],
  [
    'GovCloud with a 9-digit account id',
    'CloudAccount',
    { type: 'AwsUsGovCfg', data: { accessKeyCredentials: { accountId: '123456789', accessKeyId: 'AKIA', secretAccessKey: '${env:SECRET}' } } },
  ],
  ['role ARN of the GovCloud partition', 'CloudAccount', { type: 'AwsCfg', data: { awsAccountId: '123456789012', crossAccountCredentials: { roleArn: 'arn:aws-us-gov:iam::123456789012:role/r', externalId: 'e' } } }],
  ['role ARN of the China partition', 'ContainerRegistry', { data: { registryType: 'AWS_ECR', registryDomain: 'd', awsAuthType: 'AWS_IAM', crossAccountCredentials: { roleArn: 'arn:aws-cn:iam::123456789012:role/r', externalId: 'e' } } }],
];

const NEWER: Record<string, JsonObject> = {
  AwsSidekick: { scanFrequency: 24, scanContainers: true, scanHostVulnerabilities: true, scanMultiVolume: false, scanStoppedInstances: true, queryText: 'q', awsAccountId: '123456789012', bucketArn: 'arn:aws:s3:::b', crossAccountCredentials: ROLE },
  AwsSidekickOrg: { scanFrequency: 24, crossAccountCredentials: ROLE, scanningAccount: '123456789012', managementAccount: '210987654321', monitoredAccounts: 'ou-1,123456789012', accountMappingFile: 'data:application/json;base64,e30=' },
  AzureSidekick: { credentials: AZURE, integrationLevel: 'TENANT', scanningSubscriptionId: 's', tenantId: 't', blobContainerName: 'b', scanningResourceGroupName: 'g', storageAccountUrl: 'https://a.blob.core.windows.net', subscriptionsList: 's1,s2', scanFrequency: 24 },
  GcpSidekick: { credentials: { ...GCP, tokenUri: 'https://oauth2.googleapis.com/token' }, idType: 'PROJECT', id: 'p', scanningProjectId: 's', sharedBucketName: 'b', filterList: 'p1,-p2', queryText: 'q', scanFrequency: 24, accountMappingFile: 'data:,' },
  AzureAdAl: { credentials: AZURE, tenantId: 't', eventHubNamespace: 'ns', eventHubName: 'h' },
  GcpGkeAudit: { credentials: GCP, integrationType: 'ORGANIZATION', organizationId: '1', projectId: 'p', subscriptionName: 'projects/p/subscriptions/s' },
  GcpAlPubSub: { credentials: GCP, integrationType: 'PROJECT', projectId: 'p', subscriptionName: 'projects/p/subscriptions/s', topicId: 't' },
  OciCfg: { credentials: { fingerprint: 'aa:bb', privateKey: '${env:SECRET}' }, homeRegion: 'us-ashburn-1', tenantId: 'ocid1.tenancy', tenantName: 'n', userOcid: 'ocid1.user' },
  AwsDspm: { awsAccountId: '123456789012', bucketArn: 'arn:aws:s3:::b', crossAccountCredentials: ROLE, regions: ['us-east-1'], integrationLevel: 'ACCOUNT', managementAccount: '1', props: { a: 1 } },
  AzureDspm: { tenantId: 't', integrationLevel: 'TENANT', storageAccountUrl: 'https://a.blob.core.windows.net', blobContainerName: 'b', credentials: AZURE, regions: ['eastus'], props: {} },
};

describe('shapes of the public clients', () => {
  it.each(SHAPES)('%s validates', (_title, kind, spec) => {
    const diags = check(kind, spec);
    expect(errors(diags)).toEqual([]);
  });

  it('an alert rule without channels (optional in the IaC provider) is refused: the seed says the service refuses an empty intgGuidList', () => {
    const diags = check('AlertRule', { severity: ['critical'] });
    expect(diags.map((d) => [d.severity, d.code])).toEqual([['error', 'no-channels']]);
    expect(check('AlertRule', { severity: ['critical'], channels: [] }).map((d) => [d.severity, d.code])).toEqual([['error', 'no-channels']]);
    const [rule] = desiredOf(AlertRule, doc('AlertRule', 'r', { severity: ['critical'] }));
    expect(AlertRule.createRequest(rule, [], requestCtx()).body).toMatchObject({ intgGuidList: [] });
  });

  it('a guessed format a public example misses is a `format` warning, never an error', () => {
    const gov = check('CloudAccount', SHAPES.find((s) => s[0].startsWith('GovCloud'))![2]);
    expect(gov.map((d) => [d.severity, d.code, d.line])).toEqual([['warning', 'format', 7]]);
    expect(gov[0].message).toContain('12-digit AWS account id');
  });

  it('knows all 19 cloud account types: each newer one validates with its members and no unknown-type warning', () => {
    expect(KNOWN_CLOUD_ACCOUNT_TYPES).toHaveLength(19);
    expect(Object.keys(NEWER).sort()).toEqual(KNOWN_CLOUD_ACCOUNT_TYPES.slice(9).sort());
    for (const [type, data] of Object.entries(NEWER)) expect(check('CloudAccount', { type, data }), type).toEqual([]);
    // A member a typo away from one they have is refused with "did you mean"; one far from all is
    // carried with a warning (the service decides); a literal secret is refused.
    const typo = check('CloudAccount', { type: 'OciCfg', data: { ...NEWER.OciCfg, homeRegon: 'x' } });
    expect(typo.map((d) => [d.severity, d.code])).toEqual([['error', 'unknown-field']]);
    expect(typo[0].message).toContain('did you mean `homeRegion`?');
    expect(check('CloudAccount', { type: 'OciCfg', data: { ...NEWER.OciCfg, tenancy: 'x' } }).map((d) => [d.severity, d.code])).toEqual([['warning', 'unknown-member']]);
    expect(check('CloudAccount', { type: 'AzureAdAl', data: { ...NEWER.AzureAdAl, credentials: { clientId: 'c', clientSecret: 'literal' } } }).map((d) => d.code)).toEqual(['secret-literal']);
  });

  it('a carried member of a known type named as a secret is a secret: a literal is refused, ${env:...} accepted', () => {
    const data = { datadogSite: 'eu', datadogType: 'Logs Detail', apiKey: '${env:SECRET}' };
    const literal = check('AlertChannel', { type: 'Datadog', data: { ...data, signingSecret: 'literal-value' } });
    expect(literal.map((d) => [d.severity, d.code]).sort()).toEqual([['error', 'secret-literal'], ['warning', 'unknown-member']]);
    expect(JSON.stringify(literal)).not.toContain('literal-value');
    const fromEnv = check('AlertChannel', { type: 'Datadog', data: { ...data, signingSecret: '${env:SECRET}' } });
    expect(fromEnv.map((d) => [d.severity, d.code])).toEqual([['warning', 'unknown-member']]);
  });

  it('declares the secrets of the newer types write-only, as the other types do', () => {
    const secretsOf = (type: string) => (CloudAccount.secrets?.secretMembers?.({ type, data: NEWER[type] ?? {} }) ?? []);
    expect(secretsOf('AzureSidekick')).toEqual([{ pointer: '/data/credentials/clientSecret', writeOnly: true }]);
    expect(secretsOf('GcpGkeAudit')).toEqual([{ pointer: '/data/credentials/privateKey', writeOnly: true }]);
    expect(secretsOf('OciCfg')).toEqual([{ pointer: '/data/credentials/privateKey', writeOnly: true }]);
    expect(secretsOf('AwsSidekick')).toEqual([]);
  });

  it('ignores the top-level serverToken the service issues to a sidekick', async () => {
    const record = { intgGuid: 'PROD_SK', name: 'sk', type: 'AwsSidekick', enabled: 1, serverToken: { serverToken: 'tok-123', uri: 'https://x' }, data: NEWER.AwsSidekick };
    const [live] = await CloudAccount.list(fetchCtx({ '/api/v2/CloudAccounts': { data: [record] } }));
    expect(JSON.stringify(live)).not.toContain('tok-123');
  });

  it('reads comma-separated recipients and a list alike: no change between them', () => {
    const asText = desiredOf(AlertChannel, doc('AlertChannel', 'mail', { type: 'EmailUser', data: { channelProps: { recipients: 'a@example.com, b@example.com' } } }))[0];
    const asList = desiredOf(AlertChannel, doc('AlertChannel', 'mail', { type: 'EmailUser', data: { channelProps: { recipients: ['a@example.com', 'b@example.com'] } } }))[0];
    expect(asText.spec).toEqual(asList.spec);
  });

  it('maps severities in any case to the service numbers', () => {
    const [rule] = desiredOf(AlertRule, doc('AlertRule', 'r', { channels: ['c'], severity: ['High', 'CRITICAL', 'info'] }));
    expect(rule.spec.severity).toEqual([1, 2, 5]);
  });

  it('sends, reads and exports an agent token os in props', async () => {
    const [token] = desiredOf(AgentAccessToken, doc('AgentAccessToken', 'win', { os: 'windows', description: 'd' }));
    expect(AgentAccessToken.createRequest(token, [], requestCtx()).body).toMatchObject({ props: { description: 'd', os: 'windows' } });
    expect(AgentAccessToken.updateRequests('id', token, ['os'], requestCtx())[0].body).toEqual({ props: { description: 'd', os: 'windows' } });
    const record = { accessToken: 'value-1', tokenAlias: 'win', tokenEnabled: '1', props: { os: 'linux' } };
    const [live] = await AgentAccessToken.list(fetchCtx({ '/api/v2/AgentAccessTokens': { data: [record] } }));
    expect(live.spec.os).toBe('linux');
    expect((AgentAccessToken.export?.toDocument(live, []) ?? null)?.spec).toEqual({ os: 'linux' });
  });
});
