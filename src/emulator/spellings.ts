// The service's spellings as the emulator knows them (seeds, api-facts.md): type enumerations and
// fixed values. The emulator's own copy, not the tool's: it is the independent oracle, so a wrong
// spelling on the tool's side shows up as a refusal here. test/emulator/api-facts.test.ts holds both
// tables against api-facts.md (test/fixtures/api-facts.json).

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

/** api-facts.md: the nine of the seeds' time and the ten more the public client knows (2026). */
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
export type CloudAccountType = (typeof CLOUD_ACCOUNT_TYPES)[number];

export const REGISTRY_INTEGRATION_TYPE = 'ContVulnCfg';
export const REGISTRY_TYPES = ['AWS_ECR', 'DOCKERHUB', 'V2_REGISTRY', 'GCP_GCR', 'GCP_GAR', 'GHCR', 'INLINE_SCANNER', 'PROXY_SCANNER'] as const;
export type RegistryType = (typeof REGISTRY_TYPES)[number];
export const AWS_AUTH_TYPES = ['AWS_IAM', 'AWS_ACCESS_KEY'] as const;

/** Seed 001's eight event categories. */
export const EVENT_CATEGORIES = ['App', 'Compliance', 'Cloud', 'File', 'K8sActivity', 'Machine', 'Platform', 'User'] as const;

export const ALERT_RULE_TYPE = 'Event';
