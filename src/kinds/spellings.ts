// Spellings of the service (api-facts.md, seeds): type enumerations and fixed values, nothing else.
// The one file the emulator shares with the tool: it imports nothing, holds no tables the tool
// relies on (secret members, required members, buckets), so the emulator can still catch our mistakes.

export const CHANNEL_TYPES = [
  'AwsS3',
  'CiscoSparkWebhook',
  'CloudwatchEb',
  'Datadog',
  'EmailUser',
  'GcpPubsub',
  'IbmQradar',
  'Jira',
  'MicrosoftTeams',
  'NewRelicInsights',
  'PagerDutyApi',
  'ServiceNowRest',
  'SlackChannel',
  'SplunkHec',
  'VictorOps',
  'Webhook',
] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export const CLOUD_ACCOUNT_TYPES = [
  'AwsCfg',
  'AwsCtSqs',
  'AwsEksAudit',
  'AwsUsGovCfg',
  'AwsUsGovCtSqs',
  'AzureAlSeq',
  'AzureCfg',
  'GcpAtSes',
  'GcpCfg',
] as const;
export type CloudAccountType = (typeof CLOUD_ACCOUNT_TYPES)[number];

export const REGISTRY_INTEGRATION_TYPE = 'ContVulnCfg';
export const REGISTRY_TYPES = [
  'AWS_ECR',
  'DOCKERHUB',
  'V2_REGISTRY',
  'GCP_GCR',
  'GCP_GAR',
  'GHCR',
  'INLINE_SCANNER',
  'PROXY_SCANNER',
] as const;
export type RegistryType = (typeof REGISTRY_TYPES)[number];
export const AWS_AUTH_TYPES = ['AWS_IAM', 'AWS_ACCESS_KEY'] as const;

export const EVENT_CATEGORIES = ['App', 'Compliance', 'Cloud', 'File', 'K8sActivity', 'Machine', 'Platform', 'User'] as const;
export type EventCategory = (typeof EVENT_CATEGORIES)[number];

export const ALERT_RULE_TYPE = 'Event';

// The public client (2026) knows 19 cloud account types: the nine above and these (api-facts.md).
export const NEWER_CLOUD_ACCOUNT_TYPES = [
  'AwsSidekick',
  'AwsSidekickOrg',
  'AzureSidekick',
  'GcpSidekick',
  'AzureAdAl',
  'GcpGkeAudit',
  'GcpAlPubSub',
  'OciCfg',
  'AwsDspm',
  'AzureDspm',
] as const;
/** Every cloud account type postureops knows the shape of. */
export const KNOWN_CLOUD_ACCOUNT_TYPES = [...CLOUD_ACCOUNT_TYPES, ...NEWER_CLOUD_ACCOUNT_TYPES] as const;
export type KnownCloudAccountType = (typeof KNOWN_CLOUD_ACCOUNT_TYPES)[number];

/** Fixed values inside integration `data` and other specs (api-facts.md). */
export const ISSUE_GROUPINGS = ['Events', 'Resources'] as const;
export const DATADOG_SITES = ['com', 'eu'] as const;
export const DATADOG_TYPES = ['Logs Detail', 'Events Summary', 'Logs Summary'] as const;
export const QRADAR_COMM_TYPES = ['HTTPS', 'HTTPS Self Signed Cert'] as const;
export const JIRA_TYPES = ['JIRA_CLOUD', 'JIRA_SERVER'] as const;
export const GCP_ID_TYPES = ['PROJECT', 'ORGANIZATION'] as const;
export const AZURE_INTEGRATION_LEVELS = ['TENANT', 'SUBSCRIPTION'] as const;
export const GCR_DOMAINS = ['gcr.io', 'us.gcr.io', 'eu.gcr.io', 'asia.gcr.io'] as const;
export const AGENT_OS = ['linux', 'windows'] as const;
