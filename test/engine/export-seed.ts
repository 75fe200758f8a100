// Seeds an emulator through the API with many resources of every kind: every channel type, every
// cloud account type, every registry flavour, rules routing to several channels, custom profiles
// with templates. Names vary (spaces, upper case, accents) as real ones do.

import { type ApiClient, unwrapData } from '../../src/api/types.js';
import { PREDEFINED_PROFILES, predefinedProfiles } from '../../src/emulator/index.js';
import { ROOT_PROFILE_ID } from '../../src/kinds/alert-profile/ids.js';
import { CHANNEL_TYPES, CLOUD_ACCOUNT_TYPES, EVENT_CATEGORIES } from '../../src/kinds/spellings.js';
import type { JsonObject } from '../../src/model/json.js';

const GCP = (i: number) => ({ clientEmail: `reader${i}@p.iam.gserviceaccount.com`, clientId: `1098${i}`, privateKey: `-----KEY ${i}-----`, privateKeyId: `kid${i}` });
const AWS_CROSS = (i: number) => ({ roleArn: `arn:aws:iam::1234567890${i % 10}:role/r${i}`, externalId: `ext-${i}` });

function channelData(type: string, a: string, i: number): JsonObject {
  switch (type) {
    case 'AwsS3':
      return { s3CrossAccountCredentials: { ...AWS_CROSS(i), bucketArn: `arn:aws:s3:::bucket-${a}-${i}` } };
    case 'CiscoSparkWebhook':
      return { webhook: `https://api.ciscospark.com/v1/webhooks/incoming/${a}${i}` };
    case 'CloudwatchEb':
      return { eventBusArn: `arn:aws:events:us-east-1:123456789012:event-bus/${a}-${i}`, issueGrouping: i % 2 ? 'Events' : 'Resources' };
    case 'Datadog':
      return { apiKey: `dd-secret-${a}-${i}`, datadogSite: i % 2 ? 'com' : 'eu', datadogType: 'Logs Summary' };
    case 'EmailUser':
      return { channelProps: { recipients: [`ops${i}@example.com`, `sec${i}@example.com`] } };
    case 'GcpPubsub':
      return { credentials: GCP(i), projectId: `proj-${a}`, topicId: `topic-${i}`, issueGrouping: 'Events' };
    case 'IbmQradar':
      return { qradarHostUrl: `https://qradar-${i}.example.com`, qradarHostPort: 443 + i, qradarCommType: 'HTTPS' };
    case 'Jira':
      return i % 2
        ? { jiraType: 'JIRA_CLOUD', jiraUrl: 'https://x.atlassian.net', projectId: `P${i}`, issueType: 'Bug', username: 'bot@example.com', apiToken: `jira-secret-${i}`, issueGrouping: 'Resources' }
        : { jiraType: 'JIRA_SERVER', jiraUrl: 'https://jira.example.com', projectId: `P${i}`, issueType: 'Task', username: 'bot', password: `jira-pass-${i}` };
    case 'MicrosoftTeams':
      return { teamsUrl: `https://outlook.office.com/webhook/${a}-${i}-secretpart` };
    case 'NewRelicInsights':
      return { accountId: 1000 + i, insertKey: `nr-secret-${i}` };
    case 'PagerDutyApi':
      return { apiIntgKey: `pd-secret-${a}-${i}` };
    case 'ServiceNowRest':
      return { instanceUrl: `https://sn${i}.service-now.com`, userName: 'svc', password: `sn-secret-${i}`, issueGrouping: 'Events' };
    case 'SlackChannel':
      return { slackUrl: `https://hooks.slack.com/services/T0${i}/B${a}/slacksecret${i}` };
    case 'SplunkHec':
      return { host: `splunk${i}.example.com`, port: 8088, ssl: i % 2 === 0, channel: `chan-${i}`, hecToken: `hec-secret-${a}-${i}`, eventData: { index: 'security', source: 'postureops' } };
    case 'VictorOps':
      return { intgUrl: `https://alert.victorops.com/integrations/${a}/${i}` };
    default:
      return { webhookUrl: `https://hooks.example.com/${a}/${i}?token=websecret${i}` };
  }
}

