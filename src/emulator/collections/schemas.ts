// /api/v2/schemas: the type names, the fields of a type (every record type served, the activity
// records too), and the emulator's own request schemas per subtype (e.g. AlertChannels/SlackChannel).
// Bare arrays, as the seed shows for these endpoints.

import { CHANNEL_TYPES, CLOUD_ACCOUNT_TYPES, REGISTRY_INTEGRATION_TYPE, REGISTRY_TYPES } from '../spellings.js';
import { notFound, type Handler } from '../http.js';
import {
  AGENT_TOKEN_CREATE,
  channelSchema,
  cloudAccountSchema,
  PROFILE_CREATE,
  REGISTRY_BASE,
  registrySchema,
  RULE_CREATE,
  TEMPLATE,
} from '../request-schemas.js';
import { RECORD_TYPES } from '../record-types.js';
import type { Route } from '../router.js';
import type { Schema } from '../validation.js';

/** Request schemas per subtype of the record types that take writes; the others have none. */
const SUBTYPES: Record<string, () => Record<string, Schema>> = {
  AgentAccessTokens: () => ({ AgentAccessToken: AGENT_TOKEN_CREATE }),
  AlertChannels: () => Object.fromEntries(CHANNEL_TYPES.map((t) => [t, channelSchema(t)])),
  AlertProfiles: () => ({ AlertProfile: PROFILE_CREATE, AlertTemplate: TEMPLATE }),
  AlertRules: () => ({ Event: RULE_CREATE }),
  CloudAccounts: () => Object.fromEntries(CLOUD_ACCOUNT_TYPES.map((t) => [t, cloudAccountSchema(t)])),
  ContainerRegistries: () => ({
    [REGISTRY_INTEGRATION_TYPE]: REGISTRY_BASE,
    ...Object.fromEntries(REGISTRY_TYPES.map((t) => [t, registrySchema(t)])),
  }),
};

/** Exact name first, then any case. */
function lookup<T>(table: Record<string, T>, name: string): [string, T] | undefined {
  const key = name in table ? name : Object.keys(table).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : [key, table[key]];
}

const names: Handler = () => ({ status: 200, body: Object.keys(RECORD_TYPES) });

const fieldsOf: Handler = (ctx) => {
  const found = lookup(RECORD_TYPES, ctx.params.type);
  if (found === undefined) throw notFound();
  return { status: 200, body: found[1] };
};

const subtype: Handler = (ctx) => {
  const type = lookup(RECORD_TYPES, ctx.params.type);
  const sub = type && lookup(SUBTYPES[type[0]]?.() ?? {}, ctx.params.subtype);
  if (type === undefined || sub === undefined) throw notFound();
  return { status: 200, body: [{ title: `${type[0]}/${sub[0]}`, ...sub[1] }] };
};

const FIELD: Schema = { type: 'object', required: ['name', 'type'], properties: { name: { type: 'string' }, type: { type: 'string' } } };

export const schemaRoutes = (): Route[] => [
  {
    pattern: 'schemas',
    methods: { GET: names },
    docs: { GET: { summary: 'The names of the schema types', response: { kind: 'schema', schema: { type: 'array', items: { type: 'string' } } } } },
  },
  {
    pattern: 'schemas/:type',
    methods: { GET: fieldsOf },
    docs: { GET: { summary: 'The fields of a type, as {name, type}', response: { kind: 'schema', schema: { type: 'array', items: FIELD } } } },
  },
  {
    pattern: 'schemas/:type/:subtype',
    methods: { GET: subtype },
    docs: {
      GET: {
        summary: 'The request schema of a subtype (e.g. AlertChannels/SlackChannel)',
        response: { kind: 'schema', schema: { type: 'array', items: { type: 'object', additionalProperties: true } } },
      },
    },
  },
];
