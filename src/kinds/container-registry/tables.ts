// Facts of container registry `data` (api-facts.md): secret members by registry type, and the
// members the service fills in when a request leaves them out.

import type { SecretField } from '../secret-fields.js';

/** Secret members of container registry `data`, by `registryType` (and AWS auth type). */
export function registrySecrets(data: { registryType?: unknown; awsAuthType?: unknown }): SecretField[] {
  switch (data.registryType) {
    case 'AWS_ECR':
      return data.awsAuthType === 'AWS_ACCESS_KEY'
        ? [{ path: 'accessKeyCredentials.secretAccessKey', writeOnly: true, masking: 'empty' }]
        : [];
    case 'DOCKERHUB':
    case 'V2_REGISTRY':
    case 'GHCR':
      return [{ path: 'credentials.password', writeOnly: true, masking: 'empty' }];
    case 'GCP_GCR':
    case 'GCP_GAR':
      return [
        { path: 'credentials.privateKey', writeOnly: true, masking: 'empty' },
        { path: 'credentials.privateKeyId', writeOnly: true, masking: 'empty' },
      ];
    default:
      return [];
  }
}

/** Members the service fills in a container registry's `data` when a request leaves them out. */
export const REGISTRY_DATA_DEFAULTS = {
  limitNumImg: 5,
  limitByRep: [],
  limitByTag: [],
  limitByLabel: [],
  nonOsPackageEval: false,
} as const;
