// The emulator's request schemas: used to validate bodies and served by GET /api/v2/schemas/{type}/{subtype}.
// Per-type required members come from service-facts.ts; the member constraints below follow api-facts.md.

import {
  ALERT_RULE_TYPE,
  AWS_AUTH_TYPES,
  EVENT_CATEGORIES,
  REGISTRY_INTEGRATION_TYPE,
  REGISTRY_TYPES,
  type ChannelType,
  type CloudAccountType,
  type RegistryType,
} from './spellings.js';
import { AWS_CROSS, AWS_KEYS, CHANNEL_REQUIRED, CLOUD_ACCOUNT_REQUIRED, REGISTRY_REQUIRED } from './service-facts.js';
import type { Schema } from './validation.js';

export const NAME: Schema = { type: 'string', minLength: 1, pattern: '(?!^ +$)^.+$' };
export const ENABLED: Schema = { type: 'integer', minimum: 0, maximum: 1, description: '0 or 1' };
const TEXT: Schema = { type: 'string', minLength: 1 };
const ID: Schema = { type: 'string', minLength: 1, pattern: '^[^\\s/]+$' };
const ISSUE_GROUPING: Schema = { type: 'string', enum: ['Events', 'Resources'] };
const PORT: Schema = { type: 'integer', minimum: 1, maximum: 65535 };
const HTTPS_URL: Schema = { type: 'string', pattern: '^https://\\S+$' };
const HTTP_URL: Schema = { type: 'string', pattern: '^https?://\\S+$' };
const STRINGS: Schema = { type: 'array', items: { type: 'string' } };
const STR: Schema = { type: 'string' };
const BOOL: Schema = { type: 'boolean' };
const OBJECT: Schema = { type: 'object', additionalProperties: true };
/** A member whose type the documents do not give: any JSON value. */
const ANY: Schema = {};
const PROJECT_OR_ORG: Schema = { type: 'string', enum: ['PROJECT', 'ORGANIZATION'] };

/**
 * An object schema from dotted member paths: every required path (and the objects on the way to it)
 * is required; `members` gives the schema of a leaf (default: a non-empty string).
 */
export function objectFromPaths(required: readonly string[], members: Record<string, Schema> = {}): Schema {
  const root: Schema = { type: 'object', required: [], properties: {}, additionalProperties: true };
  const paths = [...new Set([...required, ...Object.keys(members)])];
  for (const path of paths) {
    const parts = path.split('.');
    const isRequired = required.includes(path);
    let node = root;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      const props = (node.properties ??= {});
      // An optional member may be null: the live service holds such records (api-facts.md).
      if (last) props[part] = isRequired ? (members[path] ?? TEXT) : { ...(members[path] ?? TEXT), nullable: true };
      else props[part] ??= { type: 'object', required: [], properties: {}, additionalProperties: true };
      if (isRequired && !(node.required ??= []).includes(part)) node.required.push(part);
      node = props[part];
    });
  }
  return root;
}

const GCP_CREDENTIALS = ['credentials.clientEmail', 'credentials.clientId', 'credentials.privateKey', 'credentials.privateKeyId'];
const texts = (...paths: string[]): Record<string, Schema> => Object.fromEntries(paths.map((p) => [p, TEXT]));

/**
 * Every `data` member api-facts.md names, per channel type (the required ones are in
 * service-facts.ts); a member not listed here is still accepted and stored (the service is wider).
 */
