// The JSON Schemas of AlertChannel documents: the document and one `data` schema per channel type.

import { CHANNEL_TYPES, DATADOG_SITES, DATADOG_TYPES, ISSUE_GROUPINGS, JIRA_TYPES, QRADAR_COMM_TYPES, type ChannelType } from '../spellings.js';
import { gcpCredentials } from '../credential-schemas.js';
import {
  bool,
  closedSet,
  commonRef,
  dataSchema,
  dispatch,
  envelope,
  formatted,
  int,
  kebab,
  markSecrets,
  nullableOptional,
  NULL_NOTE,
  openType,
  obj,
  requireDotted,
  str,
  type SchemaObject,
} from '../schema-parts.js';
import { CHANNEL_REQUIRED, CHANNEL_SECRETS } from './tables.js';

export const SCHEMA_FILE = 'alert-channel.schema.json';

export function channelDataFile(type: string): string {
  return `data/alert-channel/${kebab(type)}.schema.json`;
}

const ISSUE_GROUPING = closedSet('How alerts are grouped into issues or messages.', { label: 'issue grouping', values: ISSUE_GROUPINGS }, { example: 'Events' });

const CHANNEL_DATA: Record<ChannelType, { title: string; properties: Record<string, SchemaObject> }> = {
  AwsS3: {
    title: 'Amazon S3 bucket',
    properties: {
      s3CrossAccountCredentials: obj('Role the service assumes to write into the bucket.', {
        roleArn: formatted('ARN of the role.', 'arn', { example: 'arn:aws:iam::123456789012:role/posture-s3' }),
        externalId: str('External id the role trust policy requires.', { example: 'posture-7f3c2a' }),
        bucketArn: formatted('ARN of the bucket.', 'arn', { example: 'arn:aws:s3:::posture-alerts' }),
      }),
    },
  },
  CiscoSparkWebhook: {
    title: 'Cisco Webex webhook',
    properties: { webhook: formatted('Incoming webhook URL.', 'https-url', { example: '${env:WEBEX_WEBHOOK_URL}' }) },
  },
  CloudwatchEb: {
    title: 'Amazon EventBridge event bus',
    properties: {
      eventBusArn: formatted('ARN of the event bus.', 'arn', { example: 'arn:aws:events:us-east-1:123456789012:event-bus/default' }),
      issueGrouping: ISSUE_GROUPING,
    },
  },
  Datadog: {
    title: 'Datadog',
    properties: {
      apiKey: str('Datadog API key.', { example: '${env:DATADOG_API_KEY}' }),
      datadogSite: closedSet('Datadog site.', { label: 'Datadog site', values: DATADOG_SITES }, { example: 'com' }),
      datadogType: closedSet('What is sent to Datadog.', { label: 'Datadog type', values: DATADOG_TYPES }, { example: 'Events Summary' }),
    },
  },
  EmailUser: {
    title: 'E-mail',
    properties: {
      channelProps: obj('Where mail goes.', {
        // The service also holds them as one comma-separated string (api-facts.md): both are read as the list.
        recipients: {
          type: ['array', 'string'],
          minLength: 1,
          items: formatted('An e-mail address.', 'email'),
          description: 'E-mail addresses of the recipients: a list, or one comma-separated string.',
          examples: [['secops@example.com']],
        },
      }),
      notificationTypes: obj('Which notifications are mailed.', {
        properties: { type: 'object', description: 'Notification switches, as the service defines them.' },
      }),
    },
  },
  GcpPubsub: {
    title: 'Google Cloud Pub/Sub topic',
    properties: {
      credentials: gcpCredentials('the publisher'),
      projectId: str('Project of the topic.', { example: 'security-alerts' }),
      topicId: str('Topic id.', { example: 'posture-alerts' }),
      issueGrouping: ISSUE_GROUPING,
    },
  },
  IbmQradar: {
    title: 'IBM QRadar',
    properties: {
      qradarHostUrl: formatted('QRadar host URL.', 'https-url', { example: 'https://qradar.example.com' }),
      qradarHostPort: int('Port of the QRadar listener.', { minimum: 1, maximum: 65535, example: 443 }),
      qradarCommType: closedSet('Transport.', { label: 'QRadar communication type', values: QRADAR_COMM_TYPES }, { example: 'HTTPS' }),
    },
  },
  Jira: {
    title: 'Jira',
    properties: {
      jiraType: closedSet('Jira Cloud (API token) or Jira Server (password).', { label: 'Jira type', values: JIRA_TYPES }, { example: 'JIRA_CLOUD' }),
      jiraUrl: formatted('Jira base URL.', 'https-url', { example: 'https://example.atlassian.net' }),
      projectId: str('Project key.', { example: 'SEC' }),
      issueType: str('Issue type of created issues.', { example: 'Bug' }),
      username: str('Jira user.', { example: 'posture-bot@example.com' }),
      apiToken: str('API token (Jira Cloud).', { example: '${env:JIRA_API_TOKEN}' }),
      password: str('Password (Jira Server).', { example: '${env:JIRA_PASSWORD}' }),
      issueGrouping: ISSUE_GROUPING,
      customTemplateFile: str('Custom issue template (a data: URL of a JSON file).', { example: 'data:application/json;name=i.json;base64,e30=' }),
      // A string in the service and its public clients; an object is still read.
      bidirectionalConfig: { type: ['string', 'object'], description: 'Two-way sync settings, as the service holds them (a string).', examples: ['{}'] },
    },
  },
  MicrosoftTeams: {
    title: 'Microsoft Teams',
    properties: { teamsUrl: formatted('Incoming webhook URL of the Teams channel.', 'https-url', { example: '${env:TEAMS_WEBHOOK_URL}' }) },
  },
  NewRelicInsights: {
    title: 'New Relic Insights',
    properties: {
      accountId: int('New Relic account id.', { minimum: 1, example: 1234567 }),
      insertKey: str('Insights insert key.', { example: '${env:NEW_RELIC_INSERT_KEY}' }),
    },
  },
  PagerDutyApi: {
    title: 'PagerDuty',
    properties: { apiIntgKey: str('Integration key of the PagerDuty service.', { example: '${env:PAGERDUTY_INTEGRATION_KEY}' }) },
  },
  ServiceNowRest: {
    title: 'ServiceNow',
    properties: {
      instanceUrl: formatted('ServiceNow instance URL.', 'https-url', { example: 'https://example.service-now.com' }),
      userName: str('ServiceNow user.', { example: 'posture-bot' }),
      password: str('Password of the user.', { example: '${env:SERVICENOW_PASSWORD}' }),
      issueGrouping: ISSUE_GROUPING,
      customTemplateFile: str('Custom incident template (a data: URL of a JSON file).', { example: 'data:application/json;name=i.json;base64,e30=' }),
    },
  },
  SlackChannel: {
    title: 'Slack',
    properties: { slackUrl: formatted('Incoming webhook URL of the Slack channel: an https:// URL (the service refuses any other).', 'https-url-required', { example: '${env:SLACK_URL}' }) },
  },
  SplunkHec: {
    title: 'Splunk HTTP Event Collector',
    properties: {
      host: str('HEC host name.', { example: 'splunk.example.com' }),
      port: int('HEC port.', { minimum: 1, maximum: 65535, example: 8088 }),
      ssl: bool('Use TLS.', { example: true }),
      channel: str('HEC channel id.', { example: '0c4b3b1e-6b1f-4a49-9d1e-3f6c2b8a9f01' }),
      hecToken: str('HEC token.', { example: '${env:SPLUNK_HEC_TOKEN}' }),
      eventData: obj('Where events land.', {
        index: str('Splunk index.', { example: 'security' }),
        source: str('Event source.', { example: 'postureops' }),
      }),
    },
  },
  VictorOps: {
    title: 'Splunk On-Call (VictorOps)',
    properties: { intgUrl: formatted('REST endpoint URL with its routing key.', 'https-url', { example: '${env:VICTOROPS_URL}' }) },
  },
  Webhook: {
    title: 'Webhook',
    properties: { webhookUrl: formatted('URL that receives alerts as JSON POST requests.', 'http-url', { example: '${env:WEBHOOK_URL}' }) },
  },
};

