// The JSON Schemas of CloudAccount documents: the document and one `data` schema per type.

import { AZURE_INTEGRATION_LEVELS, GCP_ID_TYPES, KNOWN_CLOUD_ACCOUNT_TYPES, NEWER_CLOUD_ACCOUNT_TYPES, type KnownCloudAccountType } from '../spellings.js';
import { accessKey, crossAccount, gcpCredentials } from '../credential-schemas.js';
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
  str,
  strList,
  type SchemaObject,
} from '../schema-parts.js';
import { CLOUD_ACCOUNT_SECRETS } from './tables.js';

export const SCHEMA_FILE = 'cloud-account.schema.json';

export function cloudAccountDataFile(type: string): string {
  return `data/cloud-account/${kebab(type)}.schema.json`;
}

const azureCredentials = (): SchemaObject =>
  obj(
    'Azure AD application the service signs in with.',
    {
      clientId: str('Application (client) id.', { example: '11111111-2222-3333-4444-555555555555' }),
      clientSecret: str('Client secret of the application.', { example: '${env:AZURE_CLIENT_SECRET}' }),
    },
    ['clientId', 'clientSecret'],
  );

const awsAccountId = (): SchemaObject => formatted('AWS account id.', 'aws-account-id', { example: '123456789012' });
const tenantId = (): SchemaObject => str('Azure AD tenant id.', { example: '66666666-7777-8888-9999-000000000000' });
const accountMappingFile = (): SchemaObject =>
  str('Account mapping of an organization (a data: URL of a JSON file).', { example: 'data:application/json;name=mapping.json;base64,e30=' });

/** GovCloud has no roles to assume: an access key, with the account id inside it (api-facts.md). */
const govAccessKey = (): SchemaObject => {
  const key = accessKey();
  key.properties = { accountId: formatted('AWS GovCloud account id.', 'aws-account-id', { example: '123456789012' }), ...(key.properties as object) };
  key.required = ['accountId', ...(key.required as string[])];
  return key;
};

/** The agentless scanner's key carries the token endpoint of the key file too (api-facts.md; the public client sends it). */
const withTokenUri = (credentials: SchemaObject): SchemaObject => {
  (credentials.properties as Record<string, SchemaObject>).tokenUri = formatted('Token endpoint of the service account key (`token_uri` of its JSON key file).', 'https-url', {
    example: 'https://oauth2.googleapis.com/token',
  });
  return credentials;
};

const gcpIdType = (): SchemaObject =>
  closedSet('Whether `id` names a project or an organization.', { label: 'GCP id type', values: GCP_ID_TYPES }, { example: 'PROJECT' });
const gcpIntegrationType = (): SchemaObject =>
  closedSet('Whether the integration covers a project or an organization.', { label: 'GCP integration type', values: GCP_ID_TYPES }, { example: 'PROJECT' });

// Agentless scanning (the "Sidekick" types): the same switches on every provider.
const SCAN: Record<string, SchemaObject> = {
  scanFrequency: int('Hours between scans.', { minimum: 1, example: 24 }),
  scanContainers: bool('Scan container images found on hosts.', { example: true }),
  scanHostVulnerabilities: bool('Scan host vulnerabilities.', { example: true }),
  scanMultiVolume: bool('Scan every volume of a host, not only its root volume.', { example: false }),
  scanStoppedInstances: bool('Scan stopped instances too.', { example: true }),
  queryText: str('Query that selects the resources to scan.', { example: 'SELECT * FROM ...' }),
};

/** A list whose spelling public material does not settle: one comma-separated string or a list, as the service holds it. */
const listOrString = (description: string, example: string): SchemaObject => ({
  type: ['string', 'array'],
  items: { type: 'string', minLength: 1 },
  description: `${description} One comma-separated string or a list: write it as the service holds it (export shows which).`,
  examples: [example],
});

const awsSidekick = (): Record<string, SchemaObject> => ({
  ...structuredClone(SCAN),
  awsAccountId: awsAccountId(),
  bucketArn: formatted('ARN of the bucket the scanner writes to.', 'arn', { example: 'arn:aws:s3:::posture-sidekick' }),
  crossAccountCredentials: crossAccount(),
});

