// Cloud accounts: integrations with cloud providers (configuration assessment, activity logs).

import { CLOUD_ACCOUNT_SECRETS, type CloudAccountType, type SecretField } from './data.js';
import { integrationKind } from './integration.js';
import type { JsonObject } from '../model/json.js';
import type { Kind } from './types.js';

function cloudAccountSecrets(spec: JsonObject): SecretField[] {
  const type = spec.type;
  return typeof type === 'string' && Object.hasOwn(CLOUD_ACCOUNT_SECRETS, type) ? CLOUD_ACCOUNT_SECRETS[type as CloudAccountType] : [];
}

export const CloudAccount: Kind = integrationKind({
  kind: 'CloudAccount',
  documentKind: 'CloudAccount',
  schema: 'cloud-account.schema.json',
  collection: 'CloudAccounts',
  secrets: cloudAccountSecrets,
  hasPut: true,
});
