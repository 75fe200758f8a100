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