const gcpAudit = (): Record<string, SchemaObject> => ({
  credentials: gcpCredentials('the reader'),
  integrationType: gcpIntegrationType(),
  organizationId: str('Organization id (organization-level integrations).', { example: '123456789012' }),
  projectId: str('Project id.', { example: 'security-audit' }),
  subscriptionName: str('Pub/Sub subscription of the audit log sink.', { example: 'projects/security-audit/subscriptions/posture' }),
});

const CLOUD_DATA: Record<KnownCloudAccountType, { title: string; properties: Record<string, SchemaObject>; required: string[] }> = {
  AwsCfg: {
    title: 'AWS configuration assessment',
    properties: { awsAccountId: awsAccountId(), crossAccountCredentials: crossAccount() },
    required: ['crossAccountCredentials'],
  },
  AwsCtSqs: {
    title: 'AWS CloudTrail through SQS',
    properties: {
      awsAccountId: awsAccountId(),
      crossAccountCredentials: crossAccount(),
      queueUrl: formatted('URL of the SQS queue that receives CloudTrail notifications.', 'https-url', {
        example: 'https://sqs.us-east-1.amazonaws.com/123456789012/posture-cloudtrail',
      }),
      accountMappingFile: accountMappingFile(),
    },
    required: ['crossAccountCredentials', 'queueUrl'],
  },
  AwsEksAudit: {
    title: 'Amazon EKS audit log',
    properties: {
      crossAccountCredentials: crossAccount(),
      snsArn: formatted('ARN of the SNS topic the audit logs are published to.', 'arn', { example: 'arn:aws:sns:us-east-1:123456789012:eks-audit' }),
      s3BucketArn: formatted('ARN of the S3 bucket of the audit logs.', 'arn', { example: 'arn:aws:s3:::eks-audit-logs' }),
    },
    required: ['crossAccountCredentials', 'snsArn'],
  },
  AwsUsGovCfg: {
    title: 'AWS GovCloud configuration assessment',
    properties: { accessKeyCredentials: govAccessKey() },
    required: ['accessKeyCredentials'],
  },
  AwsUsGovCtSqs: {
    title: 'AWS GovCloud CloudTrail through SQS',
    properties: {
      accessKeyCredentials: govAccessKey(),
      queueUrl: formatted('URL of the SQS queue.', 'https-url', { example: 'https://sqs.us-gov-west-1.amazonaws.com/123456789012/trail' }),
    },
    required: ['accessKeyCredentials', 'queueUrl'],
  },
  AzureAlSeq: {
    title: 'Azure activity log',
    properties: {
      tenantId: tenantId(),
      credentials: azureCredentials(),
      queueUrl: formatted('URL of the storage queue that receives activity log notifications.', 'https-url', {
        example: 'https://postureaudit.queue.core.windows.net/activity',
      }),
    },
    required: ['tenantId', 'credentials', 'queueUrl'],
  },
  AzureCfg: {
    title: 'Azure configuration assessment',
    properties: { tenantId: tenantId(), credentials: azureCredentials() },
    required: ['tenantId', 'credentials'],
  },
  GcpAtSes: {
    title: 'Google Cloud audit log',
    properties: {
      credentials: gcpCredentials('the reader'),
      idType: gcpIdType(),
      id: str('Project id or organization id.', { example: 'security-audit' }),
      subscriptionName: str('Pub/Sub subscription of the audit log sink.', { example: 'projects/security-audit/subscriptions/posture' }),
    },
    required: ['credentials', 'idType', 'id', 'subscriptionName'],
  },
  GcpCfg: {
    title: 'Google Cloud configuration assessment',
    properties: {
      credentials: gcpCredentials('the reader'),
      idType: gcpIdType(),
      id: str('Project id or organization id.', { example: 'security-audit' }),
    },
    required: ['credentials', 'idType', 'id'],
  },
  AwsSidekick: {
    title: 'AWS agentless scanning',
    properties: awsSidekick(),
    required: [],
  },
  AwsSidekickOrg: {
    title: 'AWS agentless scanning of an organization',
    properties: {
      ...awsSidekick(),
      scanningAccount: str('Account the scanners run in.', { example: '123456789012' }),
      managementAccount: str('Management account of the organization.', { example: '210987654321' }),
      monitoredAccounts: str('Accounts or organizational units to scan, one comma-separated string.', { example: 'ou-abcd-11111111,123456789012' }),
      accountMappingFile: accountMappingFile(),
    },
    required: [],
  },
  AzureSidekick: {
    title: 'Azure agentless scanning',
    properties: {
      ...structuredClone(SCAN),
      credentials: azureCredentials(),
      integrationLevel: closedSet('Scan a whole tenant or one subscription.', { label: 'Azure integration level', values: AZURE_INTEGRATION_LEVELS }, { example: 'SUBSCRIPTION' }),
      scanningSubscriptionId: str('Subscription the scanners run in.', { example: '11111111-2222-3333-4444-555555555555' }),
      tenantId: tenantId(),
      blobContainerName: str('Blob container the scanner writes to.', { example: 'posture-sidekick' }),
      scanningResourceGroupName: str('Resource group of the scanners.', { example: 'posture-sidekick' }),
      storageAccountUrl: formatted('URL of the storage account.', 'https-url', { example: 'https://posturesidekick.blob.core.windows.net' }),
      subscriptionsList: listOrString('Subscriptions to scan (tenant level).', '11111111-2222-3333-4444-555555555555'),
    },
    required: [],
  },
  GcpSidekick: {
    title: 'Google Cloud agentless scanning',
    properties: {
      ...structuredClone(SCAN),
      credentials: withTokenUri(gcpCredentials('the scanner')),
      idType: gcpIdType(),
      id: str('Project id or organization id.', { example: 'security-audit' }),
      scanningProjectId: str('Project the scanners run in.', { example: 'posture-scanning' }),
      sharedBucketName: str('Bucket the scanner writes to.', { example: 'posture-sidekick' }),
      filterList: listOrString('Projects to include or (prefixed with -) exclude.', 'proj-a,-proj-b'),
      accountMappingFile: accountMappingFile(),
    },
    required: [],
  },
  AzureAdAl: {
    title: 'Azure AD (Entra ID) audit log',
    properties: {
      credentials: azureCredentials(),
      tenantId: tenantId(),
      eventHubNamespace: str('Event Hubs namespace.', { example: 'posture-audit.servicebus.windows.net' }),
      eventHubName: str('Event hub that receives the directory audit log.', { example: 'entra-audit' }),
    },
    required: [],
  },
  GcpGkeAudit: {
    title: 'Google Kubernetes Engine audit log',
    properties: gcpAudit(),
    required: [],
  },
  GcpAlPubSub: {
    title: 'Google Cloud audit log through Pub/Sub',
    properties: { ...gcpAudit(), topicId: str('Pub/Sub topic of the audit log sink.', { example: 'posture-audit' }) },
    required: [],
  },
  OciCfg: {
    title: 'Oracle Cloud configuration assessment',
    properties: {
      credentials: obj(
        'API signing key of the OCI user the service signs in as.',
        {
          fingerprint: str('Fingerprint of the public key.', { example: '12:34:56:78:9a:bc:de:f0:12:34:56:78:9a:bc:de:f0' }),
          privateKey: str('PEM private key.', { example: '${env:OCI_PRIVATE_KEY}' }),
        },
        ['fingerprint', 'privateKey'],
      ),
      homeRegion: str('Home region of the tenancy.', { example: 'us-ashburn-1' }),
      tenantId: str('OCID of the tenancy.', { example: 'ocid1.tenancy.oc1..aaaaaaaa' }),
      tenantName: str('Name of the tenancy.', { example: 'posture' }),
      userOcid: str('OCID of the user.', { example: 'ocid1.user.oc1..aaaaaaaa' }),
    },
    required: [],
  },
  AwsDspm: {
    title: 'AWS data posture',
    properties: {
      awsAccountId: awsAccountId(),
      bucketArn: formatted('ARN of the bucket the scanner writes to.', 'arn', { example: 'arn:aws:s3:::posture-dspm' }),
      crossAccountCredentials: crossAccount(),
      regions: strList('Regions to scan.', { type: 'string', minLength: 1 }, { example: ['us-east-1'] }),
      integrationLevel: str('Scope of the integration, as the service names it.', { example: 'ACCOUNT' }),
      managementAccount: str('Management account of the organization.', { example: '210987654321' }),
      props: { type: 'object', description: 'Further settings, as the service defines them.' },
    },
    required: [],
  },
  AzureDspm: {
    title: 'Azure data posture',
    properties: {
      tenantId: tenantId(),
      integrationLevel: str('Scope of the integration, as the service names it.', { example: 'SUBSCRIPTION' }),
      storageAccountUrl: formatted('URL of the storage account.', 'https-url', { example: 'https://posturedspm.blob.core.windows.net' }),
      blobContainerName: str('Blob container the scanner writes to.', { example: 'posture-dspm' }),
      credentials: azureCredentials(),
      regions: strList('Regions to scan.', { type: 'string', minLength: 1 }, { example: ['eastus'] }),
      props: { type: 'object', description: 'Further settings, as the service defines them.' },
    },
    required: [],
  },
};

