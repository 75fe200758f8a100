// Until the emulator keeps its own tables (issue 12):
// re-exports of what src/emulator imports from here. The tool itself imports each table from the
// kind folder that owns it; delete this file once the emulator no longer imports it.

export { API_PREFIX, bucketOf } from '../api/buckets.js';
export {
  ALERT_RULE_TYPE,
  AWS_AUTH_TYPES,
  CHANNEL_TYPES,
  CLOUD_ACCOUNT_TYPES,
  EVENT_CATEGORIES,
  REGISTRY_INTEGRATION_TYPE,
  REGISTRY_TYPES,
  type ChannelType,
  type CloudAccountType,
  type EventCategory,
  type RegistryType,
} from './spellings.js';
export { dataPointer, type Masking, type SecretField } from './secret-fields.js';
export { CHANNEL_REQUIRED, CHANNEL_SECRETS } from './alert-channel/tables.js';
export { CLOUD_ACCOUNT_SECRETS } from './cloud-account/tables.js';
export { REGISTRY_DATA_DEFAULTS, registrySecrets } from './container-registry/tables.js';
export { PREDEFINED_PROFILE_PREFIX, ROOT_PROFILE_ID } from './alert-profile/ids.js';
