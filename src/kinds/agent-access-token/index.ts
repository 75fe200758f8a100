// Agent access tokens: the credentials workload agents connect with (seed 001). Identity is the
// alias; the service's id is the token value itself, a credential, so plans and renderings carry a
// stand-in id (a digest) and apply finds the real one afresh. Tokens cannot be deleted: delete
// disables. The list shows enabled tokens only, so a declared disabled token that is not listed is
// as declared. The issued value is handed out through the engine's one credential hook.
//
// Decided: a declared enabled token whose alias only a disabled live token has is created anew. The
// service lists enabled tokens only and looks tokens up by value, so a disabled token cannot be
// found by alias to be re-enabled; the new token's value is issued like any other.

import { createHash } from 'node:crypto';
import { isObject, type JsonObject } from '../../model/json.js';
import type { DesiredResource, LiveResource, ResourceDocument } from '../../model/resource.js';
import { apiPath, convertedEnvRefs, createdRecord, createdString, recordList, request, requireString, toBoolean } from '../common.js';
import type { ExportedDocument, FetchContext, Kind, RequestContext } from '../types.js';
import { SCHEMA_FILE, schemas } from './schema.js';

const COLLECTION = 'AgentAccessTokens';
const LIST_PATH = apiPath(COLLECTION);
/** The only `tokenEnabled` value the seed gives meaning to; anything else is taken as disabled. */
const ENABLED = '1';
const DISABLED = '0';

/** A stable id that names a token without holding its value. */
export function standInId(accessToken: string): string {
  return 'token-' + createHash('sha256').update(accessToken).digest('hex').slice(0, 16);
}

function specOf(rec: JsonObject): JsonObject {
  const props = isObject(rec.props) ? rec.props : {};
  const spec: JsonObject = { enabled: rec.tokenEnabled === ENABLED, description: typeof props.description === 'string' ? props.description : '' };
  if (typeof props.os === 'string') spec.os = props.os;
  return spec;
}

/** `props` of a request: the description and, where the spec has one, the agents' operating system. */
function propsOf(spec: JsonObject): JsonObject {
  const props: JsonObject = { description: typeof spec.description === 'string' ? spec.description : '' };
  if (typeof spec.os === 'string') props.os = spec.os;
  return props;
}

/** The engine marks the id as a credential for the client (Kind.secretIds), so no log shows it. */
function patch(id: string, ctx: RequestContext, body: JsonObject) {
  return request(ctx, 'PATCH', apiPath(COLLECTION, id), body);
}

export const AgentAccessToken: Kind = {
  kind: 'AgentAccessToken',
  order: 70,
  documentKind: 'AgentAccessToken',
  schema: SCHEMA_FILE,
  collection: COLLECTION,
  searchable: true,
  fromDocument(doc: ResourceDocument) {
    const spec: JsonObject = {
      enabled: toBoolean(doc.spec.enabled),
      description: typeof doc.spec.description === 'string' ? doc.spec.description : '',
    };
    if (typeof doc.spec.os === 'string') spec.os = doc.spec.os;
    const resource: DesiredResource = { kind: 'AgentAccessToken', account: doc.account, name: doc.name, spec, envRefs: { ...doc.envRefs }, source: doc.source };
    return { resources: [resource], diagnostics: convertedEnvRefs(doc, ['/enabled']) };
  },
  async list(ctx: FetchContext): Promise<LiveResource[]> {
    return recordList(await ctx.get(LIST_PATH), LIST_PATH).map((rec) => {
      const value = requireString(rec, 'accessToken', LIST_PATH);
      return {
        kind: 'AgentAccessToken',
        account: ctx.account,
        name: requireString(rec, 'tokenAlias', LIST_PATH),
        id: standInId(value),
        serviceId: value,
        spec: specOf(rec),
      };
    });
  },
  createRequest(desired, _children, ctx) {
    const body: JsonObject = { tokenAlias: desired.name, tokenEnabled: desired.spec.enabled === false ? DISABLED : ENABLED };
    if ((typeof desired.spec.description === 'string' && desired.spec.description !== '') || typeof desired.spec.os === 'string') body.props = propsOf(desired.spec);
    return request(ctx, 'POST', LIST_PATH, body);
  },
  createdId: (body) => standInId(createdString(body, 'accessToken', LIST_PATH)),
  updateRequests(id, desired, changed, ctx) {
    const body: JsonObject = {};
    if (changed.includes('enabled')) body.tokenEnabled = desired.spec.enabled === false ? DISABLED : ENABLED;
    if (changed.includes('description') || changed.includes('os')) body.props = propsOf(desired.spec);
    return Object.keys(body).length === 0 ? [] : [patch(id, ctx, body)];
  },
  deleteRequest: (id, ctx) => patch(id, ctx, { tokenEnabled: DISABLED }),
  documents: {
    schemas,
  },
  compare: {
    // `os` is compared only where a file declares it; the live one is carried otherwise.
    openMembers: () => [''],
  },
  rename: {
    inPlace: false,
    refusal: "an agent access token's alias cannot be changed: the service has no request that renames a token",
  },
  credentials: {
    secretIds: true,
    issuedNote:
      'the service issues its value on create: `apply --credentials-out FILE` keeps it in FILE (JSON keyed by account/AgentAccessToken/name, mode 0600), the GitHub Action in its masked output `credentials`; without either it is not kept. Later: GET /api/v2/AgentAccessTokens lists each token with its accessToken, the value, which is also its id (GET /api/v2/AgentAccessTokens/{id})',
    issuedCredential(body) {
      const value = createdRecord(body)?.accessToken;
      return typeof value === 'string' && value !== '' ? value : undefined;
    },
  },
  lifecycle: {
    deleteMeans: 'disabled: agent access tokens cannot be deleted',
    // The list shows enabled tokens only: a disabled one is absent when it is as declared.
    unlisted: (desired) => desired.spec.enabled === false,
  },
  export: {
    toDocument(live): ExportedDocument {
      const spec: JsonObject = {};
      if (live.spec.enabled === false) spec.enabled = false;
      if (typeof live.spec.description === 'string' && live.spec.description !== '') spec.description = live.spec.description;
      if (typeof live.spec.os === 'string') spec.os = live.spec.os;
      return { kind: 'AgentAccessToken', name: live.name, spec };
    },
  },
};
