// Facts about the service that the kinds, the schemas and the API client share (api-facts.md, seeds).
// Data only: no behaviour beyond small lookups. The emulator keeps its own versions of these tables
// (src/emulator/service-facts.ts) and shares only spellings.ts, so it can catch a wrong entry here.

export {
  ALERT_RULE_TYPE,
  AWS_AUTH_TYPES,
  CHANNEL_TYPES,
  CLOUD_ACCOUNT_TYPES,
  EVENT_CATEGORIES,
  REGISTRY_INTEGRATION_TYPE,
  REGISTRY_TYPES,
  type ChannelType,
  type CloudAccountType,
  type EventCategory,
  type RegistryType,
} from './spellings.js';
import type { ChannelType, CloudAccountType } from './spellings.js';

/** Severity integers of alert rules and their names in configuration files. */
export const SEVERITIES = { critical: 1, high: 2, medium: 3, low: 4, info: 5 } as const;
export type SeverityName = keyof typeof SEVERITIES;


/** Predefined alert profiles carry this prefix; custom profile ids may not use it. */
export const PREDEFINED_PROFILE_PREFIX = 'SVC_';
/** The root base profile of the predefined ones: no alerts, may not be extended. */
export const ROOT_PROFILE_ID = 'SVC_BASE_PROFILE';

/**
 * How the service hides a write-only member in responses:
 * `empty` returns "", `omitted` leaves the member out.
 */
export type Masking = 'empty' | 'omitted';

export interface SecretField {
  /** Dotted path inside `data`, e.g. `credentials.privateKey`. */
  path: string;
  /** Write-only: never returned as written. Otherwise returned in clear but still never shown. */
  writeOnly: boolean;
  masking?: Masking;
}

/** Secret members of alert channel `data`, per type. */
export const CHANNEL_SECRETS: Record<ChannelType, SecretField[]> = {
  AwsS3: [],
  CiscoSparkWebhook: [{ path: 'webhook', writeOnly: false }],
  CloudwatchEb: [],
  Datadog: [{ path: 'apiKey', writeOnly: true, masking: 'omitted' }],
  EmailUser: [],
  GcpPubsub: [
    { path: 'credentials.privateKey', writeOnly: true, masking: 'empty' },
    { path: 'credentials.privateKeyId', writeOnly: true, masking: 'empty' },
  ],
  IbmQradar: [],
  Jira: [
    { path: 'apiToken', writeOnly: true, masking: 'omitted' },
    { path: 'password', writeOnly: true, masking: 'omitted' },
  ],
  MicrosoftTeams: [{ path: 'teamsUrl', writeOnly: false }],
  NewRelicInsights: [{ path: 'insertKey', writeOnly: true, masking: 'omitted' }],
  PagerDutyApi: [{ path: 'apiIntgKey', writeOnly: true, masking: 'omitted' }],
  ServiceNowRest: [{ path: 'password', writeOnly: true, masking: 'empty' }],
  SlackChannel: [{ path: 'slackUrl', writeOnly: false }],
  SplunkHec: [{ path: 'hecToken', writeOnly: false }],
  VictorOps: [{ path: 'intgUrl', writeOnly: false }],
  Webhook: [{ path: 'webhookUrl', writeOnly: false }],
};

/** Required members of alert channel `data`, per type (dotted paths). */
export const CHANNEL_REQUIRED: Record<ChannelType, string[]> = {
  AwsS3: ['s3CrossAccountCredentials.roleArn', 's3CrossAccountCredentials.externalId', 's3CrossAccountCredentials.bucketArn'],
  CiscoSparkWebhook: ['webhook'],
  CloudwatchEb: ['eventBusArn'],
  Datadog: ['apiKey'],
  EmailUser: ['channelProps.recipients'],
  GcpPubsub: ['credentials.clientEmail', 'credentials.clientId', 'credentials.privateKey', 'credentials.privateKeyId', 'projectId', 'topicId'],
  IbmQradar: ['qradarHostUrl', 'qradarHostPort', 'qradarCommType'],
  Jira: ['jiraType', 'jiraUrl', 'projectId', 'issueType', 'username'],
  MicrosoftTeams: ['teamsUrl'],
  NewRelicInsights: ['accountId', 'insertKey'],
  PagerDutyApi: ['apiIntgKey'],
  ServiceNowRest: ['instanceUrl', 'userName', 'password'],
  SlackChannel: ['slackUrl'],
  SplunkHec: ['host', 'port', 'channel', 'hecToken', 'eventData.index', 'eventData.source'],
  VictorOps: ['intgUrl'],
  Webhook: ['webhookUrl'],
};

/** Secret members of cloud account `data`, per type. */
export const CLOUD_ACCOUNT_SECRETS: Record<CloudAccountType, SecretField[]> = {
  AwsCfg: [],
  AwsCtSqs: [],
  AwsEksAudit: [],
  AwsUsGovCfg: [{ path: 'accessKeyCredentials.secretAccessKey', writeOnly: true, masking: 'empty' }],
  AwsUsGovCtSqs: [{ path: 'accessKeyCredentials.secretAccessKey', writeOnly: true, masking: 'empty' }],
  AzureAlSeq: [{ path: 'credentials.clientSecret', writeOnly: true, masking: 'empty' }],
  AzureCfg: [{ path: 'credentials.clientSecret', writeOnly: true, masking: 'empty' }],
  GcpAtSes: [
    { path: 'credentials.privateKey', writeOnly: true, masking: 'empty' },
    { path: 'credentials.privateKeyId', writeOnly: true, masking: 'empty' },
  ],
  GcpCfg: [
    { path: 'credentials.privateKey', writeOnly: true, masking: 'empty' },
    { path: 'credentials.privateKeyId', writeOnly: true, masking: 'empty' },
  ],
};

/** Secret members of container registry `data`, by `registryType` (and AWS auth type). */
export function registrySecrets(data: { registryType?: unknown; awsAuthType?: unknown }): SecretField[] {
  switch (data.registryType) {
    case 'AWS_ECR':
      return data.awsAuthType === 'AWS_ACCESS_KEY'
        ? [{ path: 'accessKeyCredentials.secretAccessKey', writeOnly: true, masking: 'empty' }]
        : [];
    case 'DOCKERHUB':
    case 'V2_REGISTRY':
    case 'GHCR':
      return [{ path: 'credentials.password', writeOnly: true, masking: 'empty' }];
    case 'GCP_GCR':
    case 'GCP_GAR':
      return [
        { path: 'credentials.privateKey', writeOnly: true, masking: 'empty' },
        { path: 'credentials.privateKeyId', writeOnly: true, masking: 'empty' },
      ];
    default:
      return [];
  }
}

/** Dotted path → JSON pointer below `/data`: `credentials.privateKey` → `/data/credentials/privateKey`. */
export function dataPointer(dotted: string): string {
  return '/data/' + dotted.split('.').join('/');
}

/** Members the service fills in a container registry's `data` when a request leaves them out. */
export const REGISTRY_DATA_DEFAULTS = {
  limitNumImg: 5,
  limitByRep: [],
  limitByTag: [],
  limitByLabel: [],
  nonOsPackageEval: false,
} as const;
