// Per-type `data` schemas of alert channels, cloud accounts and container registries (api-facts.md).
// Required and secret members come from src/kinds/data.ts so the schemas, the kinds and the
// emulator agree on them.

import {
  AWS_AUTH_TYPES,
  CHANNEL_REQUIRED,
  CHANNEL_SECRETS,
  CHANNEL_TYPES,
  CLOUD_ACCOUNT_SECRETS,
  CLOUD_ACCOUNT_TYPES,
  REGISTRY_DATA_DEFAULTS,
  REGISTRY_TYPES,
  registrySecrets,
  type ChannelType,
  type CloudAccountType,
  type RegistryType,
  type SecretField,
} from '../kinds/data.js';
import {
  ARN,
  AWS_ACCOUNT_ID,
  DRAFT,
  EMAIL,
  HTTPS_URL,
  HTTP_URL,
  SCHEMA_BASE,
  SECRET_NOTE,
  WRITE_ONLY_NOTE,
  bool,
  int,
  kebab,
  obj,
  requireDotted,
  str,
  strList,
  type SchemaObject,
} from './schema-parts.js';

const ISSUE_GROUPING = str('How alerts are grouped into issues or messages.', { enum: ['Events', 'Resources'], example: 'Events' });

const gcpCredentials = (what: string): SchemaObject =>
  obj(`Service account key of ${what} (from its JSON key file).`, {
    clientEmail: str('Service account e-mail.', { example: 'postureops@my-project.iam.gserviceaccount.com' }),
    clientId: str('Service account client id.', { example: '123456789012345678901' }),
    privateKey: str('PEM private key of the service account.', { example: '${env:GCP_PRIVATE_KEY}' }),
    privateKeyId: str('Id of the private key.', { example: '${env:GCP_PRIVATE_KEY_ID}' }),
  });

const crossAccount = (): SchemaObject =>
  obj(
    'IAM role the service assumes in your AWS account.',
    {
      roleArn: str('ARN of the role.', { pattern: ARN, example: 'arn:aws:iam::123456789012:role/posture-audit' }),
      externalId: str('External id the role trust policy requires.', { example: 'posture-7f3c2a' }),
    },
    ['roleArn', 'externalId'],
  );

const accessKey = (): SchemaObject =>
  obj(
    'Access key of an IAM user.',
    {
      accessKeyId: str('Access key id.', { example: 'AKIAIOSFODNN7EXAMPLE' }),
      secretAccessKey: str('Secret access key.', { example: '${env:AWS_SECRET_ACCESS_KEY}' }),
    },
    ['accessKeyId', 'secretAccessKey'],
  );

const azureCredentials = (): SchemaObject =>
  obj(
    'Azure AD application the service signs in with.',
    {
      clientId: str('Application (client) id.', { example: '11111111-2222-3333-4444-555555555555' }),
      clientSecret: str('Client secret of the application.', { example: '${env:AZURE_CLIENT_SECRET}' }),
    },
    ['clientId', 'clientSecret'],
  );