export const CHANNEL_MEMBERS: Record<ChannelType, Record<string, Schema>> = {
  AwsS3: texts('s3CrossAccountCredentials.roleArn', 's3CrossAccountCredentials.externalId', 's3CrossAccountCredentials.bucketArn'),
  CiscoSparkWebhook: { webhook: HTTP_URL },
  CloudwatchEb: { eventBusArn: TEXT, issueGrouping: ISSUE_GROUPING },
  Datadog: {
    apiKey: TEXT,
    datadogSite: { type: 'string', enum: ['com', 'eu'] },
    datadogType: { type: 'string', enum: ['Logs Detail', 'Events Summary', 'Logs Summary'] },
  },
  EmailUser: {
    // A list, or (older records) one comma-separated string (api-facts.md).
    'channelProps.recipients': {
      oneOf: [
        { type: 'array', minItems: 1, items: { type: 'string', format: 'email' } },
        { type: 'string', pattern: '^\\s*[^\\s@,]+@[^\\s@,]+(\\s*,\\s*[^\\s@,]+@[^\\s@,]+)*\\s*$' },
      ],
    },
    'notificationTypes.properties': OBJECT,
  },
  GcpPubsub: { ...texts(...GCP_CREDENTIALS, 'projectId', 'topicId'), issueGrouping: ISSUE_GROUPING },
  IbmQradar: { qradarHostUrl: TEXT, qradarHostPort: PORT, qradarCommType: { type: 'string', enum: ['HTTPS', 'HTTPS Self Signed Cert'] } },
  Jira: {
    ...texts('jiraUrl', 'projectId', 'issueType', 'username', 'apiToken', 'password'),
    jiraType: { type: 'string', enum: ['JIRA_CLOUD', 'JIRA_SERVER'] },
    issueGrouping: ISSUE_GROUPING,
    customTemplateFile: STR,
    bidirectionalConfig: STR,
  },
  MicrosoftTeams: { teamsUrl: HTTPS_URL },
  NewRelicInsights: { accountId: { type: 'integer', minimum: 1 }, insertKey: TEXT },
  PagerDutyApi: { apiIntgKey: TEXT },
  ServiceNowRest: { ...texts('instanceUrl', 'userName', 'password'), issueGrouping: ISSUE_GROUPING, customTemplateFile: STR },
  SlackChannel: { slackUrl: HTTPS_URL },
  SplunkHec: { ...texts('host', 'channel', 'hecToken', 'eventData.index', 'eventData.source'), port: PORT, ssl: BOOL },
  VictorOps: { intgUrl: HTTP_URL },
  Webhook: { webhookUrl: HTTP_URL },
};

const AWS_ROLE = texts('crossAccountCredentials.roleArn', 'crossAccountCredentials.externalId');
const AZURE_CREDENTIALS = texts('credentials.clientId', 'credentials.clientSecret');
const GCP_ID = { ...texts(...GCP_CREDENTIALS, 'id'), idType: PROJECT_OR_ORG };
const GCP_AUDIT = { ...texts(...GCP_CREDENTIALS, 'organizationId', 'projectId', 'subscriptionName'), integrationType: PROJECT_OR_ORG };
/** The agentless scanners' common members (api-facts.md: "the scan flags and scanFrequency"). */
const SCAN = {
  scanFrequency: { type: 'integer', minimum: 1 } as Schema,
  scanContainers: BOOL,
  scanHostVulnerabilities: BOOL,
  scanMultiVolume: BOOL,
  scanStoppedInstances: BOOL,
  queryText: STR,
};
const AWS_SIDEKICK = { ...SCAN, ...AWS_ROLE, awsAccountId: TEXT, bucketArn: TEXT };

/** Every `data` member api-facts.md names, per cloud account type (the required ones are in service-facts.ts). */
export const CLOUD_ACCOUNT_MEMBERS: Record<CloudAccountType, Record<string, Schema>> = {
  AwsCfg: { ...AWS_ROLE, awsAccountId: STR },
  AwsCtSqs: { ...AWS_ROLE, awsAccountId: STR, queueUrl: HTTPS_URL, accountMappingFile: STR },
  // snsArn, queueUrl: not in api-facts.md's tables; the public client sends them (optional here).
  AwsEksAudit: { ...AWS_ROLE, snsArn: TEXT },
  AwsUsGovCfg: texts('accessKeyCredentials.accountId', 'accessKeyCredentials.accessKeyId', 'accessKeyCredentials.secretAccessKey'),
  AwsUsGovCtSqs: { ...texts('accessKeyCredentials.accountId', 'accessKeyCredentials.accessKeyId', 'accessKeyCredentials.secretAccessKey'), queueUrl: HTTPS_URL },
  AzureAlSeq: { ...AZURE_CREDENTIALS, tenantId: TEXT, queueUrl: TEXT },
  AzureCfg: { ...AZURE_CREDENTIALS, tenantId: TEXT },
  GcpAtSes: { ...GCP_ID, subscriptionName: TEXT },
  GcpCfg: GCP_ID,
  AwsSidekick: AWS_SIDEKICK,
  AwsSidekickOrg: { ...AWS_SIDEKICK, ...texts('scanningAccount', 'managementAccount'), monitoredAccounts: STR, accountMappingFile: STR },
  AzureSidekick: {
    ...SCAN,
    ...AZURE_CREDENTIALS,
    ...texts('scanningSubscriptionId', 'tenantId', 'blobContainerName', 'scanningResourceGroupName', 'storageAccountUrl'),
    integrationLevel: { type: 'string', enum: ['TENANT', 'SUBSCRIPTION'] },
    subscriptionsList: ANY,
  },
  GcpSidekick: { ...SCAN, ...GCP_ID, ...texts('scanningProjectId', 'sharedBucketName', 'credentials.tokenUri'), filterList: ANY, accountMappingFile: STR },
  AzureAdAl: { ...AZURE_CREDENTIALS, ...texts('tenantId', 'eventHubNamespace', 'eventHubName') },
  GcpGkeAudit: GCP_AUDIT,
  GcpAlPubSub: { ...GCP_AUDIT, topicId: TEXT },
  OciCfg: texts('credentials.fingerprint', 'credentials.privateKey', 'homeRegion', 'tenantId', 'tenantName', 'userOcid'),
  AwsDspm: { ...AWS_ROLE, ...texts('awsAccountId', 'bucketArn', 'integrationLevel', 'managementAccount'), regions: STRINGS, props: OBJECT },
  AzureDspm: {
    ...AZURE_CREDENTIALS,
    ...texts('tenantId', 'integrationLevel', 'storageAccountUrl', 'blobContainerName'),
    regions: STRINGS,
    props: OBJECT,
  },
};

