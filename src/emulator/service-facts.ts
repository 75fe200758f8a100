// What the emulated service knows about itself, written from the seeds and api-facts.md, not taken
// from the tool's tables: when the tool's idea of a secret, a required member or a default drifts
// from the documents, the emulator answers differently and the tool's tests notice.

import type { AWS_AUTH_TYPES, ChannelType, CloudAccountType, RegistryType } from './spellings.js';

/** Seed 000: "All API v2 paths start with /api/v2". */
export const API_PREFIX = '/api/v2';

/**
 * api-facts.md: predefined profiles carry the vendor prefix (ours is SVC_; the real service's is
 * `LW_`); custom ids may not use it. The default of the emulator's `predefinedPrefix` option.
 */
export const PREDEFINED_PROFILE_PREFIX = 'SVC_';
/** Seed 000: the root base profile has no alerts and must not be extended. Its id is the prefix and this. */
export const ROOT_PROFILE_NAME = 'BASE_PROFILE';
export const ROOT_PROFILE_ID = `${PREDEFINED_PROFILE_PREFIX}${ROOT_PROFILE_NAME}`;

/**
 * How a sensitive `data` member comes back in responses (api-facts.md, "Secrets are write-only"):
 * `empty` as "", `omitted` left out, `clear` as written (URLs of chat/webhook channels, hecToken).
 */
export type Shown = 'empty' | 'omitted' | 'clear';

export interface SensitiveMember {
  /** Dotted path inside `data`, e.g. `credentials.privateKey`. */
  path: string;
  shown: Shown;
}

/*
 * The documents name four masked members: `secretAccessKey: ""`, Docker Hub `password: ""`,
 * GCP `privateKey: ""` (all nested in a credentials object) and `apiKey`, `apiIntgKey` left out
 * (both top level of `data`). Where a member's masking is not named, the emulator follows that
 * pattern: nested credential members come back "", top-level ones are left out.
 */
const nested = (path: string): SensitiveMember => ({ path, shown: 'empty' });
const topLevel = (path: string): SensitiveMember => ({ path, shown: 'omitted' });
const clear = (path: string): SensitiveMember => ({ path, shown: 'clear' });

const GCP_KEYS = [nested('credentials.privateKey'), nested('credentials.privateKeyId')];

/** Sensitive members of alert channel `data` (the bold members of api-facts.md, plus URLs that act as credentials). */
export const CHANNEL_SENSITIVE: Record<ChannelType, SensitiveMember[]> = {
  AwsS3: [],
  CiscoSparkWebhook: [clear('webhook')],
  CloudwatchEb: [],
  Datadog: [topLevel('apiKey')],
  EmailUser: [],
  GcpPubsub: GCP_KEYS,
  IbmQradar: [],
  Jira: [topLevel('apiToken'), topLevel('password')],
  MicrosoftTeams: [clear('teamsUrl')],
  NewRelicInsights: [topLevel('insertKey')],
  PagerDutyApi: [topLevel('apiIntgKey')],
  ServiceNowRest: [topLevel('password')],
  SlackChannel: [clear('slackUrl')],
  SplunkHec: [clear('hecToken')],
  VictorOps: [clear('intgUrl')],
  Webhook: [clear('webhookUrl')],
};

const AWS_SECRET_KEY = [nested('accessKeyCredentials.secretAccessKey')];
const AZURE_SECRET = [nested('credentials.clientSecret')];
/** The ten newer GCP and OCI types bold only `privateKey` (api-facts.md, "beyond the nine"); `privateKeyId` comes back. */
const PRIVATE_KEY = [nested('credentials.privateKey')];

/** Sensitive members of cloud account `data` (api-facts.md, "Per-type shapes" and "beyond the nine"). */
export const CLOUD_ACCOUNT_SENSITIVE: Record<CloudAccountType, SensitiveMember[]> = {
  AwsCfg: [],
  AwsCtSqs: [],
  AwsEksAudit: [],
  AwsUsGovCfg: AWS_SECRET_KEY,
  AwsUsGovCtSqs: AWS_SECRET_KEY,
  AzureAlSeq: AZURE_SECRET,
  AzureCfg: AZURE_SECRET,
  GcpAtSes: GCP_KEYS,
  GcpCfg: GCP_KEYS,
  AwsSidekick: [],
  AwsSidekickOrg: [],
  AzureSidekick: AZURE_SECRET,
  GcpSidekick: PRIVATE_KEY,
  AzureAdAl: AZURE_SECRET,
  GcpGkeAudit: PRIVATE_KEY,
  GcpAlPubSub: PRIVATE_KEY,
  OciCfg: PRIVATE_KEY,
  AwsDspm: [],
  AzureDspm: AZURE_SECRET,
};

