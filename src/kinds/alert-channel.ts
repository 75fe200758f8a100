// Alert channels: destinations of alerts. An integration record; the service can test one.

import { CHANNEL_SECRETS, type ChannelType, type SecretField } from './data.js';
import { integrationKind } from './integration.js';
import type { JsonObject } from '../model/json.js';
import type { Kind } from './types.js';

function channelSecrets(spec: JsonObject): SecretField[] {
  const type = spec.type;
  if (typeof type !== 'string' || !Object.hasOwn(CHANNEL_SECRETS, type)) return [];
  const secrets = CHANNEL_SECRETS[type as ChannelType];
  if (type !== 'Jira') return secrets;
  // Jira Cloud authenticates with apiToken, Jira Server with password: only one of them is in use.
  const data = spec.data as JsonObject | undefined;
  const unused = data?.jiraType === 'JIRA_CLOUD' ? 'password' : data?.jiraType === 'JIRA_SERVER' ? 'apiToken' : undefined;
  return secrets.filter((s) => s.path !== unused);
}

export const AlertChannel: Kind = integrationKind({
  kind: 'AlertChannel',
  documentKind: 'AlertChannel',
  schema: 'alert-channel.schema.json',
  collection: 'AlertChannels',
  secrets: channelSecrets,
  hasPut: true,
  // E-mail recipients are a set; the service may reorder them.
  setPointers: (spec) => (spec.type === 'EmailUser' ? ['/data/channelProps/recipients'] : []),
  testable: true,
});