function documentSchema(): SchemaObject {
  const spec = obj(
    'What the channel is and where it sends alerts.',
    {
      type: openType('Channel type; decides the members of `data`.', 'AlertChannel', CHANNEL_TYPES),
      enabled: commonRef('enabled'),
      data: { type: 'object', description: 'Type-specific settings (see the schema of the chosen type). Secrets as ${env:NAME}.' },
    },
    ['type', 'data'],
  );
  spec.allOf = dispatch(CHANNEL_TYPES, channelDataFile, 'type');
  return envelope('AlertChannel', SCHEMA_FILE, 'An alert channel: a destination for alerts (Slack, PagerDuty, a webhook, ...).', spec, {
    name: 'ops-slack',
    account: '*',
    spec: { type: 'SlackChannel', data: { slackUrl: '${env:SLACK_URL}' } },
  });
}

/** The document schema and every per-type data schema, by file name under schemas/. */
export function schemas(): Record<string, SchemaObject> {
  const out: Record<string, SchemaObject> = { [SCHEMA_FILE]: documentSchema() };
  for (const type of CHANNEL_TYPES) {
    const def = CHANNEL_DATA[type];
    const body = requireDotted(obj('', structuredClone(def.properties)), CHANNEL_REQUIRED[type]);
    markSecrets(body, CHANNEL_SECRETS[type]);
    if (type === 'Jira') {
      body.allOf = [
        { if: { properties: { jiraType: { const: 'JIRA_CLOUD' } }, required: ['jiraType'] }, then: { required: ['apiToken'] } },
        { if: { properties: { jiraType: { const: 'JIRA_SERVER' } }, required: ['jiraType'] }, then: { required: ['password'] } },
      ];
    }
    delete body.description;
    const file = channelDataFile(type);
    nullableOptional(body);
    out[file] = dataSchema(file, `${type} data`, `\`data\` of an AlertChannel of type ${type}${def.title === type ? '' : ` (${def.title})`}. Optional members may be null: ${NULL_NOTE}`, body);
  }
  return out;
}
