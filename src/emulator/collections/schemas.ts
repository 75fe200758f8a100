// /api/v2/schemas: the type names, the fields of a type, and the emulator's own request schemas
// per subtype (e.g. AlertChannels/SlackChannel). Bare arrays, as the seed shows for these endpoints.

import { CHANNEL_TYPES, CLOUD_ACCOUNT_TYPES, REGISTRY_INTEGRATION_TYPE, REGISTRY_TYPES } from '../../kinds/spellings.js';
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
import type { Route } from '../router.js';
import type { Schema } from '../validation.js';

type Field = { name: string; type: string };
const f = (spec: string): Field[] =>
  spec.split(' ').map((pair) => {
    const [name, type] = pair.split(':');
    return { name, type };
  });

const INTEGRATION_FIELDS = f(
  'name:string type:string enabled:number data:object intgGuid:string createdOrUpdatedBy:string createdOrUpdatedTime:string isOrg:number props:object state:object',
);

interface SchemaType {
  fields: Field[];
  subtypes: () => Record<string, Schema>;
}

const TYPES: Record<string, SchemaType> = {
  AgentAccessTokens: {
    fields: f('accessToken:string createdTime:string props:object tokenAlias:string tokenEnabled:string version:string'),
    subtypes: () => ({ AgentAccessToken: AGENT_TOKEN_CREATE }),
  },
  AlertChannels: {
    fields: INTEGRATION_FIELDS,
    subtypes: () => Object.fromEntries(CHANNEL_TYPES.map((t) => [t, channelSchema(t)])),
  },
  AlertProfiles: {
    fields: f('alertProfileId:string extends:string fields:array descriptionKeys:array alerts:array'),
    subtypes: () => ({ AlertProfile: PROFILE_CREATE, AlertTemplate: TEMPLATE }),
  },
  AlertRules: {
    fields: f('mcGuid:string type:string intgGuidList:array filters:object'),
    subtypes: () => ({ Event: RULE_CREATE }),
  },
  AuditLogs: {
    fields: f('accountName:string createdTime:integer eventDescription:string eventName:string userAction:string userName:string'),
    subtypes: () => ({}),
  },
  CloudAccounts: {
    fields: INTEGRATION_FIELDS,
    subtypes: () => Object.fromEntries(CLOUD_ACCOUNT_TYPES.map((t) => [t, cloudAccountSchema(t)])),
  },
  ContainerRegistries: {
    fields: INTEGRATION_FIELDS,
    subtypes: () => ({
      [REGISTRY_INTEGRATION_TYPE]: REGISTRY_BASE,
      ...Object.fromEntries(REGISTRY_TYPES.map((t) => [t, registrySchema(t)])),
    }),
  },
};

/** Exact name first, then any case. */
function lookup<T>(table: Record<string, T>, name: string): [string, T] | undefined {
  const key = name in table ? name : Object.keys(table).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : [key, table[key]];
}

const names: Handler = () => ({ status: 200, body: Object.keys(TYPES) });

const fieldsOf: Handler = (ctx) => {
  const found = lookup(TYPES, ctx.params.type);
  if (found === undefined) throw notFound();
  return { status: 200, body: found[1].fields };
};

const subtype: Handler = (ctx) => {
  const type = lookup(TYPES, ctx.params.type);
  const sub = type && lookup(type[1].subtypes(), ctx.params.subtype);
  if (type === undefined || sub === undefined) throw notFound();
  return { status: 200, body: [{ title: `${type[0]}/${sub[0]}`, ...sub[1] }] };
};

export const schemaRoutes = (): Route[] => [
  { pattern: 'schemas', methods: { GET: names } },
  { pattern: 'schemas/:type', methods: { GET: fieldsOf } },
  { pattern: 'schemas/:type/:subtype', methods: { GET: subtype } },
];