function documentSchema(): SchemaObject {
  const spec = obj(
    'Which cloud the service assesses and how it gets in.',
    {
      type: openType('Cloud account type; decides the members of `data`.', 'CloudAccount', KNOWN_CLOUD_ACCOUNT_TYPES),
      enabled: commonRef('enabled'),
      data: { type: 'object', description: 'Type-specific settings (see the schema of the chosen type). Secrets as ${env:NAME}.' },
    },
    ['type', 'data'],
  );
  spec.allOf = dispatch(KNOWN_CLOUD_ACCOUNT_TYPES, cloudAccountDataFile, 'type');
  return envelope('CloudAccount', SCHEMA_FILE, 'A cloud account integration: configuration assessment or activity logs of one cloud account.', spec, {
    name: 'aws-prod-config',
    spec: {
      type: 'AwsCfg',
      data: { awsAccountId: '123456789012', crossAccountCredentials: { roleArn: 'arn:aws:iam::123456789012:role/posture-audit', externalId: 'posture-7f3c2a' } },
    },
  });
}

/**
 * Public material shows the members of the newer types, not which of them the service insists on:
 * none is required (a record export reads must validate; the service judges what a write lacks), and
 * a text member other than a secret may be empty (the public client sends `queryText: ""`, and the
 * service answers such members so).
 */