function cloudAccountData(type: string, i: number): JsonObject {
  const account = `12345678901${i % 10}`;
  const keys = { accessKeyId: `AKIA${i}`, secretAccessKey: `gov-secret-${i}` };
  const azure = { tenantId: `tenant-${i}`, credentials: { clientId: `azure-client-${i}`, clientSecret: `azure-secret-${i}` } };
  switch (type) {
    case 'AwsCfg':
      return { awsAccountId: account, crossAccountCredentials: AWS_CROSS(i) };
    case 'AwsCtSqs':
      return { awsAccountId: account, crossAccountCredentials: AWS_CROSS(i), queueUrl: `https://sqs.us-east-1.amazonaws.com/123456789012/q${i}` };
    case 'AwsEksAudit':
      return { crossAccountCredentials: AWS_CROSS(i), snsArn: `arn:aws:sns:us-east-1:123456789012:eks-${i}` };
    case 'AwsUsGovCfg':
      return { accessKeyCredentials: { accountId: account, ...keys } };
    case 'AwsUsGovCtSqs':
      return { accessKeyCredentials: { accountId: account, ...keys }, queueUrl: `https://sqs.us-gov-west-1.amazonaws.com/1/q${i}` };
    case 'AzureAlSeq':
      return { ...azure, queueUrl: `https://audit${i}.queue.core.windows.net/activity` };
    case 'AzureCfg':
      return azure;
    case 'GcpAtSes':
      return { credentials: GCP(i), idType: 'PROJECT', id: `audit-${i}`, subscriptionName: `projects/audit-${i}/subscriptions/posture` };
    default:
      return { credentials: GCP(i), idType: i % 2 ? 'PROJECT' : 'ORGANIZATION', id: `org-or-project-${i}` };
  }
}

function registryData(i: number): JsonObject {
  const flavours: JsonObject[] = [
    { registryType: 'AWS_ECR', awsAuthType: 'AWS_IAM', registryDomain: `12345678901${i % 10}.dkr.ecr.us-east-1.amazonaws.com`, crossAccountCredentials: AWS_CROSS(i) },
    { registryType: 'AWS_ECR', awsAuthType: 'AWS_ACCESS_KEY', registryDomain: 'r.ecr.example.com', accessKeyCredentials: { accessKeyId: `AKIA${i}`, secretAccessKey: `ecr-secret-${i}` } },
    { registryType: 'DOCKERHUB', credentials: { username: `hub${i}`, password: `hub-secret-${i}` }, limitNumImg: 10, limitByTag: ['release-*'] },
    { registryType: 'V2_REGISTRY', registryDomain: `registry${i}.example.com`, credentials: { username: `u${i}`, password: `v2-secret-${i}` } },
    { registryType: 'GHCR', credentials: { username: `gh${i}`, password: `ghcr-secret-${i}` }, nonOsPackageEval: true },
    { registryType: 'GCP_GCR', registryDomain: 'gcr.io', credentials: GCP(i) },
    { registryType: 'GCP_GAR', registryDomain: 'us-docker.pkg.dev', credentials: GCP(i), limitByRep: ['team/app'] },
    { registryType: 'INLINE_SCANNER' },
    { registryType: 'PROXY_SCANNER', limitNumImg: 3 },
  ];
  return flavours[i % flavours.length];
}

const REASONS = ['Accepted Risk', 'False Positive', 'Compensating Controls', 'Fix Pending', 'Other'];
const SEVERITIES = ['Critical', 'High', 'Medium', 'Low', 'Info'];

/** A vulnerability exception of either type, its criteria and scope varied; expiries in two zones or none. */
export function vulnerabilityException(i: number, name: string): JsonObject {
  const host = i % 2 === 1;
  const criteria: JsonObject = {};
  if (i % 3 !== 1) criteria.cve = [`CVE-2024-${1000 + i}`, `CVE-2023-${2000 + i}`];
  // Versions of one name in two entries: the service groups them.
  if (i % 4 !== 0) criteria.package = [{ [`pkg-${i}`]: ['1.0.0', '1.1.0'] }, { libssl: [`3.0.${i}`] }, { [`pkg-${i}`]: ['2.0.0'] }];
  if (i % 3 !== 0) criteria.severity = SEVERITIES.filter((_, j) => (i + j) % 2 === 0);
  if (i % 5 !== 0) criteria.fixable = [i % 2];
  const scope: JsonObject = host
    ? { hostname: [`host-${i}`, `host-${i + 1}`], ...(i % 3 === 0 ? { clusterName: ['prod-eks'] } : {}) }
    : { registry: ['index.docker.io'], repository: [`team/app-${i}`], ...(i % 4 === 2 ? { imageTag: ['latest', 'v1'] } : {}) };
  return {
    exceptionName: name,
    exceptionType: host ? 'Host' : 'Container',
    exceptionReason: REASONS[i % REASONS.length],
    ...(i % 6 === 5 ? { state: 0 } : {}),
    props: { description: i % 2 ? `excepted ${i}` : '' },
    vulnerabilityCriteria: criteria,
    ...(i % 7 !== 6 ? { resourceScope: scope } : {}),
    ...(i % 3 === 0 ? { expiryTime: '2031-01-15T10:00:00+02:00' } : i % 3 === 1 ? { expiryTime: `2032-06-${String(10 + (i % 18)).padStart(2, '0')}T08:30:00Z` } : {}),
  };
}

