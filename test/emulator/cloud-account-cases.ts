// A `data` of each of the 19 cloud account types, every secret a canary (`CANARY-...`), and the `data`
// the service answers with (write-only secrets masked): for the emulator's tests and the export e2e.

export const GCP = (tag: string) => ({ clientId: '1098', clientEmail: 'r@p.iam.gserviceaccount.com', privateKeyId: `kid-${tag}`, privateKey: `CANARY-${tag}-pk` });
const AZURE = (tag: string) => ({ clientId: 'azure-client', clientSecret: `CANARY-${tag}-cs` });
export const ROLE = { roleArn: 'arn:aws:iam::123456789012:role/scanner', externalId: 'ext-1' };
const SCAN = { scanFrequency: 24, scanContainers: true, scanHostVulnerabilities: true, scanMultiVolume: false, scanStoppedInstances: false, queryText: '' };

/** A `data` of every type, each secret a canary; and what a response shows of it. */
export const CASES: Record<string, { data: Record<string, unknown>; shown: Record<string, unknown> }> = {};
const add = (type: string, data: Record<string, unknown>, masked: (d: any) => void = () => {}) => {
  const shown = structuredClone(data);
  masked(shown);
  CASES[type] = { data, shown };
};
add('AwsCfg', { awsAccountId: '123456789012', crossAccountCredentials: ROLE });
add('AwsCtSqs', { crossAccountCredentials: ROLE, queueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/q', accountMappingFile: 'e30=' });
add('AwsEksAudit', { crossAccountCredentials: ROLE, snsArn: 'arn:aws:sns:us-east-1:123456789012:eks' });
add('AwsUsGovCfg', { accessKeyCredentials: { accountId: '123456789', accessKeyId: 'AKIAGOV', secretAccessKey: 'CANARY-gov-sak' } }, (d) => (d.accessKeyCredentials.secretAccessKey = ''));
add(
  'AwsUsGovCtSqs',
  { accessKeyCredentials: { accountId: '123456789012', accessKeyId: 'AKIAGOV', secretAccessKey: 'CANARY-govct-sak' }, queueUrl: 'https://sqs.us-gov-west-1.amazonaws.com/1/q' },
  (d) => (d.accessKeyCredentials.secretAccessKey = ''),
);
add('AzureAlSeq', { credentials: AZURE('alseq'), tenantId: 't', queueUrl: 'https://q.queue.core.windows.net/q' }, (d) => (d.credentials.clientSecret = ''));
add('AzureCfg', { credentials: AZURE('azcfg'), tenantId: 't' }, (d) => (d.credentials.clientSecret = ''));
add('GcpAtSes', { credentials: GCP('atses'), idType: 'PROJECT', id: 'p', subscriptionName: 's' }, (d) => ((d.credentials.privateKey = ''), (d.credentials.privateKeyId = '')));
add('GcpCfg', { credentials: GCP('gcpcfg'), idType: 'ORGANIZATION', id: '42' }, (d) => ((d.credentials.privateKey = ''), (d.credentials.privateKeyId = '')));
add('AwsSidekick', { ...SCAN, awsAccountId: '123456789012', bucketArn: 'arn:aws:s3:::b', crossAccountCredentials: ROLE });
add('AwsSidekickOrg', {
  ...SCAN,
  crossAccountCredentials: ROLE,
  scanningAccount: '123456789012',
  managementAccount: '210987654321',
  monitoredAccounts: '111111111111,222222222222',
  accountMappingFile: 'e30=',
});
add(
  'AzureSidekick',
  {
    ...SCAN,
    credentials: AZURE('azside'),
    integrationLevel: 'SUBSCRIPTION',
    scanningSubscriptionId: 'sub',
    tenantId: 't',
    blobContainerName: 'blob',
    scanningResourceGroupName: 'rg',
    storageAccountUrl: 'https://s.blob.core.windows.net',
    subscriptionsList: ['sub-a', 'sub-b'],
  },
  (d) => (d.credentials.clientSecret = ''),
);
add(
  'GcpSidekick',
  { ...SCAN, credentials: GCP('gcpside'), idType: 'PROJECT', id: 'p', scanningProjectId: 'scan-p', sharedBucketName: 'b', filterList: 'p1,p2', accountMappingFile: 'e30=' },
  (d) => (d.credentials.privateKey = ''),
);
add('AzureAdAl', { credentials: AZURE('adal'), tenantId: 't', eventHubNamespace: 'ns', eventHubName: 'hub' }, (d) => (d.credentials.clientSecret = ''));
add('GcpGkeAudit', { credentials: GCP('gke'), integrationType: 'PROJECT', projectId: 'p', subscriptionName: 's' }, (d) => (d.credentials.privateKey = ''));
add(
  'GcpAlPubSub',
  { credentials: GCP('alpubsub'), integrationType: 'ORGANIZATION', organizationId: 'o', subscriptionName: 's', topicId: 't' },
  (d) => (d.credentials.privateKey = ''),
);
add(
  'OciCfg',
  { credentials: { fingerprint: 'aa:bb', privateKey: 'CANARY-oci-pk' }, homeRegion: 'eu-frankfurt-1', tenantId: 'ocid1.tenancy', tenantName: 'acme', userOcid: 'ocid1.user' },
  (d) => (d.credentials.privateKey = ''),
);
add('AwsDspm', { awsAccountId: '123456789012', bucketArn: 'arn:aws:s3:::d', crossAccountCredentials: ROLE, regions: ['us-east-1'], integrationLevel: 'ACCOUNT', props: { a: 1 } });
add(
  'AzureDspm',
  { tenantId: 't', integrationLevel: 'TENANT', storageAccountUrl: 'https://s', blobContainerName: 'b', credentials: AZURE('azdspm'), regions: ['westeurope'] },
  (d) => (d.credentials.clientSecret = ''),
);