function withoutRequired(schema: SchemaObject, secrets: readonly string[], path = ''): SchemaObject {
  delete schema.required;
  if (schema.type === 'string' && !secrets.includes(path)) delete schema.minLength;
  for (const [name, sub] of Object.entries((schema.properties ?? {}) as Record<string, SchemaObject>)) withoutRequired(sub, secrets, path === '' ? name : `${path}.${name}`);
  return schema;
}

/** The document schema and every per-type data schema, by file name under schemas/. */
export function schemas(): Record<string, SchemaObject> {
  const out: Record<string, SchemaObject> = { [SCHEMA_FILE]: documentSchema() };
  const newer: readonly string[] = NEWER_CLOUD_ACCOUNT_TYPES;
  for (const type of KNOWN_CLOUD_ACCOUNT_TYPES) {
    const def = CLOUD_DATA[type];
    const body = obj('', structuredClone(def.properties), def.required);
    if (newer.includes(type)) withoutRequired(body, CLOUD_ACCOUNT_SECRETS[type].map((x) => x.path));
    markSecrets(body, CLOUD_ACCOUNT_SECRETS[type]);
    delete body.description;
    const file = cloudAccountDataFile(type);
    nullableOptional(body);
    out[file] = dataSchema(file, `${type} data`, `\`data\` of a CloudAccount of type ${type} (${def.title}). Optional members may be null: ${NULL_NOTE}`, body);
  }
  return out;
}