/** Cloud account types whose records carry a top-level `serverToken {serverToken, uri}` the service issues on create. */
export const SERVER_TOKEN_TYPES: readonly CloudAccountType[] = ['AwsSidekick', 'AwsSidekickOrg'];

/**
 * Sensitive members of container registry `data`, by `registryType` (and AWS auth type). A GCP
 * registry leaves `privateKey` out and returns `privateKeyId` in clear (api-facts.md, "Write-only
 * secrets are not always hidden"), unlike the GCP channels and cloud accounts.
 */
export function registrySensitive(data: Record<string, unknown>): SensitiveMember[] {
  switch (data.registryType as RegistryType) {
    case 'AWS_ECR':
      return data.awsAuthType === 'AWS_ACCESS_KEY' ? AWS_SECRET_KEY : [];
    case 'DOCKERHUB':
    case 'V2_REGISTRY':
    case 'GHCR':
      return [nested('credentials.password')];
    case 'GCP_GCR':
    case 'GCP_GAR':
      return [{ path: 'credentials.privateKey', shown: 'omitted' }, clear('credentials.privateKeyId')];
    default:
      return [];
  }
}

/*
 * Required `data` members (dotted paths). The seeds give the S3 and Slack shapes; for the rest the
 * emulator requires what identifies the destination and the credential to reach it (api-facts.md,
 * per-type members), and leaves the tuning members (grouping, templates, sites) optional.
 */

/** Required members of alert channel `data`, per type. */
export const CHANNEL_REQUIRED: Record<ChannelType, string[]> = {
  AwsS3: ['s3CrossAccountCredentials.roleArn', 's3CrossAccountCredentials.externalId', 's3CrossAccountCredentials.bucketArn'],
  CiscoSparkWebhook: ['webhook'],
  CloudwatchEb: ['eventBusArn'],
  Datadog: ['apiKey'],
  EmailUser: ['channelProps.recipients'],
  // Optional where the public clients mark them so (api-facts.md): GCP privateKeyId, QRadar port, Splunk channel.
  GcpPubsub: ['credentials.clientEmail', 'credentials.clientId', 'credentials.privateKey', 'projectId', 'topicId'],
  IbmQradar: ['qradarHostUrl', 'qradarCommType'],
  // The credential depends on jiraType: see JIRA_SECRET.
  Jira: ['jiraType', 'jiraUrl', 'projectId', 'issueType', 'username'],
  MicrosoftTeams: ['teamsUrl'],
  NewRelicInsights: ['accountId', 'insertKey'],
  PagerDutyApi: ['apiIntgKey'],
  ServiceNowRest: ['instanceUrl', 'userName', 'password'],
  SlackChannel: ['slackUrl'],
  SplunkHec: ['host', 'port', 'hecToken', 'eventData.index', 'eventData.source'],
  VictorOps: ['intgUrl'],
  Webhook: ['webhookUrl'],
};

/** Jira: `apiToken` on the cloud flavour, `password` on a server (api-facts.md). */
export const JIRA_SECRET: Record<string, string> = { JIRA_CLOUD: 'apiToken', JIRA_SERVER: 'password' };

export const AWS_CROSS = ['crossAccountCredentials.roleArn', 'crossAccountCredentials.externalId'];
export const AWS_KEYS = ['accessKeyCredentials.accessKeyId', 'accessKeyCredentials.secretAccessKey'];
const AZURE = ['credentials.clientId', 'credentials.clientSecret'];
/** `privateKeyId` is optional: the public clients mark it so (api-facts.md). */
const GCP = ['credentials.clientEmail', 'credentials.clientId', 'credentials.privateKey'];