const NAME_STYLES = [(s: string) => s, (s: string) => `Team ${s} Alerts`, (s: string) => s.toUpperCase(), (s: string) => `équipe-${s}`];
/** A field seen per resource type (api-facts.md), for groups of every type. */
const GROUP_FIELDS: [string, string, string][] = [
  ['AWS', 'Region', 'Resource Tag'],
  ['AZURE', 'Subscription ID', 'Resource Tag'],
  ['GCP', 'Project ID', 'Resource Label'],
  ['CONTAINER', 'Image Repo', 'Container Label'],
  ['MACHINE', 'Machine Tag', 'Machine Tag'],
  ['OCI', 'Compartment ID', 'Resource Tag'],
  ['KUBERNETES', 'Cluster Name', 'Namespace'],
];

function groupQuery(i: number): JsonObject {
  const [, field, other] = GROUP_FIELDS[i % GROUP_FIELDS.length];
  const filters: JsonObject = {
    [`mine-${i}`]: { field, operation: i % 2 ? 'STARTS_WITH' : 'EQUALS', values: [`v${i}`, `w${i}`] },
    [`other-${i}`]: { field: other, operation: 'INCLUDES', values: ['*'], ...(other.includes('Tag') || other.includes('Label') ? { key: `k${i}` } : {}) },
  };
  const leaves = [{ filterName: `mine-${i}` }, { filterName: `other-${i}` }];
  return { filters, expression: i % 3 ? { operator: 'OR', children: leaves } : { operator: 'AND', children: [leaves[1], { operator: 'OR', children: [leaves[0]] }] } };
}

const nameFor = (base: string, i: number) => NAME_STYLES[i % NAME_STYLES.length](`${base}-${i}`);

export interface SeedCounts {
  perKindPerAccount: number;
  /** The vendor prefix of the service's predefined profiles (the emulator's predefinedPrefix); default SVC_. */
  predefinedPrefix?: string;
}

/**
 * Creates `perKindPerAccount` channels, cloud accounts, registries, resource groups, alert and report
 * rules, profiles (with 2 templates each), agent tokens, queries and policies, and exceptions of
 * predefined policies per account, and changes the state of two predefined policies.
 */
