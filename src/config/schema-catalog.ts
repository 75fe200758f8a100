// The JSON Schemas of postureops files, by file name under schemas/. The loader validates with
// these objects; `write-schemas.ts` writes them to schemas/ for editors (a test keeps both equal).

import { CHANNEL_TYPES, CLOUD_ACCOUNT_TYPES, EVENT_CATEGORIES, REGISTRY_INTEGRATION_TYPE, REGISTRY_TYPES, SEVERITIES } from '../kinds/data.js';
import { channelDataFile, cloudAccountDataFile, dataSchemas, registryDataFile } from './data-schemas.js';
import { DRAFT, NOT_BLANK, SCHEMA_BASE, bool, obj, str, type SchemaObject } from './schema-parts.js';

export { SCHEMA_BASE };

/** Document kinds and the schema file each one is validated with. */
export const DOCUMENT_SCHEMAS: Record<string, string> = {
  AlertChannel: 'alert-channel.schema.json',
  AlertRule: 'alert-rule.schema.json',
  AlertProfile: 'alert-profile.schema.json',
  CloudAccount: 'cloud-account.schema.json',
  ContainerRegistry: 'container-registry.schema.json',
};
export const DOCUMENT_KINDS = Object.keys(DOCUMENT_SCHEMAS);

export const ROOT_SCHEMA = 'postureops.schema.json';
export const COMMON_SCHEMA = 'common.schema.json';
export const DOCUMENT_SCHEMA = 'document.schema.json';

/** Kinds `prune` may name: the document kinds plus templates (produced by profiles). */
export const PRUNABLE_KINDS = ['AlertChannel', 'AlertRule', 'AlertProfile', 'AlertTemplate', 'CloudAccount', 'ContainerRegistry'];

export const API_VERSION = 'postureops/v1';

const ref = (file: string, def?: string): SchemaObject => ({ $ref: def ? `${file}#/$defs/${def}` : file });
const commonRef = (def: string, up = ''): SchemaObject => ref(`${up}${COMMON_SCHEMA}`, def);

function common(): SchemaObject {
  return {
    $schema: DRAFT,
    $id: SCHEMA_BASE + COMMON_SCHEMA,
    title: 'postureops shared definitions',
    description: 'Definitions shared by the postureops document schemas.',
    $defs: {
      name: {
        type: 'string',
        minLength: 1,
        pattern: NOT_BLANK,
        description: 'Identity of the resource within (account, kind): the name the service shows. Not empty, not only spaces.',
        examples: ['ops-slack'],
      },
      accountName: {
        type: 'string',
        minLength: 1,
        pattern: NOT_BLANK,
        description: 'An account declared in postureops.yaml (the value of the Account-Name header).',
        examples: ['prod'],
      },
      account: {
        description:
          'Account(s) this document is applied to: one declared account, a list of them, or "*" for every declared account. Default: defaults.account in postureops.yaml.',
        type: ['string', 'array'],
        minLength: 1,
        pattern: NOT_BLANK,
        items: { $ref: '#/$defs/accountName' },
        minItems: 1,
        uniqueItems: true,
        examples: ['prod', ['prod', 'staging'], '*'],
      },
      apiVersion: { const: API_VERSION, description: `Version of the file format; optional, only ${API_VERSION} exists.` },
      enabled: {
        enum: [true, false, 1, 0],
        default: true,
        description: 'Whether the integration is enabled: true/false or 1/0. Default true.',
        examples: [true],
      },
    },
  };
}

function envelope(kind: string, file: string, description: string, spec: SchemaObject, example: SchemaObject): SchemaObject {
  return {
    $schema: DRAFT,
    $id: SCHEMA_BASE + file,
    title: kind,
    description,
    examples: [{ kind, ...example }],
    type: 'object',
    required: ['kind', 'name', 'spec'],
    additionalProperties: false,
    properties: {
      apiVersion: commonRef('apiVersion'),
      kind: { const: kind, description: 'Kind of resource this document declares.' },
      name: commonRef('name'),
      account: commonRef('account'),
      spec,
    },
  };
}

/** `if spec.type == T then data matches T's schema`, one branch per type: only the matching branch reports. */
function dispatch(types: readonly string[], fileOf: (t: string) => string, on: 'type' | 'registryType'): SchemaObject[] {
  return types.map((t) =>
    on === 'type'
      ? { if: { properties: { type: { const: t } }, required: ['type'] }, then: { properties: { data: ref(fileOf(t)) } } }
      : {
          if: { properties: { data: { properties: { registryType: { const: t } }, required: ['registryType'] } }, required: ['data'] },
          then: { properties: { data: ref(fileOf(t)) } },
        },
  );
}

