// Per-type facts of cloud account `data` (api-facts.md): secret members.

import type { KnownCloudAccountType } from '../spellings.js';
import type { SecretField } from '../secret-fields.js';

const AWS_GOV_KEY: SecretField[] = [{ path: 'accessKeyCredentials.secretAccessKey', writeOnly: true, masking: 'empty' }];
const AZURE_APP: SecretField[] = [{ path: 'credentials.clientSecret', writeOnly: true, masking: 'empty' }];
// The nine seed types hide the key id as well; the public client marks only the key secret on the others.
const GCP_KEY_AND_ID: SecretField[] = [
  { path: 'credentials.privateKey', writeOnly: true, masking: 'empty' },
  { path: 'credentials.privateKeyId', writeOnly: true, masking: 'empty' },
];
const GCP_KEY: SecretField[] = [{ path: 'credentials.privateKey', writeOnly: true, masking: 'empty' }];

/** Secret members of cloud account `data`, per type. */
export const CLOUD_ACCOUNT_SECRETS: Record<KnownCloudAccountType, SecretField[]> = {
  AwsCfg: [],
  AwsCtSqs: [],
  AwsEksAudit: [],
  AwsUsGovCfg: AWS_GOV_KEY,
  AwsUsGovCtSqs: AWS_GOV_KEY,
  AzureAlSeq: AZURE_APP,
  AzureCfg: AZURE_APP,
  GcpAtSes: GCP_KEY_AND_ID,
  GcpCfg: GCP_KEY_AND_ID,
  AwsSidekick: [],
  AwsSidekickOrg: [],
  AzureSidekick: AZURE_APP,
  GcpSidekick: GCP_KEY,
  AzureAdAl: AZURE_APP,
  GcpGkeAudit: GCP_KEY,
  GcpAlPubSub: GCP_KEY,
  OciCfg: [{ path: 'credentials.privateKey', writeOnly: true, masking: 'empty' }],
  AwsDspm: [],
  AzureDspm: AZURE_APP,
};