/** The dotted `data` member paths of a schema built by objectFromPaths (for the api-facts table test). */
export function memberPaths(data: Schema, prefix = ''): string[] {
  return Object.entries(data.properties ?? {}).flatMap(([k, v]) =>
    v.type === 'object' && v.properties !== undefined && Object.keys(v.properties).length > 0 ? memberPaths(v, `${prefix}${k}.`) : [`${prefix}${k}`],
  );
}

const REGISTRY_COMMON: Record<string, Schema> = {
  registryType: { type: 'string', enum: REGISTRY_TYPES },
  registryDomain: { type: 'string', minLength: 1 },
  limitNumImg: { type: 'integer', minimum: 1, maximum: 100 },
  limitByRep: STRINGS,
  limitByTag: STRINGS,
  limitByLabel: { type: 'array', items: { type: 'object', additionalProperties: true } },
  nonOsPackageEval: { type: 'boolean' },
  identifierTag: { type: 'array', items: { type: 'object', additionalProperties: true } },
  // INLINE_SCANNER: a number, or (as older records hold it) a string of digits (api-facts.md).
  limitNumScan: { oneOf: [{ type: 'integer', minimum: 1 }, { type: 'string', pattern: '^[0-9]+$' }] },
};

function integration(typeSchema: Schema, data: Schema): Schema {
  return {
    type: 'object',
    required: ['name', 'type', 'enabled', 'data'],
    properties: { name: NAME, type: typeSchema, enabled: ENABLED, data },
    additionalProperties: true,
  };
}

export function channelSchema(type: ChannelType): Schema {
  return integration({ type: 'string', enum: [type] }, objectFromPaths(CHANNEL_REQUIRED[type], CHANNEL_MEMBERS[type]));
}

export function cloudAccountSchema(type: CloudAccountType): Schema {
  return integration({ type: 'string', enum: [type] }, objectFromPaths(CLOUD_ACCOUNT_REQUIRED[type], CLOUD_ACCOUNT_MEMBERS[type]));
}

export function registrySchema(registryType: RegistryType): Schema {
  const members: Record<string, Schema> = { ...REGISTRY_COMMON };
  if (registryType === 'AWS_ECR') {
    members.awsAuthType = { type: 'string', enum: AWS_AUTH_TYPES };
    for (const p of [...AWS_CROSS, ...AWS_KEYS]) members[p] = TEXT;
  }
  const data = objectFromPaths(REGISTRY_REQUIRED[registryType], members);
  (data.properties as Record<string, Schema>).registryType = { type: 'string', enum: [registryType] };
  return integration({ type: 'string', enum: [REGISTRY_INTEGRATION_TYPE] }, data);
}

/** The type-independent part, checked first so that a wrong `type` is reported on its own. */
export function integrationBaseSchema(types: readonly string[]): Schema {
  return integration({ type: 'string', enum: types }, { type: 'object', additionalProperties: true });
}

export const REGISTRY_BASE: Schema = integration(
  { type: 'string', enum: [REGISTRY_INTEGRATION_TYPE] },
  objectFromPaths(['registryType'], { registryType: REGISTRY_COMMON.registryType }),
);

