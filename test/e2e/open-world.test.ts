// Issue 9 items 2–4 through the real CLI: a live account holding what the service really returns
// (unknown types and members, every rule-filter spelling, comma-separated recipients, odd props,
// state and timestamps) exports with exit 0, the export validates, and the first plan on it shows no
// changes. The records are seeded into the emulator's pass-through (listed as given, unchecked).
// And an update keeps a live member the file never named.

import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { cli, oneLine, rawApi, serviceEnv } from './harness.js';

const SLACK_URL = 'https://hooks.slack.com/services/T0/B0/open-world-live';
const BAD_TIME = 'not a timestamp';

const CHANNELS = [
  {
    intgGuid: 'PROD_OW_MAIL',
    name: 'mail-team',
    type: 'EmailUser',
    enabled: 1,
    createdOrUpdatedTime: BAD_TIME,
    props: { isDefault: 1 },
    state: { ok: false, lastUpdatedTime: BAD_TIME, lastSuccessfulTime: 0, details: { reason: 'bounced' } },
    data: {
      channelProps: { recipients: 'b@example.com, a@example.com' },
      notificationTypes: { properties: { dailyDigest: true } },
      deliveryMode: 'batched',
    },
  },
  { intgGuid: 'PROD_OW_SLACK', name: 'slack', type: 'SlackChannel', enabled: 1, props: { tags: 'ops' }, state: 'unknown', data: { slackUrl: SLACK_URL } },
  {
    intgGuid: 'PROD_OW_JIRA',
    name: 'jira',
    type: 'Jira',
    enabled: 0,
    data: {
      jiraType: 'JIRA_CLOUD',
      jiraUrl: 'https://example.atlassian.net',
      projectId: 'SEC',
      issueType: 'Bug',
      username: 'bot@example.com',
      bidirectionalConfig: { syncStatus: true },
    },
  },
  { intgGuid: 'PROD_OW_SENTINEL', name: 'sentinel', type: 'MicrosoftSentinel', enabled: 1, data: { workspaceId: 'w-1', sharedKey: '', region: 'eu' } },
];

const GCP = { clientId: '1098', clientEmail: 'reader@p.iam.gserviceaccount.com', privateKeyId: '', privateKey: '' };
const CLOUD_ACCOUNTS = [
  { intgGuid: 'PROD_OW_GOV', name: 'gov', type: 'AwsUsGovCfg', enabled: 1, data: { accessKeyCredentials: { accountId: '123456789012', accessKeyId: 'AKIAGOV', secretAccessKey: '' } } },
  { intgGuid: 'PROD_OW_GCPAT', name: 'gcp-audit', type: 'GcpAtSes', enabled: 1, data: { credentials: GCP, idType: 'ORGANIZATION', id: '4242', subscriptionName: 'projects/a/subscriptions/b' } },
  { intgGuid: 'PROD_OW_AZ', name: 'azure', type: 'AzureCfg', enabled: 1, data: { credentials: { clientId: 'c', clientSecret: '' }, tenantId: 't' } },
  {
    intgGuid: 'PROD_OW_CT',
    name: 'trail',
    type: 'AwsCtSqs',
    enabled: 1,
    data: {
      crossAccountCredentials: { roleArn: 'arn:aws:iam::123456789012:role/r', externalId: 'x' },
      queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/q',
      accountMappingFile: 'data:application/json;name=m.json;base64,e30=',
    },
  },
  { intgGuid: 'PROD_OW_AGENTLESS', name: 'agentless-org', type: 'GcpSidekickOrg', enabled: 1, props: { policyEvaluation: { enabled: true } }, data: { credentials: GCP, scanFrequency: 24, queryText: '' } },
  { intgGuid: 'PROD_OW_OCI', name: 'oci', type: 'OciCfg', enabled: 1, state: { ok: true, lastSuccessfulTime: BAD_TIME }, data: { tenantId: 'ocid1.tenancy', userOcid: 'ocid1.user', credentials: { fingerprint: '12:34', privateKey: '' } } },
];

