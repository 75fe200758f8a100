// Cloud accounts: integrations with cloud providers (configuration assessment, activity logs).

import { KNOWN_CLOUD_ACCOUNT_TYPES, type KnownCloudAccountType } from '../spellings.js';
import type { SecretField } from '../secret-fields.js';
import { integrationKind } from '../integration.js';
import type { JsonObject } from '../../model/json.js';
import type { Kind } from '../types.js';
import { cloudAccountDataFile, SCHEMA_FILE, schemas } from './schema.js';
import { CLOUD_ACCOUNT_SECRETS } from './tables.js';

function cloudAccountSecrets(spec: JsonObject): SecretField[] {
  const type = spec.type;
  return typeof type === 'string' && Object.hasOwn(CLOUD_ACCOUNT_SECRETS, type) ? CLOUD_ACCOUNT_SECRETS[type as KnownCloudAccountType] : [];
}

export const CloudAccount: Kind = integrationKind({
  kind: 'CloudAccount',
  order: 50,
  documentKind: 'CloudAccount',
  schema: SCHEMA_FILE,
  schemas,
  collection: 'CloudAccounts',
  secrets: cloudAccountSecrets,
  knownTypes: KNOWN_CLOUD_ACCOUNT_TYPES,
  dataFile: cloudAccountDataFile,
  typePointer: '/type',
  hasPut: true,
});
