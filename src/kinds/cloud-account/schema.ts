// The JSON Schemas of CloudAccount documents: the document and one `data` schema per type.

import { CLOUD_ACCOUNT_TYPES, type CloudAccountType } from '../spellings.js';
import { accessKey, crossAccount, gcpCredentials } from '../credential-schemas.js';
import {
  ARN,
  AWS_ACCOUNT_ID,
  HTTPS_URL,
  commonRef,
  dataSchema,
  dispatch,
  envelope,
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

/** GovCloud has no roles to assume: an access key, with the account id inside it (api-facts.md). */
const govAccessKey = (): SchemaObject => {
  const key = accessKey();
  key.properties = { accountId: str('AWS GovCloud account id.', { pattern: AWS_ACCOUNT_ID, example: '123456789012' }), ...(key.properties as object) };
  key.required = ['accountId', ...(key.required as string[])];
  return key;
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
      accountMappingFile: str('Account mapping of an organization trail (a data: URL of a JSON file).', {
        example: 'data:application/json;name=mapping.json;base64,e30=',
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
    properties: { accessKeyCredentials: govAccessKey() },
    required: ['accessKeyCredentials'],
  },
  AwsUsGovCtSqs: {
    title: 'AWS GovCloud CloudTrail through SQS',
    properties: {
      accessKeyCredentials: govAccessKey(),
      queueUrl: str('URL of the SQS queue.', { pattern: HTTPS_URL, example: 'https://sqs.us-gov-west-1.amazonaws.com/123456789012/trail' }),
    },
    required: ['accessKeyCredentials', 'queueUrl'],
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
      idType: GCP_PROJECT_OR_ORG,
      id: str('Project id or organization id.', { example: 'security-audit' }),
      subscriptionName: str('Pub/Sub subscription of the audit log sink.', { example: 'projects/security-audit/subscriptions/posture' }),
    },
    required: ['credentials', 'idType', 'id', 'subscriptionName'],
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

function documentSchema(): SchemaObject {
  const spec = obj(
    'Which cloud the service assesses and how it gets in.',
    {
      type: openType('Cloud account type; decides the members of `data`.', CLOUD_ACCOUNT_TYPES),
      enabled: commonRef('enabled'),
      data: { type: 'object', description: 'Type-specific settings (see the schema of the chosen type). Secrets as ${env:NAME}.' },
    },
    ['type', 'data'],
  );
  spec.allOf = dispatch(CLOUD_ACCOUNT_TYPES, cloudAccountDataFile, 'type');
  return envelope('CloudAccount', SCHEMA_FILE, 'A cloud account integration: configuration assessment or activity logs of one cloud account.', spec, {
    name: 'aws-prod-config',
    spec: {
      type: 'AwsCfg',
      data: { awsAccountId: '123456789012', crossAccountCredentials: { roleArn: 'arn:aws:iam::123456789012:role/posture-audit', externalId: 'posture-7f3c2a' } },
    },
  });
}

/** The document schema and every per-type data schema, by file name under schemas/. */
export function schemas(): Record<string, SchemaObject> {
  const out: Record<string, SchemaObject> = { [SCHEMA_FILE]: documentSchema() };
  for (const type of CLOUD_ACCOUNT_TYPES) {
    const def = CLOUD_DATA[type];
    const body = obj('', structuredClone(def.properties), def.required);
    markSecrets(body, CLOUD_ACCOUNT_SECRETS[type]);
    delete body.description;
    const file = cloudAccountDataFile(type);
    nullableOptional(body);
    out[file] = dataSchema(file, `${type} data`, `\`data\` of a CloudAccount of type ${type} (${def.title}). Optional members may be null: ${NULL_NOTE}`, body);
  }
  return out;
}