const REGISTRIES = [
  {
    intgGuid: 'PROD_OW_GHCR',
    name: 'ghcr',
    type: 'ContVulnCfg',
    enabled: 1,
    serverToken: { serverToken: 'st', uri: 'https://x' },
    data: { registryType: 'GHCR', registryDomain: 'ghcr.io', credentials: { username: 'bot', password: '', ssl: true }, registryNotifications: { enabled: false }, limitNumImg: 5 },
  },
  { intgGuid: 'PROD_OW_HUB', name: 'hub', type: 'ContVulnCfg', enabled: 1, data: { registryType: 'DOCKERHUB', registryDomain: 'index.docker.io', credentials: { username: 'u', password: '' } } },
  { intgGuid: 'PROD_OW_INLINE', name: 'inline', type: 'ContVulnCfg', enabled: 1, serverToken: { serverToken: 's' }, data: { registryType: 'INLINE_SCANNER', limitNumScan: '60', identifierTag: [{ env: 'ci' }] } },
];

const RULES = [
  {
    mcGuid: 'OW_RULE_1',
    type: 'Event',
    intgGuidList: ['PROD_OW_SLACK', 'PROD_OW_MAIL'],
    filters: {
      name: 'lowercase-and-newer',
      enabled: 1,
      severity: [1, 2],
      eventcategory: ['Cloud', 'Identity'],
      resourcegroups: [],
      category: ['Policy'],
      subCategory: ['Compliance'],
      sources: ['AWS'],
      createdOrUpdatedTime: BAD_TIME,
    },
  },
  { mcGuid: 'OW_RULE_2', type: 'Event', intgGuidList: ['PROD_OW_JIRA'], filters: { name: 'camel', enabled: 0, severity: [3], eventCategory: ['User'], resourceGroups: ['RG_1'], description: 'old spelling' } },
  { mcGuid: 'OW_RULE_3', type: 'Event', name: 'top-level-name', intgGuidList: ['PROD_OW_SENTINEL'], filters: { enabled: 1, severity: [5], source: ['Kubernetes'] } },
];

/** An older group record: `guid`, `resourceName`, `props` instead of `query`. */
const GROUPS = [{ guid: 'RG_1', resourceName: 'legacy-eu', resourceType: 'AWS', enabled: 1, isDefaultBoolean: false, props: { accountIds: ['*'], regions: ['eu-west-1'] } }];

const PROFILES = [
  {
    alertProfileId: 'SVC_Aws_Mixed_Case',
    extends: 'SVC_BASE_PROFILE',
    fields: [{ name: 'RESOURCE_ID' }],
    descriptionKeys: [{ name: '_OCCURRENCE', spec: '{{_OCCURRENCE}}' }],
    alerts: [{ name: 'Violation', eventName: 'v', subject: 's', description: '{{_OCCURRENCE}}' }],
  },
];