function alertChannel(): SchemaObject {
  const spec = obj(
    'What the channel is and where it sends alerts.',
    {
      type: str('Channel type; decides the members of `data`.', { enum: CHANNEL_TYPES, example: 'SlackChannel' }),
      enabled: commonRef('enabled'),
      data: { type: 'object', description: 'Type-specific settings (see the schema of the chosen type). Secrets as ${env:NAME}.' },
    },
    ['type', 'data'],
  );
  spec.allOf = dispatch(CHANNEL_TYPES, channelDataFile, 'type');
  return envelope('AlertChannel', DOCUMENT_SCHEMAS.AlertChannel, 'An alert channel: a destination for alerts (Slack, PagerDuty, a webhook, ...).', spec, {
    name: 'ops-slack',
    account: '*',
    spec: { type: 'SlackChannel', data: { slackUrl: '${env:SLACK_URL}' } },
  });
}

function cloudAccount(): SchemaObject {
  const spec = obj(
    'Which cloud the service assesses and how it gets in.',
    {
      type: str('Cloud account type; decides the members of `data`.', { enum: CLOUD_ACCOUNT_TYPES, example: 'AwsCfg' }),
      enabled: commonRef('enabled'),
      data: { type: 'object', description: 'Type-specific settings (see the schema of the chosen type). Secrets as ${env:NAME}.' },
    },
    ['type', 'data'],
  );
  spec.allOf = dispatch(CLOUD_ACCOUNT_TYPES, cloudAccountDataFile, 'type');
  return envelope('CloudAccount', DOCUMENT_SCHEMAS.CloudAccount, 'A cloud account integration: configuration assessment or activity logs of one cloud account.', spec, {
    name: 'aws-prod-config',
    spec: {
      type: 'AwsCfg',
      data: { awsAccountId: '123456789012', crossAccountCredentials: { roleArn: 'arn:aws:iam::123456789012:role/posture-audit', externalId: 'posture-7f3c2a' } },
    },
  });
}

function containerRegistry(): SchemaObject {
  const spec = obj(
    'Which registry the service assesses images of.',
    {
      type: { const: REGISTRY_INTEGRATION_TYPE, description: `Optional; always ${REGISTRY_INTEGRATION_TYPE}.` },
      enabled: commonRef('enabled'),
      data: {
        type: 'object',
        required: ['registryType'],
        description: 'Registry settings; `registryType` decides the other members. Secrets as ${env:NAME}.',
        properties: { registryType: str('Kind of registry.', { enum: REGISTRY_TYPES, example: 'AWS_ECR' }) },
      },
    },
    ['data'],
  );
  spec.allOf = dispatch(REGISTRY_TYPES, registryDataFile, 'registryType');
  return envelope('ContainerRegistry', DOCUMENT_SCHEMAS.ContainerRegistry, 'A container registry integration for image vulnerability assessment.', spec, {
    name: 'dockerhub',
    spec: { data: { registryType: 'DOCKERHUB', credentials: { username: 'scanner', password: '${env:DOCKERHUB_TOKEN}' } } },
  });
}

function alertRule(): SchemaObject {
  const severityNames = Object.keys(SEVERITIES);
  const spec = obj(
    'Which alerts are sent to which channels.',
    {
      channels: {
        type: 'array',
        minItems: 1,
        uniqueItems: true,
        items: { type: 'string', minLength: 1, description: 'Name of an AlertChannel of the same account.' },
        description: 'AlertChannel names (of the same account) that receive the selected alerts.',
        examples: [['ops-slack', 'oncall-pagerduty']],
      },
      severity: {
        type: 'array',
        minItems: 1,
        uniqueItems: true,
        items: {
          enum: [...severityNames, 1, 2, 3, 4, 5],
          description: 'critical (1), high (2), medium (3), low (4) or info (5).',
        },
        description: 'Severities the rule selects, by name or number: critical=1, high=2, medium=3, low=4, info=5.',
        examples: [['critical', 'high']],
      },
      eventCategory: {
        type: 'array',
        uniqueItems: true,
        items: { enum: [...EVENT_CATEGORIES] },
        default: [],
        description: 'Event categories the rule selects (all when empty).',
        examples: [['Cloud', 'Compliance']],
      },
      resourceGroups: {
        type: 'array',
        uniqueItems: true,
        items: { type: 'string', minLength: 1 },
        default: [],
        description: 'Resource group ids the rule is limited to (all when empty).',
        examples: [[]],
      },
      description: { type: 'string', default: '', description: 'Free text shown with the rule.', examples: ['Critical cloud findings to on-call'] },
      enabled: commonRef('enabled'),
    },
    ['channels', 'severity'],
  );
  return envelope('AlertRule', DOCUMENT_SCHEMAS.AlertRule, 'An alert rule: routes alerts by category, severity and resource group to alert channels.', spec, {
    name: 'critical-cloud',
    spec: { channels: ['ops-slack'], severity: ['critical', 'high'], eventCategory: ['Cloud', 'Compliance'] },
  });
}

