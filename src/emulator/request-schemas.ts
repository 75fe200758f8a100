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
} from '../kinds/spellings.js';
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
      if (last) props[part] = members[path] ?? TEXT;
      else props[part] ??= { type: 'object', required: [], properties: {}, additionalProperties: true };
      if (isRequired && !(node.required ??= []).includes(part)) node.required.push(part);
      node = props[part];
    });
  }
  return root;
}

const CHANNEL_MEMBERS: Partial<Record<ChannelType, Record<string, Schema>>> = {
  SlackChannel: { slackUrl: HTTPS_URL },
  Webhook: { webhookUrl: HTTP_URL },
  MicrosoftTeams: { teamsUrl: HTTPS_URL },
  CiscoSparkWebhook: { webhook: HTTP_URL },
  VictorOps: { intgUrl: HTTP_URL },
  EmailUser: {
    'channelProps.recipients': { type: 'array', minItems: 1, items: { type: 'string', format: 'email' } },
    'notificationTypes.properties': { type: 'object', additionalProperties: true },
  },
  CloudwatchEb: { issueGrouping: ISSUE_GROUPING },
  Datadog: {
    datadogSite: { type: 'string', enum: ['com', 'eu'] },
    datadogType: { type: 'string', enum: ['Logs Detail', 'Events Summary', 'Logs Summary'] },
  },
  GcpPubsub: { issueGrouping: ISSUE_GROUPING },
  IbmQradar: { qradarHostPort: PORT, qradarCommType: { type: 'string', enum: ['HTTPS', 'HTTPS Self Signed Cert'] } },
  Jira: {
    jiraType: { type: 'string', enum: ['JIRA_CLOUD', 'JIRA_SERVER'] },
    apiToken: TEXT,
    password: TEXT,
    issueGrouping: ISSUE_GROUPING,
    customTemplateFile: { type: 'string' },
  },
  NewRelicInsights: { accountId: { type: 'integer', minimum: 1 } },
  ServiceNowRest: { issueGrouping: ISSUE_GROUPING, customTemplateFile: { type: 'string' } },
  SplunkHec: { port: PORT, ssl: { type: 'boolean' } },
};

const CLOUD_ACCOUNT_MEMBERS: Partial<Record<CloudAccountType, Record<string, Schema>>> = {
  AwsCfg: { awsAccountId: { type: 'string' } },
  AwsCtSqs: { queueUrl: HTTPS_URL },
  AwsUsGovCtSqs: { queueUrl: HTTPS_URL },
};

const REGISTRY_COMMON: Record<string, Schema> = {
  registryType: { type: 'string', enum: REGISTRY_TYPES },
  registryDomain: { type: 'string', minLength: 1 },
  limitNumImg: { type: 'integer', minimum: 1, maximum: 100 },
  limitByRep: STRINGS,
  limitByTag: STRINGS,
  limitByLabel: { type: 'array', items: { type: 'object', additionalProperties: true } },
  nonOsPackageEval: { type: 'boolean' },
  identifierTag: { type: 'array', items: { type: 'object', additionalProperties: true } },
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
