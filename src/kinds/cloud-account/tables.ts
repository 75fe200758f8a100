// Per-type facts of cloud account `data` (api-facts.md): secret members.

import type { CloudAccountType } from '../spellings.js';
import type { SecretField } from '../secret-fields.js';

/** Secret members of cloud account `data`, per type. */
export const CLOUD_ACCOUNT_SECRETS: Record<CloudAccountType, SecretField[]> = {
  AwsCfg: [],
  AwsCtSqs: [],
  AwsEksAudit: [],
  AwsUsGovCfg: [{ path: 'accessKeyCredentials.secretAccessKey', writeOnly: true, masking: 'empty' }],
  AwsUsGovCtSqs: [{ path: 'accessKeyCredentials.secretAccessKey', writeOnly: true, masking: 'empty' }],
  AzureAlSeq: [{ path: 'credentials.clientSecret', writeOnly: true, masking: 'empty' }],
  AzureCfg: [{ path: 'credentials.clientSecret', writeOnly: true, masking: 'empty' }],
  GcpAtSes: [
    { path: 'credentials.privateKey', writeOnly: true, masking: 'empty' },
    { path: 'credentials.privateKeyId', writeOnly: true, masking: 'empty' },
  ],
  GcpCfg: [
    { path: 'credentials.privateKey', writeOnly: true, masking: 'empty' },
    { path: 'credentials.privateKeyId', writeOnly: true, masking: 'empty' },
  ],
};
