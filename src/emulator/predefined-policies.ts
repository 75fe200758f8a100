// The service's own queries and policies (api-facts.md "Queries", "Policies"): query ids
// `<PREFIX>Global_<provider>_<area>_<Name>`, policy ids `<vendor>-global-<n>` with n not contiguous,
// `owner` the vendor's name, `Manual` policies (no query, no exceptions) among them, tags
// `key:value`. The emulator's own table: a handful per provider, enough to hold the behaviours.

import type { ConstraintField, PolicyRecord, QueryRecord } from './model.js';

/** When the predefined content was last changed by the vendor (a fixed date: it is the service's). */
export const PREDEFINED_TIME = Date.UTC(2024, 0, 15, 8, 0, 0);

const field = (fieldKey: string, dataType = 'String', multiValue = true): ConstraintField => ({ fieldKey, dataType, multiValue });

/** The constraint fields the emulator gives a policy of each provider (api-facts.md "Policy exceptions"). */
export const CONSTRAINT_FIELDS: Readonly<Record<string, ConstraintField[]>> = {
  // The four of the service's recorded refusal text.
  AWS: [field('accountIds'), field('arns'), field('resourceNames'), field('resourceTags', 'KVTagPair')],
  // `organizations` is a Number key (api-facts.md); labels are GCP's tags.
  GCP: [field('organizations', 'Number'), field('projects'), field('resourceNames'), field('resourceLabels', 'KVTagPair')],
  // Not shown by api-facts.md: the emulator's choice, the Azure counterparts of the AWS keys.
  Azure: [field('tenants'), field('subscriptions'), field('resourceNames'), field('resourceTags', 'KVTagPair')],
};

/** The constraint fields of a policy over a query of these providers: the first known one's, else none. */
export function constraintFieldsFor(providers: readonly string[]): ConstraintField[] {
  const p = providers.find((x) => CONSTRAINT_FIELDS[x] !== undefined);
  return p === undefined ? [] : structuredClone(CONSTRAINT_FIELDS[p]);
}

interface QuerySpec {
  id: string;
  name: string;
  source: string;
  filter: string;
  returns: string;
}

const QUERIES: QuerySpec[] = [
  { id: 'AWS_Config_RootAccountMfa', name: 'Root account without MFA', source: '{P}CFG_AWS_IAM_CREDENTIAL_REPORT r', filter: "r.USER = '<root_account>' and r.MFA_ACTIVE = 'false'", returns: 'r.ARN as RESOURCE_KEY, r.ACCOUNT_ID' },
  { id: 'AWS_Config_S3BucketPublicRead', name: 'S3 bucket readable by everyone', source: '{P}CFG_AWS_S3 b', filter: "b.ACL_GRANTS like '%AllUsers%READ%'", returns: 'b.ARN as RESOURCE_KEY, b.RESOURCE_REGION, b.ACCOUNT_ID' },
  { id: 'AWS_CTA_AccessKeyDeleted', name: 'Access key deleted', source: 'CloudTrailRawEvents e', filter: "e.EVENT_NAME = 'DeleteAccessKey'", returns: 'e.INSERT_ID, e.EVENT_TIME, e.EVENT' },
  { id: 'GCP_Config_StorageBucketPublic', name: 'Storage bucket open to all users', source: '{P}CFG_GCP_STORAGE_BUCKET s', filter: "s.IAM_POLICY like '%allUsers%'", returns: 's.URN as RESOURCE_KEY, s.PROJECT_ID' },
  { id: 'Azure_Config_StorageAccountHttpsOnly', name: 'Storage account accepting HTTP', source: '{P}CFG_AZURE_STORAGE_ACCOUNT a', filter: "a.SUPPORTS_HTTPS_TRAFFIC_ONLY = 'false'", returns: 'a.URN as RESOURCE_KEY, a.SUBSCRIPTION_ID' },
  { id: 'Agent_Files_ShadowChanged', name: 'Password file changed', source: '{P}HE_FILES f', filter: "f.PATH = '/etc/shadow'", returns: 'f.MID, f.PATH, f.LAST_MODIFIED_TIME' },
];

const text = (q: QuerySpec, prefix: string): string =>
  `{\n    source {\n        ${q.source.replace('{P}', prefix)}\n    }\n    filter {\n        ${q.filter}\n    }\n    return distinct {\n        ${q.returns}\n    }\n}`;

/** The predefined queries of an account whose vendor prefix is `prefix` and vendor `vendor`. */
export function predefinedQueries(prefix: string, vendor: string): QueryRecord[] {
  return QUERIES.map((q) => ({
    queryId: `${prefix}Global_${q.id}`,
    queryName: q.name,
    queryText: text(q, prefix),
    owner: vendor,
    lastUpdateTime: PREDEFINED_TIME,
    lastUpdateUser: vendor,
    predefined: true,
  }));
}

