// Alert channels: destinations of alerts. An integration record; the service can test one.

import { CHANNEL_TYPES, type ChannelType } from '../spellings.js';
import type { SecretField } from '../secret-fields.js';
import { integrationHealth, integrationKind } from '../integration.js';
import { isObject, type JsonObject } from '../../model/json.js';
import { toBoolean } from '../common.js';
import type { Kind } from '../types.js';
import { channelDataFile, SCHEMA_FILE, schemas } from './schema.js';
import { CHANNEL_SECRETS } from './tables.js';

/** Every secret member of the spec's type. */
function typeSecrets(spec: JsonObject): SecretField[] {
  const type = spec.type;
  return typeof type === 'string' && Object.hasOwn(CHANNEL_SECRETS, type) ? CHANNEL_SECRETS[type as ChannelType] : [];
}

/** The secret members the spec uses. */
function channelSecrets(spec: JsonObject): SecretField[] {
  const secrets = typeSecrets(spec);
  if (spec.type !== 'Jira') return secrets;
  // Jira Cloud authenticates with apiToken, Jira Server with password: only one of them is in use.
  const data = spec.data as JsonObject | undefined;
  const unused = data?.jiraType === 'JIRA_CLOUD' ? 'password' : data?.jiraType === 'JIRA_SERVER' ? 'apiToken' : undefined;
  return secrets.filter((s) => s.path !== unused);
}

/** The service sometimes answers with the recipients as one comma-separated string: read it as the list. */
function emailUserData(data: JsonObject): JsonObject {
  const props = data.channelProps;
  if (!isObject(props) || typeof props.recipients !== 'string') return data;
  const recipients = props.recipients
    .split(',')
    .map((r) => r.trim())
    .filter((r) => r !== '');
  return { ...data, channelProps: { ...props, recipients } };
}

const channels: Kind = integrationKind({
  kind: 'AlertChannel',
  order: 10,
  documentKind: 'AlertChannel',
  schema: SCHEMA_FILE,
  schemas,
  collection: 'AlertChannels',
  secrets: channelSecrets,
  fileSecrets: typeSecrets,
  knownTypes: CHANNEL_TYPES,
  dataFile: channelDataFile,
  typePointer: '/type',
  readData: (type, data) => (type === 'EmailUser' ? emailUserData(data) : data),
  hasPut: true,
  // E-mail recipients are a set; the service may reorder them.
  setPointers: (spec) => (spec.type === 'EmailUser' ? ['/data/channelProps/recipients'] : []),
  testable: true,
});

export const AlertChannel: Kind = {
  ...channels,
  // Routing: a destination; a disabled channel receives nothing.
  routing: {
    role: 'channel',
    read: (name, spec) => ({ role: 'channel', channel: { name, type: typeof spec.type === 'string' ? spec.type : '', enabled: toBoolean(spec.enabled) } }),
    health: integrationHealth,
  },
  // A file may also give e-mail recipients as one comma-separated string, as the service does.
  fromDocument: (doc) =>
    channels.fromDocument(doc.spec.type === 'EmailUser' && isObject(doc.spec.data) ? { ...doc, spec: { ...doc.spec, data: emailUserData(doc.spec.data) } } : doc),
};
