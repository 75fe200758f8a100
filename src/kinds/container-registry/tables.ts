// Facts of container registry `data` (api-facts.md, seed 000): secret members by registry type, the
// members the service never returns, and the members it fills in when a request leaves them out.

import { isObject, type JsonObject } from '../../model/json.js';
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

const isRoleBasedEcr = (data: { registryType?: unknown; awsAuthType?: unknown }): boolean =>
  data.registryType === 'AWS_ECR' && data.awsAuthType !== 'AWS_ACCESS_KEY';

/**
 * The role of a role-based ECR registry identifies, it does not authenticate: no secret. The live
 * service returns `roleArn` and `externalId` in clear (api-facts.md), and then they are compared and
 * exported like any value. Seed 000 describes responses that replace `crossAccountCredentials` by a
 * masked `accessKeyCredentials`: a spec without the role (as such a response reads) has nothing to
 * compare, so there, and only there, the role is a member the service does not return.
 */
export function registryUnreturned(data: { registryType?: unknown; awsAuthType?: unknown; crossAccountCredentials?: unknown }): string[] {
  return isRoleBasedEcr(data) && !isObject(data.crossAccountCredentials)
    ? ['/data/crossAccountCredentials/roleArn', '/data/crossAccountCredentials/externalId']
    : [];
}

/**
 * Live `data` as a file holds it: a role-based ECR registry's masked `accessKeyCredentials` (every
 * member "") is the service's stand-in for the role it does not return, not configuration; left out.
 * An access key with any value in it is carried as read.
 */
export function readRegistryData(data: JsonObject): JsonObject {
  const keys = data.accessKeyCredentials;
  if (!isRoleBasedEcr(data) || !isObject(keys) || !Object.values(keys).every((v) => v === '')) return data;
  const { accessKeyCredentials: _masked, ...rest } = data;
  return rest;
}