export async function seedService(client: ApiClient, accounts: readonly string[], { perKindPerAccount: n, predefinedPrefix }: SeedCounts): Promise<void> {
  const profiles = predefinedPrefix === undefined ? PREDEFINED_PROFILES : predefinedProfiles(predefinedPrefix);
  // The root has no `extends` and may not be extended; the others with templates may.
  const bases = profiles.filter((p) => p.alertProfileId !== ROOT_PROFILE_ID && p.extends !== undefined && p.alerts.length > 0);
  await Promise.all(
    accounts.map(async (a) => {
      const post = async (path: string, body: unknown) => unwrapData<JsonObject>((await client.request({ method: 'POST', path, account: a, body })).body);
      const channelIds: string[] = [];
      for (let i = 0; i < n; i++) {
        const type = CHANNEL_TYPES[i % CHANNEL_TYPES.length];
        const rec = await post('/api/v2/AlertChannels', { name: nameFor(type.toLowerCase(), i), type, enabled: i % 5 === 4 ? 0 : 1, data: channelData(type, a, i) });
        channelIds.push(String(rec.intgGuid));
      }
      const groupIds: string[] = [];
      for (let i = 0; i < n; i++) {
        const [resourceType] = GROUP_FIELDS[i % GROUP_FIELDS.length];
        const rec = await post('/api/v2/ResourceGroups', { name: nameFor('group', i), resourceType, description: i % 2 ? `group ${i}` : '', enabled: i % 9 === 8 ? 0 : 1, query: groupQuery(i) });
        groupIds.push(String(rec.resourceGroupGuid));
      }
      // Rules name the default groups too (listed, never exported as documents).
      const listed = unwrapData<JsonObject[]>((await client.request({ method: 'GET', path: '/api/v2/ResourceGroups', account: a })).body);
      const defaults = listed.filter((g) => g.isDefaultBoolean === true).map((g) => String(g.resourceGroupGuid ?? g.guid));
      const mailIds = channelIds.filter((_, i) => CHANNEL_TYPES[i % CHANNEL_TYPES.length] === 'EmailUser');
      for (let i = 0; i < n; i++) {
        await post('/api/v2/ReportRules', {
          type: 'Report',
          intgGuidList: [mailIds[i % mailIds.length]],
          filters: { name: nameFor('report', i), description: i % 2 ? `reports ${i}` : '', enabled: i % 5 === 4 ? 0 : 1, severity: [1, 2, 3].slice(0, 1 + (i % 3)), resourceGroups: i % 3 ? [groupIds[i % n], defaults[i % defaults.length]] : [] },
          reportNotificationTypes: { pci: i % 2 === 0, trendReport: true, [i % 4 ? 'awsComplianceEvents' : 'gcpCis12']: true },
        });
      }
      // Data export rules take AwsS3 channels only.
      const s3Ids = channelIds.filter((_, i) => CHANNEL_TYPES[i % CHANNEL_TYPES.length] === 'AwsS3');
      for (let i = 0; i < n; i++) {
        await post('/api/v2/DataExportRules', {
          type: 'Dataexport',
          intgGuidList: [s3Ids[i % s3Ids.length]],
          filters: { name: nameFor('export', i), description: i % 2 ? `export ${i}` : '', enabled: i % 5 === 4 ? 0 : 1, ...(i % 3 === 0 ? { profileVersions: ['V1'] } : {}) },
        });
      }
      for (let i = 0; i < n; i++) {
        await post('/api/v2/VulnerabilityExceptions', vulnerabilityException(i, nameFor('exception', i)));
      }
      for (let i = 0; i < n; i++) {
        const type = CLOUD_ACCOUNT_TYPES[i % CLOUD_ACCOUNT_TYPES.length];
        await post('/api/v2/CloudAccounts', { name: nameFor(type.toLowerCase(), i), type, enabled: i % 4 === 3 ? 0 : 1, data: cloudAccountData(type, i) });
      }
      for (let i = 0; i < n; i++) {
        await post('/api/v2/ContainerRegistries', { name: nameFor('registry', i), type: 'ContVulnCfg', enabled: i % 6 === 5 ? 0 : 1, data: registryData(i) });
      }
      for (let i = 0; i < n; i++) {
        const intgGuidList = [channelIds[i % channelIds.length], channelIds[(i * 7 + 3) % channelIds.length]].filter((v, j, all) => all.indexOf(v) === j);
        await post('/api/v2/AlertRules', {
          type: 'Event',
          intgGuidList,
          filters: {
            name: nameFor('rule', i),
            description: i % 3 ? `route ${i}` : '',
            enabled: i % 7 === 6 ? 0 : 1,
            resourceGroups: i % 2 ? [groupIds[i % n], groupIds[(i * 3 + 1) % n], defaults[i % defaults.length]].filter((v, j, all) => all.indexOf(v) === j) : [],
            eventCategory: EVENT_CATEGORIES.filter((_, j) => (i + j) % 3 === 0),
            severity: [1, 2, 3, 4, 5].filter((s) => (s + i) % 2 === 0),
          },
        });
      }
      for (let i = 0; i < n; i++) {
        await post('/api/v2/AgentAccessTokens', { tokenAlias: nameFor('agents', i), tokenEnabled: '1', ...(i % 3 === 0 ? { props: { description: `Agents #${i}` } } : {}) });
      }
      for (let i = 0; i < n; i++) {
        const base = bases[i % bases.length];
        const key = base.descriptionKeys[i % base.descriptionKeys.length].spec;
        await post('/api/v2/AlertProfiles', {
          alertProfileId: `CUSTOM_${a.toUpperCase()}_${i}`,
          extends: base.alertProfileId,
          alerts: [
            { name: `Alert_${i}`, eventName: `Event ${i}`, subject: `Subject ${key}`, description: `Seen ${key} #${i}` },
            { name: `Other_${i}`, eventName: `Other ${i}`, subject: 'plain', description: 'text: with "quotes" and # hash' },
          ],
        });
      }
      const prefix = predefinedPrefix ?? 'SVC_';
      for (let i = 0; i < n; i++) {
        await post('/api/v2/Queries', {
          queryId: `Custom_${a}_${i}`,
          queryText: queryText(`Custom_${a}_${i}`, prefix, i),
          ...(i % 2 ? { queryName: nameFor('query', i) } : {}),
          ...(i % 3 === 1 ? { description: `finds ${i}: "quoted" # not a comment` } : {}),
        });
      }
      for (let i = 0; i < n; i++) {
        const compliance = i % 3 === 2;
        const alert = i % 4 === 0 ? `CUSTOM_${a.toUpperCase()}_${i}.Alert_${i}` : i % 4 === 1 ? `${prefix}CFG_AWS_DEFAULT_PROFILE` : i % 4 === 2 ? `${prefix}CFG_AWS_DEFAULT_PROFILE.Compliance_Violation` : undefined;
        await post('/api/v2/Policies', {
          // Every fifth without a suffix: the service names it `<tenant>-default-<n>`.
          ...(i % 5 === 4 ? {} : { policyId: `policy${String.fromCharCode(97 + (i % 26))}-${i}` }),
          policyType: compliance ? 'Compliance' : 'Violation',
          queryId: i % 6 === 5 ? `${prefix}Global_AWS_Config_S3BucketPublicRead` : `Custom_${a}_${i}`,
          title: nameFor('Policy', i),
          description: i % 2 ? `what policy ${i} finds` : '',
          remediation: `Fix #${i}:\n  step one`,
          severity: ['critical', 'High', 'medium', 'LOW', 'info'][i % 5],
          enabled: i % 7 !== 6,
          alertEnabled: i % 4 !== 3,
          ...(alert !== undefined ? { alertProfile: alert } : {}),
          ...(!compliance && i % 2 ? { evalFrequency: 'Daily' } : {}),
          ...(i % 3 === 0 ? { limit: 100 + i } : {}),
          tags: i % 2 ? [`team:t${i % 3}`, 'domain:AWS'] : [],
        });
      }
      // Exceptions of the predefined policies (custom ones are named by their suffix), and their state.
      // The vendor's ids (`<vendor>-global-<n>`) follow the emulator's vendor.
      const listedPolicies = unwrapData<JsonObject[]>((await client.request({ method: 'GET', path: '/api/v2/Policies', account: a })).body);
      const globalId = (n: number): string => String(listedPolicies.find((p) => new RegExp(`^[a-z0-9]+-global-${n}$`).test(String(p.policyId)))?.policyId);
      const predefined: [string, (i: number) => JsonObject[]][] = [
        [globalId(1), (i) => [{ fieldKey: 'accountIds', fieldValues: [String(100000000000 + i)] }]],
        [globalId(8), (i) => [{ fieldKey: 'resourceTags', fieldValues: [{ key: `team${i}`, value: ['a', 'b'] }] }, { fieldKey: 'arns', fieldValues: [`arn:aws:s3:::bucket-${i}`] }]],
        [globalId(73), (i) => [{ fieldKey: 'projects', fieldValues: [`project-${i}`, '*'] }, { fieldKey: 'organizations', fieldValues: [String(i)] }]],
        [globalId(87), (i) => [{ fieldKey: 'subscriptions', fieldValues: [`sub-${i}`] }]],
      ];
      // Side by side: nothing refers to an exception.
      await Promise.all(
        Array.from({ length: n }, (_, i) => {
          const [policyId, constraints] = predefined[i % predefined.length];
          return post(`/api/v2/Exceptions?policyId=${policyId}`, { description: i % 5 === 4 ? `exception: "${i}" # with text` : `exception ${i}`, constraints: constraints(i) });
        }),
      );
      await client.request({ method: 'PATCH', path: '/api/v2/Policies', account: a, body: [{ policyId: globalId(39), enabled: false }, { policyId: globalId(2), enabled: true, severity: 'high' }] });
    }),
  );
}

/** Query texts in both forms, with comment lines, trailing spaces and prefixed data sources. */
function queryText(id: string, prefix: string, i: number): string {
  const body = `    source {\n        ${prefix}CFG_AWS_S3 b\n    }\n    filter {\n        b.NAME like '%${i}%'  \n    }\n    return distinct {\n        b.ARN as RESOURCE_KEY, b.ACCOUNT_ID\n    }\n`;
  if (i % 3 === 0) return `--- query ${i}\n{\n${body}}`;
  if (i % 3 === 1) return `${id} {\n${body}}\n`;
  return `{\n${body}}\n\n`;
}