/** Required members of cloud account `data`: the identity and secret members api-facts.md names. */
export const CLOUD_ACCOUNT_REQUIRED: Record<CloudAccountType, string[]> = {
  AwsCfg: AWS_CROSS,
  AwsCtSqs: [...AWS_CROSS, 'queueUrl'],
  AwsEksAudit: AWS_CROSS,
  AwsUsGovCfg: AWS_KEYS,
  AwsUsGovCtSqs: [...AWS_KEYS, 'queueUrl'],
  AzureAlSeq: AZURE,
  AzureCfg: AZURE,
  GcpAtSes: GCP,
  GcpCfg: GCP,
  AwsSidekick: ['awsAccountId', ...AWS_CROSS],
  AwsSidekickOrg: [...AWS_CROSS, 'scanningAccount', 'managementAccount'],
  AzureSidekick: [...AZURE, 'tenantId', 'integrationLevel'],
  GcpSidekick: [...GCP, 'idType', 'id'],
  AzureAdAl: [...AZURE, 'tenantId', 'eventHubNamespace', 'eventHubName'],
  GcpGkeAudit: [...GCP, 'integrationType', 'subscriptionName'],
  GcpAlPubSub: [...GCP, 'integrationType', 'subscriptionName', 'topicId'],
  OciCfg: ['credentials.fingerprint', 'credentials.privateKey', 'homeRegion', 'tenantId', 'tenantName', 'userOcid'],
  AwsDspm: ['awsAccountId', ...AWS_CROSS],
  AzureDspm: [...AZURE, 'tenantId'],
};

/** Required members of container registry `data`, per registryType. */
export const REGISTRY_REQUIRED: Record<RegistryType, string[]> = {
  AWS_ECR: ['registryType', 'awsAuthType', 'registryDomain'],
  DOCKERHUB: ['registryType', 'credentials.username', 'credentials.password'],
  V2_REGISTRY: ['registryType', 'registryDomain', 'credentials.username', 'credentials.password'],
  GHCR: ['registryType', 'credentials.username', 'credentials.password'],
  GCP_GCR: ['registryType', 'registryDomain', ...GCP],
  GCP_GAR: ['registryType', 'registryDomain', ...GCP],
  INLINE_SCANNER: ['registryType'],
  PROXY_SCANNER: ['registryType'],
};

/** AWS_ECR: which credential object the auth type needs (api-facts.md). */
export const ECR_CREDENTIALS: Record<(typeof AWS_AUTH_TYPES)[number], string[]> = {
  AWS_IAM: AWS_CROSS,
  AWS_ACCESS_KEY: AWS_KEYS,
};

/**
 * Members the service fills in a registry's response `data` when the request left them out: the
 * seed's request sample (limitNumImg 5, empty filter lists) and its response, which echoes
 * `identifierTag`.
 */
export const REGISTRY_RESPONSE_DEFAULTS: Readonly<Record<string, unknown>> = {
  limitNumImg: 5,
  limitByRep: [],
  limitByTag: [],
  limitByLabel: [],
  nonOsPackageEval: false,
  identifierTag: [],
};

/** api-facts.md: a Docker Hub registry answers with `registryDomain` `index.docker.io`. */
export const DOCKERHUB_DOMAIN = 'index.docker.io';

/**
 * Seed 001: compliance evaluation search requires `dataset`, one per cloud provider (spellings
 * omitted in the seed; these are the ones the service's public reference uses).
 */
export const COMPLIANCE_DATASETS = ['AwsCompliance', 'AzureCompliance', 'GcpCompliance'] as const;
export type ComplianceDataset = (typeof COMPLIANCE_DATASETS)[number];

/** Seed 000, "Limits": paging and the time windows of the activity and evaluation searches. */
export const ROWS_PER_PAGE = 5000;
export const ROWS_PER_RESULT_SET = 500_000;
export const NEXT_PAGE_VALID_MS = 24 * 3_600_000;
export const DEFAULT_RANGE_MS = 24 * 3_600_000;
export const MAX_RANGE_MS = 7 * 24 * 3_600_000;
export const COMPLIANCE_HISTORY_MS = 90 * 24 * 3_600_000;
