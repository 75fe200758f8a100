// The JSON Schemas of ContainerRegistry documents: the document and one `data` schema per registryType.

import { AWS_AUTH_TYPES, GCR_DOMAINS, REGISTRY_INTEGRATION_TYPE, REGISTRY_TYPES, type RegistryType } from '../spellings.js';
import { accessKey, crossAccount, gcpCredentials } from '../credential-schemas.js';
import {
  bool,
  closedSet,
  commonRef,
  dataSchema,
  dispatch,
  envelope,
  int,
  kebab,
  markSecrets,
  nullableOptional,
  NULL_NOTE,
  openType,
  obj,
  str,
  strList,
  type SchemaObject,
} from '../schema-parts.js';
import { REGISTRY_DATA_DEFAULTS, registrySecrets } from './tables.js';

export const SCHEMA_FILE = 'container-registry.schema.json';

export function registryDataFile(registryType: string): string {
  return `data/container-registry/${kebab(registryType)}.schema.json`;
}

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

const userPassword = (what: string, ssl = false): SchemaObject =>
  obj(`Credentials of ${what}.`, {
    username: str('User name.', { example: 'posture-scanner' }),
    password: str('Password or access token.', { example: '${env:REGISTRY_PASSWORD}' }),
    // GHCR and V2 registries keep the TLS switch with the credentials (api-facts.md).
    ...(ssl ? { ssl: bool('Connect with TLS.', { example: true }) } : {}),
  }, ['username', 'password']);

const REGISTRY_NOTIFICATIONS: SchemaObject = { description: 'Registry notification settings, as the service defines them.' };

const REGISTRY_DATA: Record<RegistryType, { title: string; properties: Record<string, SchemaObject>; required: string[] }> = {
  AWS_ECR: {
    title: 'Amazon ECR',
    properties: {
      registryDomain: str('ECR registry host.', { example: '123456789012.dkr.ecr.us-east-1.amazonaws.com' }),
      awsAuthType: closedSet(
        'AWS_IAM: a role (crossAccountCredentials); AWS_ACCESS_KEY: a key (accessKeyCredentials).',
        { label: 'AWS auth type', values: AWS_AUTH_TYPES },
        { example: 'AWS_IAM' },
      ),
      crossAccountCredentials: crossAccount(),
      accessKeyCredentials: accessKey(),
    },
    required: ['registryDomain', 'awsAuthType'],
  },
  DOCKERHUB: {
    title: 'Docker Hub',
    properties: {
      registryDomain: str('Docker Hub host; the service answers with index.docker.io.', { example: 'index.docker.io' }),
      credentials: userPassword('the Docker Hub account'),
    },
    required: ['credentials'],
  },
  V2_REGISTRY: {
    title: 'Docker V2 registry',
    properties: {
      registryDomain: str('Registry host (and port).', { example: 'registry.example.com:5000' }),
      credentials: userPassword('the registry', true),
      registryNotifications: REGISTRY_NOTIFICATIONS,
    },
    required: ['registryDomain', 'credentials'],
  },
  GCP_GCR: {
    title: 'Google Container Registry',
    properties: {
      registryDomain: closedSet('GCR host.', { label: 'GCR host', values: GCR_DOMAINS }, { example: 'gcr.io' }),
      credentials: gcpCredentials('the reader'),
    },
    required: ['registryDomain', 'credentials'],
  },
  GCP_GAR: {
    title: 'Google Artifact Registry',
    properties: {
      registryDomain: str('Artifact Registry host.', { example: 'us-docker.pkg.dev' }),
      credentials: gcpCredentials('the reader'),
    },
    required: ['registryDomain', 'credentials'],
  },
  GHCR: {
    title: 'GitHub Container Registry',
    properties: {
      registryDomain: str('Registry host.', { example: 'ghcr.io' }),
      credentials: userPassword('the GitHub account (password: a token with read:packages)', true),
      registryNotifications: REGISTRY_NOTIFICATIONS,
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
      // The service answers with a string ("60"); both spellings are read.
      limitNumScan: {
        type: ['string', 'integer'],
        pattern: '^[0-9]+$',
        minimum: 1,
        description: 'Maximum number of scans per hour, as a number or a string of digits.',
        examples: ['60'],
      },
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

function documentSchema(): SchemaObject {
  const spec = obj(
    'Which registry the service assesses images of.',
    {
      type: { const: REGISTRY_INTEGRATION_TYPE, description: `Optional; always ${REGISTRY_INTEGRATION_TYPE}.` },
      enabled: commonRef('enabled'),
      data: {
        type: 'object',
        required: ['registryType'],
        description: 'Registry settings; `registryType` decides the other members. Secrets as ${env:NAME}.',
        properties: { registryType: openType('Kind of registry.', 'ContainerRegistry', REGISTRY_TYPES) },
      },
    },
    ['data'],
  );
  spec.allOf = dispatch(REGISTRY_TYPES, registryDataFile, 'registryType');
  return envelope('ContainerRegistry', SCHEMA_FILE, 'A container registry integration for image vulnerability assessment.', spec, {
    name: 'dockerhub',
    spec: { data: { registryType: 'DOCKERHUB', credentials: { username: 'scanner', password: '${env:DOCKERHUB_TOKEN}' } } },
  });
}

/** The document schema and every per-type data schema, by file name under schemas/. */
export function schemas(): Record<string, SchemaObject> {
  const out: Record<string, SchemaObject> = { [SCHEMA_FILE]: documentSchema() };
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
    nullableOptional(body);
    out[file] = dataSchema(file, `${registryType} registry data`, `\`data\` of a ContainerRegistry with registryType ${registryType} (${def.title}). Optional members may be null: ${NULL_NOTE}`, body);
  }
  return out;
}