describe('open world: what the live service returns', () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let dir: string;

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ['prod', 'staging'] });
    emu.seed('prod', 'AlertChannels', CHANNELS);
    emu.seed('prod', 'CloudAccounts', CLOUD_ACCOUNTS);
    emu.seed('prod', 'ContainerRegistries', REGISTRIES);
    emu.seed('prod', 'AlertRules', RULES);
    emu.seed('prod', 'ResourceGroups', GROUPS);
    emu.seed('prod', 'AlertProfiles', PROFILES);
    dir = await mkdtemp(join(tmpdir(), 'postureops-open-world-'));
  });
  afterAll(async () => {
    await emu?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('exports with exit 0, the export validates, and the first plan on it has no changes', async () => {
    const out = join(dir, 'export');
    const exported = await cli(['export', '--out', out, '--account', 'prod'], { env: serviceEnv(emu) });
    expect(exported.code, exported.stderr).toBe(0);
    // A member the known type does not list, far from every listed one, is written as read, with a
    // warning naming the resource and the member.
    expect(oneLine(exported.stderr)).toMatch(/export-value-kept\]: AlertChannel "mail-team" in account prod: spec\/data\/deliveryMode/);

    const channels = await readFile(join(out, 'prod', 'alert-channels.yaml'), 'utf8');
    expect(channels).toContain('type: MicrosoftSentinel');
    expect(channels).toContain('notificationTypes');
    expect(channels).toContain('bidirectionalConfig');
    expect(channels).toContain('deliveryMode: batched');
    expect(channels).not.toContain(SLACK_URL);
    const rules = await readFile(join(out, 'prod', 'alert-rules.yaml'), 'utf8');
    // The older group is named, never given by its id; it is exported with its `props` as they are.
    for (const text of ['name: top-level-name', 'Identity', 'category:', 'subCategory:', 'source:', '- legacy-eu']) expect(rules).toContain(text);
    expect(rules).not.toContain('RG_1');
    expect(await readFile(join(out, 'prod', 'resource-groups.yaml'), 'utf8')).toMatch(/name: legacy-eu[\s\S]*props:[\s\S]*regions:/);
    const clouds = await readFile(join(out, 'prod', 'cloud-accounts.yaml'), 'utf8');
    for (const text of ['type: GcpSidekickOrg', 'type: OciCfg', 'accountMappingFile', 'subscriptionName']) expect(clouds).toContain(text);
    const profiles = await readFile(join(out, 'prod', 'alert-profiles.yaml'), 'utf8').catch(() => '');
    expect(profiles).not.toContain('SVC_Aws_Mixed_Case');

    // The variables SECRETS.md lists: compared ones with the live value, write-only ones with anything.
    const note = await readFile(join(out, 'SECRETS.md'), 'utf8');
    const env: Record<string, string> = { ...serviceEnv(emu) };
    for (const m of note.matchAll(/\| `(SECRET_[A-Z0-9_]+)` \| \w+ \| [\w-]+ \| `([^`]+)` \| (compared|write-only) \|/g)) {
      env[m[1]] = m[3] === 'compared' ? (m[2] === '/data/slackUrl' ? SLACK_URL : 'unexpected-compared-secret') : 'any-value';
    }
    expect(Object.values(env)).toContain(SLACK_URL);
    expect(Object.values(env)).not.toContain('unexpected-compared-secret');

    const valid = await cli(['validate', out], { env });
    expect(valid.code, valid.stdout + valid.stderr).toBe(0);
    expect(valid.stdout + valid.stderr).toContain('unknown-type');

    const planned = await cli(['plan', out, '--detailed-exitcode'], { env });
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
  });

  it('an update keeps the live data member the file never named', async () => {
    const created = await rawApi(emu, 'POST', '/api/v2/AlertChannels', {
      account: 'staging',
      body: { name: 'mail', type: 'EmailUser', enabled: 1, data: { channelProps: { recipients: ['a@example.com'] }, notificationTypes: { properties: { weekly: true } } } },
    });
    expect(created.status).toBe(201);
    const repo = join(dir, 'repo');
    await mkdir(repo, { recursive: true });
    await writeFile(join(repo, 'postureops.yaml'), 'accounts:\n  - name: staging\n');
    await writeFile(
      join(repo, 'mail.yaml'),
      'kind: AlertChannel\nname: mail\nspec:\n  type: EmailUser\n  data:\n    channelProps:\n      recipients: [a@example.com, c@example.com]\n',
    );
    const env = serviceEnv(emu);
    const applied = await cli(['apply', repo, '--auto-approve'], { env });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/update/i);

    const live = await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'staging' });
    expect(live.body.data.map((c: { data: unknown }) => c.data)).toEqual([
      { channelProps: { recipients: ['a@example.com', 'c@example.com'] }, notificationTypes: { properties: { weekly: true } } },
    ]);
    const again = await cli(['plan', repo, '--detailed-exitcode'], { env });
    expect(again.code, again.stdout).toBe(0);
  });
});