function alertProfile(): SchemaObject {
  const placeholderNote = 'Plain text with {{KEY}} placeholders from the descriptionKeys of the extended profile, e.g. {{_OCCURRENCE}}, {{RESOURCE_ID}}.';
  const template = obj(
    'An alert template: the text of alerts raised by policies that name <profile>.<template>.',
    {
      name: { ...str('Template name, unique in the profile; equal to an inherited one, it overrides that template.'), pattern: NOT_BLANK, examples: ['File_Violation'] },
      eventName: str('Name of the resulting alert, shown in the event summary.', { example: 'Changed file' }),
      subject: { type: 'string', description: `High-level observation. ${placeholderNote}`, examples: ['{{PATH}} changed on {{MID}}'] },
      description: { type: 'string', description: `Summary of the alert. ${placeholderNote}`, examples: ['{{_OCCURRENCE}}'] },
    },
    ['name', 'eventName', 'subject', 'description'],
  );
  const spec = obj(
    'A custom alert profile and its templates.',
    {
      extends: str('Id of the predefined profile (SVC_...) this one inherits fields and descriptionKeys from; not SVC_BASE_PROFILE.', {
        example: 'SVC_AWS_CIS',
      }),
      alerts: { type: 'array', items: template, default: [], description: 'Templates of this profile.' },
    },
    ['extends'],
  );
  return envelope(
    'AlertProfile',
    DOCUMENT_SCHEMAS.AlertProfile,
    'A custom alert profile (name = alertProfileId, not starting with SVC_) extending a predefined profile, with its alert templates.',
    spec,
    {
      name: 'CUSTOM_FILES_PROFILE',
      spec: {
        extends: 'SVC_HE_FILES_DEFAULT_PROFILE',
        alerts: [{ name: 'File_Changed', eventName: 'Watched file changed', subject: '{{PATH}} changed on {{MID}}', description: '{{_OCCURRENCE}}' }],
      },
    },
  );
}

function root(): SchemaObject {
  return {
    $schema: DRAFT,
    $id: SCHEMA_BASE + ROOT_SCHEMA,
    title: 'postureops.yaml',
    description: 'Root of a postureops configuration repository: the accounts it manages, defaults, and pruning.',
    type: 'object',
    required: ['accounts'],
    additionalProperties: false,
    properties: {
      apiVersion: commonRef('apiVersion'),
      accounts: {
        type: 'array',
        minItems: 1,
        description: 'Accounts this repository manages.',
        items: obj(
          'One account.',
          {
            name: { ...commonRef('accountName'), description: 'Account name: the value of the Account-Name header (case-insensitive in the service).' },
            orgAccess: bool('Organization-level data: requests carry Org-Access: true instead of Account-Name.', { default: false }),
          },
          ['name'],
        ),
        examples: [[{ name: 'prod' }, { name: 'staging' }]],
      },
      defaults: obj('Defaults for documents.', {
        account: { ...commonRef('accountName'), description: 'Account of documents that name none; required with more than one account.' },
      }),
      prune: {
        description:
          'Delete live resources that no file declares. true/false for every kind, or per kind: kinds left out are false, except AlertTemplate, which follows AlertProfile.',
        type: ['boolean', 'object'],
        default: false,
        propertyNames: { enum: PRUNABLE_KINDS },
        additionalProperties: { type: 'boolean' },
        examples: [false, { AlertRule: true, AlertChannel: false }],
      },
    },
  };
}

function documentDispatch(): SchemaObject {
  const kinds = DOCUMENT_KINDS;
  return {
    $schema: DRAFT,
    $id: SCHEMA_BASE + DOCUMENT_SCHEMA,
    title: 'postureops document',
    description: 'Any postureops resource document; `kind` selects the schema.',
    type: 'object',
    required: ['kind'],
    properties: { kind: { enum: kinds, description: 'Kind of resource this document declares.' } },
    allOf: kinds.map((k) => ({
      if: { properties: { kind: { const: k } }, required: ['kind'] },
      then: ref(DOCUMENT_SCHEMAS[k]),
    })),
  };
}

/** Every schema by file name relative to schemas/. */
export function schemaCatalog(): Record<string, SchemaObject> {
  return {
    [COMMON_SCHEMA]: common(),
    [ROOT_SCHEMA]: root(),
    [DOCUMENT_SCHEMA]: documentDispatch(),
    [DOCUMENT_SCHEMAS.AlertChannel]: alertChannel(),
    [DOCUMENT_SCHEMAS.AlertRule]: alertRule(),
    [DOCUMENT_SCHEMAS.AlertProfile]: alertProfile(),
    [DOCUMENT_SCHEMAS.CloudAccount]: cloudAccount(),
    [DOCUMENT_SCHEMAS.ContainerRegistry]: containerRegistry(),
    ...dataSchemas(),
  };
}