interface PolicySpec {
  n: number;
  type: 'Violation' | 'Compliance' | 'Manual';
  query?: string;
  title: string;
  severity: string;
  enabled: boolean;
  provider: string;
  tags: string[];
}

const CIS_AWS = 'framework:cis-aws-1-4-0';
const POLICIES: PolicySpec[] = [
  { n: 1, type: 'Compliance', query: 'AWS_Config_RootAccountMfa', title: 'Ensure MFA is enabled for the root account', severity: 'critical', enabled: true, provider: 'AWS', tags: [CIS_AWS, 'domain:AWS', 'subdomain:Identity and Access Management'] },
  { n: 2, type: 'Manual', title: 'Maintain current contact details', severity: 'low', enabled: false, provider: 'AWS', tags: [CIS_AWS, 'domain:AWS', 'subdomain:Account'] },
  { n: 8, type: 'Compliance', query: 'AWS_Config_S3BucketPublicRead', title: 'Ensure no S3 bucket allows public read', severity: 'high', enabled: true, provider: 'AWS', tags: [CIS_AWS, 'domain:AWS', 'subdomain:Storage'] },
  { n: 39, type: 'Violation', query: 'AWS_CTA_AccessKeyDeleted', title: 'Access key deleted', severity: 'medium', enabled: true, provider: 'AWS', tags: ['domain:AWS', 'subdomain:Cloudtrail'] },
  { n: 46, type: 'Manual', title: 'Ensure security questions are registered in the AWS account', severity: 'low', enabled: false, provider: 'AWS', tags: [CIS_AWS, 'domain:AWS', 'subdomain:Account'] },
  { n: 73, type: 'Compliance', query: 'GCP_Config_StorageBucketPublic', title: 'Ensure Cloud Storage buckets are not publicly accessible', severity: 'high', enabled: true, provider: 'GCP', tags: ['framework:cis-gcp-1-3-0', 'domain:GCP', 'subdomain:Storage'] },
  { n: 87, type: 'Compliance', query: 'Azure_Config_StorageAccountHttpsOnly', title: 'Ensure secure transfer is required for storage accounts', severity: 'medium', enabled: true, provider: 'Azure', tags: ['framework:cis-azure-1-5-0', 'domain:Azure', 'subdomain:Storage'] },
  { n: 100, type: 'Violation', query: 'Agent_Files_ShadowChanged', title: 'Password file changed on a host', severity: 'high', enabled: false, provider: 'Agent', tags: ['domain:Host', 'subdomain:File'] },
  { n: 218, type: 'Manual', title: 'Ensure a support role has been created to manage incidents', severity: 'info', enabled: false, provider: 'AWS', tags: [CIS_AWS, 'domain:AWS', 'subdomain:Identity and Access Management'] },
  { n: 270, type: 'Manual', title: 'Ensure essential contacts are configured for the organization', severity: 'info', enabled: false, provider: 'GCP', tags: ['framework:cis-gcp-1-3-0', 'domain:GCP', 'subdomain:Organization'] },
];

/** The lower-case vendor name that starts predefined policy ids (`<vendor>-global-<n>`). */
export const globalPolicyPrefix = (vendor: string): string => `${vendor.toLowerCase()}-global-`;

/** The predefined policies of an account (queries of `predefinedQueries(prefix, vendor)`). */
export function predefinedPolicies(prefix: string, vendor: string): PolicyRecord[] {
  return POLICIES.map((p) => {
    const id = `${globalPolicyPrefix(vendor)}${p.n}`;
    return {
      policyId: id,
      policyType: p.type,
      ...(p.query !== undefined ? { queryId: `${prefix}Global_${p.query}` } : {}),
      title: p.title,
      description: `${p.title}.`,
      remediation: `Follow the steps of the vendor's guide for ${id}.`,
      severity: p.severity,
      enabled: p.enabled,
      alertEnabled: p.type !== 'Manual',
      ...(p.type === 'Violation' ? { evalFrequency: 'Hourly' } : {}),
      limit: 1000,
      tags: [...p.tags],
      owner: vendor,
      lastUpdateTime: PREDEFINED_TIME,
      lastUpdateUser: vendor,
      // Manual policies take no exceptions.
      constraintFields: p.type === 'Manual' ? [] : constraintFieldsFor([p.provider]),
      predefined: true,
      info: {
        infoLink: `https://docs.example.com/policies/${id}`,
        references: [],
        additionalInformation: '',
        ...(p.type === 'Manual' ? {} : { evaluatorId: p.query?.includes('_CTA_') ? 'Cloudtrail' : '' }),
      },
    };
  });
}