function ruleFilters(required: string[]): Schema {
  return {
    type: 'object',
    required,
    properties: {
      name: NAME,
      description: { type: 'string' },
      enabled: ENABLED,
      resourceGroups: STRINGS,
      eventCategory: { type: 'array', uniqueItems: true, items: { type: 'string', enum: EVENT_CATEGORIES } },
      severity: { type: 'array', uniqueItems: true, items: { type: 'integer', minimum: 1, maximum: 5 } },
      // The newer filters (api-facts.md): free-form lists, as the service's own values grow.
      category: { type: 'array', uniqueItems: true, items: TEXT },
      subCategory: { type: 'array', uniqueItems: true, items: TEXT },
      source: { type: 'array', uniqueItems: true, items: TEXT },
      sources: { type: 'array', uniqueItems: true, items: TEXT },
    },
    additionalProperties: true,
  };
}

const INTG_GUID_LIST: Schema = { type: 'array', minItems: 1, uniqueItems: true, items: TEXT };

export const RULE_CREATE: Schema = {
  type: 'object',
  required: ['type', 'intgGuidList', 'filters'],
  properties: { type: { type: 'string', enum: [ALERT_RULE_TYPE] }, intgGuidList: INTG_GUID_LIST, filters: ruleFilters(['name']) },
  additionalProperties: true,
};

export const RULE_PATCH: Schema = {
  type: 'object',
  properties: { type: { type: 'string', enum: [ALERT_RULE_TYPE] }, intgGuidList: INTG_GUID_LIST, filters: ruleFilters([]) },
  additionalProperties: true,
};

export const TEMPLATE: Schema = {
  type: 'object',
  required: ['name', 'eventName', 'description', 'subject'],
  properties: { name: NAME, eventName: TEXT, description: { type: 'string' }, subject: { type: 'string' } },
  additionalProperties: true,
};

export const TEMPLATE_PATCH: Schema = {
  type: 'object',
  properties: { eventName: TEXT, description: { type: 'string' }, subject: { type: 'string' } },
  additionalProperties: true,
};

export const PROFILE_CREATE: Schema = {
  type: 'object',
  required: ['alertProfileId', 'extends', 'alerts'],
  properties: { alertProfileId: ID, extends: ID, alerts: { type: 'array', items: TEMPLATE } },
  additionalProperties: true,
};

export const PROFILE_PATCH: Schema = {
  type: 'object',
  required: ['alerts'],
  properties: { alerts: { type: 'array', items: TEMPLATE } },
  additionalProperties: true,
};

/** Seed 001: the create body is `tokenEnabled` and `tokenAlias`, both non-empty strings, both required. */
export const AGENT_TOKEN_CREATE: Schema = {
  type: 'object',
  required: ['tokenEnabled', 'tokenAlias'],
  properties: { tokenEnabled: TEXT, tokenAlias: TEXT },
  additionalProperties: true,
};

/** Seed 001: the update body is `tokenEnabled` alone, a non-empty string, optional. */
export const AGENT_TOKEN_PATCH: Schema = {
  type: 'object',
  properties: { tokenEnabled: TEXT },
  additionalProperties: true,
};

export const TOKEN_EXCHANGE: Schema = {
  type: 'object',
  required: ['keyId'],
  properties: { keyId: TEXT, expiryTime: { type: 'integer', minimum: 1, maximum: 86400 } },
  additionalProperties: true,
};

export const SEARCH_EXPRESSIONS = [
  'eq',
  'ne',
  'in',
  'not_in',
  'like',
  'not_like',
  'ilike',
  'not_ilike',
  'rlike',
  'not_rlike',
  'gt',
  'lt',
  'ge',
  'le',
  'between',
  'expr',
] as const;
export type SearchExpression = (typeof SEARCH_EXPRESSIONS)[number];

export const SEARCH: Schema = {
  type: 'object',
  properties: {
    timeFilter: { type: 'object', properties: { startTime: { type: 'string' }, endTime: { type: 'string' } } },
    filters: {
      type: 'array',
      items: {
        type: 'object',
        required: ['field', 'expression'],
        properties: {
          field: TEXT,
          expression: { type: 'string', enum: SEARCH_EXPRESSIONS },
          value: { type: 'string' },
          values: { type: 'array', items: { type: 'string' } },
        },
      },
    },
    returns: { type: 'array', items: TEXT },
  },
  additionalProperties: true,
};
