// Per-type facts of alert channel `data` (api-facts.md): secret members and required members.

import type { ChannelType } from '../spellings.js';
import type { SecretField } from '../secret-fields.js';

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
  // A generic webhook's URL is an address, not a credential: an ordinary value (issue 9).
  Webhook: [],
};

/**
 * Required members of alert channel `data`, per type (dotted paths): no more than the public clients
 * require (Splunk `channel`, QRadar `qradarHostPort` and a GCP `privateKeyId` are optional there).
 */
export const CHANNEL_REQUIRED: Record<ChannelType, string[]> = {
  AwsS3: ['s3CrossAccountCredentials.roleArn', 's3CrossAccountCredentials.externalId', 's3CrossAccountCredentials.bucketArn'],
  CiscoSparkWebhook: ['webhook'],
  CloudwatchEb: ['eventBusArn'],
  Datadog: ['apiKey'],
  EmailUser: ['channelProps.recipients'],
  GcpPubsub: ['credentials.clientEmail', 'credentials.clientId', 'credentials.privateKey', 'projectId', 'topicId'],
  IbmQradar: ['qradarHostUrl', 'qradarCommType'],
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