const CHANNEL_DATA: Record<ChannelType, { title: string; properties: Record<string, SchemaObject> }> = {
  AwsS3: {
    title: 'Amazon S3 bucket',
    properties: {
      s3CrossAccountCredentials: obj('Role the service assumes to write into the bucket.', {
        roleArn: str('ARN of the role.', { pattern: ARN, example: 'arn:aws:iam::123456789012:role/posture-s3' }),
        externalId: str('External id the role trust policy requires.', { example: 'posture-7f3c2a' }),
        bucketArn: str('ARN of the bucket.', { pattern: ARN, example: 'arn:aws:s3:::posture-alerts' }),
      }),
    },
  },
  CiscoSparkWebhook: {
    title: 'Cisco Webex webhook',
    properties: { webhook: str('Incoming webhook URL.', { pattern: HTTPS_URL, example: '${env:WEBEX_WEBHOOK_URL}' }) },
  },
  CloudwatchEb: {
    title: 'Amazon EventBridge event bus',
    properties: {
      eventBusArn: str('ARN of the event bus.', { pattern: ARN, example: 'arn:aws:events:us-east-1:123456789012:event-bus/default' }),
      issueGrouping: ISSUE_GROUPING,
    },
  },
  Datadog: {
    title: 'Datadog',
    properties: {
      apiKey: str('Datadog API key.', { example: '${env:DATADOG_API_KEY}' }),
      datadogSite: str('Datadog site.', { enum: ['com', 'eu'], example: 'com' }),
      datadogType: str('What is sent to Datadog.', { enum: ['Logs Detail', 'Events Summary', 'Logs Summary'], example: 'Events Summary' }),
    },
  },
  EmailUser: {
    title: 'E-mail',
    properties: {
      channelProps: obj('Where mail goes.', {
        recipients: strList(
          'E-mail addresses of the recipients.',
          { type: 'string', pattern: EMAIL, description: 'An e-mail address.' },
          { example: ['secops@example.com'] },
        ),
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
      qradarHostUrl: str('QRadar host URL.', { pattern: HTTPS_URL, example: 'https://qradar.example.com' }),
      qradarHostPort: int('Port of the QRadar listener.', { minimum: 1, maximum: 65535, example: 443 }),
      qradarCommType: str('Transport.', { enum: ['HTTPS', 'HTTPS Self Signed Cert'], example: 'HTTPS' }),
    },
  },
  Jira: {
    title: 'Jira',
    properties: {
      jiraType: str('Jira Cloud (API token) or Jira Server (password).', { enum: ['JIRA_CLOUD', 'JIRA_SERVER'], example: 'JIRA_CLOUD' }),
      jiraUrl: str('Jira base URL.', { pattern: HTTPS_URL, example: 'https://example.atlassian.net' }),
      projectId: str('Project key.', { example: 'SEC' }),
      issueType: str('Issue type of created issues.', { example: 'Bug' }),
      username: str('Jira user.', { example: 'posture-bot@example.com' }),
      apiToken: str('API token (Jira Cloud).', { example: '${env:JIRA_API_TOKEN}' }),
      password: str('Password (Jira Server).', { example: '${env:JIRA_PASSWORD}' }),
      issueGrouping: ISSUE_GROUPING,
      customTemplateFile: str('Custom issue template (a data: URL of a JSON file).', { example: 'data:application/json;name=i.json;base64,e30=' }),
    },
  },
  MicrosoftTeams: {
    title: 'Microsoft Teams',
    properties: { teamsUrl: str('Incoming webhook URL of the Teams channel.', { pattern: HTTPS_URL, example: '${env:TEAMS_WEBHOOK_URL}' }) },
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
      instanceUrl: str('ServiceNow instance URL.', { pattern: HTTPS_URL, example: 'https://example.service-now.com' }),
      userName: str('ServiceNow user.', { example: 'posture-bot' }),
      password: str('Password of the user.', { example: '${env:SERVICENOW_PASSWORD}' }),
      issueGrouping: ISSUE_GROUPING,
      customTemplateFile: str('Custom incident template (a data: URL of a JSON file).', { example: 'data:application/json;name=i.json;base64,e30=' }),
    },
  },
  SlackChannel: {
    title: 'Slack',
    properties: { slackUrl: str('Incoming webhook URL of the Slack channel.', { pattern: HTTPS_URL, example: '${env:SLACK_URL}' }) },
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
    properties: { intgUrl: str('REST endpoint URL with its routing key.', { pattern: HTTPS_URL, example: '${env:VICTOROPS_URL}' }) },
  },
  Webhook: {
    title: 'Webhook',
    properties: { webhookUrl: str('URL that receives alerts as JSON POST requests.', { pattern: HTTP_URL, example: '${env:WEBHOOK_URL}' }) },
  },
};

const GCP_PROJECT_OR_ORG = str('Whether `id` names a project or an organization.', { enum: ['PROJECT', 'ORGANIZATION'], example: 'PROJECT' });

const CLOUD_DATA: Record<CloudAccountType, { title: string; properties: Record<string, SchemaObject>; required: string[] }> = {
  AwsCfg: {
    title: 'AWS configuration assessment',
    properties: {
      awsAccountId: str('AWS account id.', { pattern: AWS_ACCOUNT_ID, example: '123456789012' }),
      crossAccountCredentials: crossAccount(),
    },
    required: ['crossAccountCredentials'],
  },
  AwsCtSqs: {
    title: 'AWS CloudTrail through SQS',
    properties: {
      awsAccountId: str('AWS account id.', { pattern: AWS_ACCOUNT_ID, example: '123456789012' }),
      crossAccountCredentials: crossAccount(),
      queueUrl: str('URL of the SQS queue that receives CloudTrail notifications.', {
        pattern: HTTPS_URL,
        example: 'https://sqs.us-east-1.amazonaws.com/123456789012/posture-cloudtrail',
      }),
    },
    required: ['crossAccountCredentials', 'queueUrl'],
  },
  AwsEksAudit: {
    title: 'Amazon EKS audit log',
    properties: {
      crossAccountCredentials: crossAccount(),
      snsArn: str('ARN of the SNS topic the audit logs are published to.', { pattern: ARN, example: 'arn:aws:sns:us-east-1:123456789012:eks-audit' }),
      s3BucketArn: str('ARN of the S3 bucket of the audit logs.', { pattern: ARN, example: 'arn:aws:s3:::eks-audit-logs' }),
    },
    required: ['crossAccountCredentials', 'snsArn'],
  },
  AwsUsGovCfg: {
    title: 'AWS GovCloud configuration assessment',
    properties: {
      awsAccountId: str('AWS GovCloud account id.', { pattern: AWS_ACCOUNT_ID, example: '123456789012' }),
      accessKeyCredentials: accessKey(),
    },
    required: ['awsAccountId', 'accessKeyCredentials'],
  },
  AwsUsGovCtSqs: {
    title: 'AWS GovCloud CloudTrail through SQS',
    properties: {
      awsAccountId: str('AWS GovCloud account id.', { pattern: AWS_ACCOUNT_ID, example: '123456789012' }),
      accessKeyCredentials: accessKey(),
      queueUrl: str('URL of the SQS queue.', { pattern: HTTPS_URL, example: 'https://sqs.us-gov-west-1.amazonaws.com/123456789012/trail' }),
    },
    required: ['awsAccountId', 'accessKeyCredentials', 'queueUrl'],
  },
  AzureAlSeq: {
    title: 'Azure activity log',
    properties: {
      tenantId: str('Azure AD tenant id.', { example: '66666666-7777-8888-9999-000000000000' }),
      credentials: azureCredentials(),
      queueUrl: str('URL of the storage queue that receives activity log notifications.', {
        pattern: HTTPS_URL,
        example: 'https://postureaudit.queue.core.windows.net/activity',
      }),
    },
    required: ['tenantId', 'credentials', 'queueUrl'],
  },
  AzureCfg: {
    title: 'Azure configuration assessment',
    properties: { tenantId: str('Azure AD tenant id.', { example: '66666666-7777-8888-9999-000000000000' }), credentials: azureCredentials() },
    required: ['tenantId', 'credentials'],
  },
  GcpAtSes: {
    title: 'Google Cloud audit log',
    properties: {
      credentials: requireDotted(gcpCredentials('the reader'), ['clientEmail', 'clientId', 'privateKey', 'privateKeyId']),
      integrationType: GCP_PROJECT_OR_ORG,
      projectId: str('Project of the audit log sink.', { example: 'security-audit' }),
      organizationId: str('Organization id (integrationType ORGANIZATION).', { example: '123456789012' }),
      subscriptionName: str('Pub/Sub subscription of the audit log sink.', { example: 'projects/security-audit/subscriptions/posture' }),
    },
    required: ['credentials', 'integrationType', 'projectId', 'subscriptionName'],
  },
  GcpCfg: {
    title: 'Google Cloud configuration assessment',
    properties: {
      credentials: requireDotted(gcpCredentials('the reader'), ['clientEmail', 'clientId', 'privateKey', 'privateKeyId']),
      idType: GCP_PROJECT_OR_ORG,
      id: str('Project id or organization id.', { example: 'security-audit' }),
    },
    required: ['credentials', 'idType', 'id'],
  },
};

const LIMITS: Record<string, SchemaObject> = {
  limitNumImg: int('Number of most recent images per repository that are assessed.', {
    minimum: 1,
    maximum: 100,
    default: REGISTRY_DATA_DEFAULTS.limitNumImg,
    example: 5,
  }),
  limitByRep: strList('Repositories to assess (all when empty).', { type: 'string', minLength: 1 }, { default: [], example: ['payments/api'] }),
  limitByTag: strList('Tags to assess; `*` is a wildcard (all when empty).', { type: 'string', minLength: 1 }, { default: [], example: ['release-*'] }),
  limitByLabel: {
    type: 'array',
    description: 'Labels an image must carry to be assessed, as {label: value} objects (all when empty).',
    items: { type: 'object', additionalProperties: { type: 'string' } },
    default: [],
    examples: [[{ team: 'payments' }]],
  },
  nonOsPackageEval: bool('Also assess non-OS (language library) packages.', { default: REGISTRY_DATA_DEFAULTS.nonOsPackageEval, example: true }),
};

const userPassword = (what: string): SchemaObject =>
  obj(`Credentials of ${what}.`, {
    username: str('User name.', { example: 'posture-scanner' }),
    password: str('Password or access token.', { example: '${env:REGISTRY_PASSWORD}' }),
  }, ['username', 'password']);

const REGISTRY_DATA: Record<RegistryType, { title: string; properties: Record<string, SchemaObject>; required: string[] }> = {
  AWS_ECR: {
    title: 'Amazon ECR',
    properties: {
      registryDomain: str('ECR registry host.', { example: '123456789012.dkr.ecr.us-east-1.amazonaws.com' }),
      awsAuthType: str('AWS_IAM: a role (crossAccountCredentials); AWS_ACCESS_KEY: a key (accessKeyCredentials).', {
        enum: AWS_AUTH_TYPES,
        example: 'AWS_IAM',
      }),
      crossAccountCredentials: crossAccount(),
      accessKeyCredentials: accessKey(),
    },
    required: ['registryDomain', 'awsAuthType'],
  },
  DOCKERHUB: {
    title: 'Docker Hub',
    properties: { credentials: userPassword('the Docker Hub account') },
    required: ['credentials'],
  },
  V2_REGISTRY: {
    title: 'Docker V2 registry',
    properties: {
      registryDomain: str('Registry host (and port).', { example: 'registry.example.com:5000' }),
      credentials: userPassword('the registry'),
      ssl: bool('Connect with TLS.', { example: true }),
    },
    required: ['registryDomain', 'credentials'],
  },
  GCP_GCR: {
    title: 'Google Container Registry',
    properties: {
      registryDomain: str('GCR host.', { enum: ['gcr.io', 'us.gcr.io', 'eu.gcr.io', 'asia.gcr.io'], example: 'gcr.io' }),
      credentials: requireDotted(gcpCredentials('the reader'), ['clientEmail', 'clientId', 'privateKey', 'privateKeyId']),
    },
    required: ['registryDomain', 'credentials'],
  },
  GCP_GAR: {
    title: 'Google Artifact Registry',
    properties: {
      registryDomain: str('Artifact Registry host.', { example: 'us-docker.pkg.dev' }),
      credentials: requireDotted(gcpCredentials('the reader'), ['clientEmail', 'clientId', 'privateKey', 'privateKeyId']),
    },
    required: ['registryDomain', 'credentials'],
  },
  GHCR: {
    title: 'GitHub Container Registry',
    properties: {
      registryDomain: str('Registry host.', { example: 'ghcr.io' }),
      credentials: userPassword('the GitHub account (password: a token with read:packages)'),
      ssl: bool('Connect with TLS.', { example: true }),
    },
    required: ['credentials'],
  },
  INLINE_SCANNER: {
    title: 'Inline scanner',
    properties: {
      identifierTag: {
        type: 'array',
        description: 'Tags that identify this scanner integration, as {key: value} objects.',
        items: { type: 'object', additionalProperties: { type: 'string' } },
        examples: [[{ env: 'ci' }]],
      },
      limitNumScan: int('Maximum number of scans per hour.', { minimum: 1, example: 60 }),
    },
    required: [],
  },
  PROXY_SCANNER: {
    title: 'Proxy scanner',
    properties: {
      identifierTag: {
        type: 'array',
        description: 'Tags that identify this scanner integration, as {key: value} objects.',
        items: { type: 'object', additionalProperties: { type: 'string' } },
        examples: [[{ env: 'cluster' }]],
      },
    },
    required: [],
  },
};

/** Marks each secret member: description says to use ${env:...}; write-only ones get writeOnly. */
function markSecrets(schema: SchemaObject, secrets: readonly SecretField[]): SchemaObject {
  for (const s of secrets) {
    let node: SchemaObject | undefined = schema;
    for (const seg of s.path.split('.')) node = (node?.properties as Record<string, SchemaObject> | undefined)?.[seg];
    if (!node) throw new Error(`secret ${s.path} is not in the schema`);
    node.description = `${String(node.description)} ${SECRET_NOTE}${s.writeOnly ? ' ' + WRITE_ONLY_NOTE : ''}`;
    if (s.writeOnly) node.writeOnly = true;
  }
  return schema;
}

function dataSchema(path: string, title: string, description: string, body: SchemaObject): SchemaObject {
  return { $schema: DRAFT, $id: SCHEMA_BASE + path, title, description, ...body };
}

export function channelDataFile(type: string): string {
  return `data/alert-channel/${kebab(type)}.schema.json`;
}
export function cloudAccountDataFile(type: string): string {
  return `data/cloud-account/${kebab(type)}.schema.json`;
}
export function registryDataFile(registryType: string): string {
  return `data/container-registry/${kebab(registryType)}.schema.json`;
}

/** Every per-type data schema by file name relative to schemas/. */
export function dataSchemas(): Record<string, SchemaObject> {
  const out: Record<string, SchemaObject> = {};
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
    out[file] = dataSchema(file, `${type} data`, `\`data\` of an AlertChannel of type ${type}${def.title === type ? '' : ` (${def.title})`}.`, body);
  }
  for (const type of CLOUD_ACCOUNT_TYPES) {
    const def = CLOUD_DATA[type];
    const body = obj('', structuredClone(def.properties), def.required);
    markSecrets(body, CLOUD_ACCOUNT_SECRETS[type]);
    delete body.description;
    const file = cloudAccountDataFile(type);
    out[file] = dataSchema(file, `${type} data`, `\`data\` of a CloudAccount of type ${type} (${def.title}).`, body);
  }
  for (const registryType of REGISTRY_TYPES) {
    const def = REGISTRY_DATA[registryType];
    const properties: Record<string, SchemaObject> = {
      registryType: { const: registryType, description: `Always ${registryType} for this registry type.` },
      ...structuredClone(def.properties),
      ...structuredClone(LIMITS),
    };
    const body = obj('', properties, ['registryType', ...def.required]);
    delete body.description;
    if (registryType === 'AWS_ECR') {
      body.allOf = [
        { if: { properties: { awsAuthType: { const: 'AWS_IAM' } }, required: ['awsAuthType'] }, then: { required: ['crossAccountCredentials'] } },
        { if: { properties: { awsAuthType: { const: 'AWS_ACCESS_KEY' } }, required: ['awsAuthType'] }, then: { required: ['accessKeyCredentials'] } },
      ];
      markSecrets(body, registrySecrets({ registryType, awsAuthType: 'AWS_ACCESS_KEY' }));
    } else {
      markSecrets(body, registrySecrets({ registryType }));
    }
    const file = registryDataFile(registryType);
    out[file] = dataSchema(file, `${registryType} registry data`, `\`data\` of a ContainerRegistry with registryType ${registryType} (${def.title}).`, body);
  }
  return out;
}
