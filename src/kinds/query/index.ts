// Queries (api-facts.md "Queries"): the texts custom policies evaluate. The name is the queryId,
// chosen by the user and never changed; the text is compared verbatim (the service keeps every
// space). The display name, description and legacy evaluatorId are optional: left out of a file,
// the live values are kept (Kind.openMembers over the whole spec). The text's shape is checked
// offline as warnings (text.ts); plan asks the service's `POST /Queries/validate` about every query
// it creates or changes (Kind.serviceCheck, counted in the pre-flight). The service's own queries
// carry the predefined prefix: named by policies, never planned, pruned or exported.

import type { Diagnostic } from '../../model/diagnostics.js';
import { isObject, type JsonObject } from '../../model/json.js';
import type { DesiredResource, LiveResource, ResourceDocument } from '../../model/resource.js';
import { predefinedPrefix } from '../alert-profile/ids.js';
import { apiPath, lastChangeOf, recordList, request, requireString } from '../common.js';
import type { ExportedDocument, FetchContext, Kind, KindSettings, Locate } from '../types.js';
import { SCHEMA_FILE, schemas } from './schema.js';
import { queryTextFindings } from './text.js';

export const QUERIES_COLLECTION = 'Queries';
const LIST_PATH = apiPath(QUERIES_COLLECTION);
const VALIDATE_PATH = apiPath(QUERIES_COLLECTION, 'validate');
/** What the service's ids hold (api-facts.md: `-`, `_`, `.` besides letters and digits). */
const ID = /^[A-Za-z0-9_.-]+$/;
/** Optional spec members and the service's names for them. */
const OPTIONAL: Readonly<Record<string, string>> = { name: 'queryName', description: 'description', evaluatorId: 'evaluatorId' };

function checkDocument(doc: JsonObject, at: Locate, settings?: KindSettings): Diagnostic[] {
  const out: Diagnostic[] = [];
  const name = typeof doc.name === 'string' ? doc.name : '';
  const prefix = predefinedPrefix(settings);
  if (name !== '' && !ID.test(name)) {
    out.push({
      severity: 'error',
      code: 'invalid-name',
      message: `Query "${name}": a Query's name is its queryId, which holds letters, digits, \`-\`, \`_\` and \`.\` only`,
      ...at('/name'),
      hint: 'e.g. TrailDeleted or custom_s3-public',
    });
  } else if (name.startsWith(prefix)) {
    out.push({
      severity: 'error',
      code: 'query-reserved-id',
      message: `Query "${name}": ids starting with ${prefix} are the service's predefined queries`,
      ...at('/name'),
      hint: 'name a predefined query in a Policy without declaring it; give your own query another name',
    });
  }
  const text = isObject(doc.spec) ? doc.spec.text : undefined;
  if (typeof text === 'string') {
    for (const f of queryTextFindings(text)) {
      out.push({
        severity: 'warning',
        code: 'query-text-shape',
        message: `Query "${name}": line ${f.line} of the text: ${f.message}`,
        ...at('/spec/text'),
        hint: 'plan asks the service to validate the text; apply would be refused if it does not parse',
      });
    }
  }
  return out;
}

function specOf(rec: JsonObject): JsonObject {
  const spec: JsonObject = { text: typeof rec.queryText === 'string' ? rec.queryText : '' };
  for (const [member, field] of Object.entries(OPTIONAL)) if (typeof rec[field] === 'string') spec[member] = rec[field];
  return spec;
}

function body(desired: DesiredResource, members: readonly string[]): JsonObject {
  const out: JsonObject = {};
  if (members.includes('text')) out.queryText = desired.spec.text as string;
  for (const [member, field] of Object.entries(OPTIONAL)) if (members.includes(member) && typeof desired.spec[member] === 'string') out[field] = desired.spec[member];
  return out;
}

export const Query: Kind = {
  kind: 'Query',
  order: 42,
  documentKind: 'Query',
  schema: SCHEMA_FILE,
  collection: QUERIES_COLLECTION,
  fromDocument(doc: ResourceDocument) {
    const spec: JsonObject = { text: typeof doc.spec.text === 'string' ? doc.spec.text : '' };
    for (const member of Object.keys(OPTIONAL)) if (typeof doc.spec[member] === 'string') spec[member] = doc.spec[member];
    const resource: DesiredResource = { kind: 'Query', account: doc.account, name: doc.name, spec, envRefs: { ...doc.envRefs }, source: doc.source };
    return { resources: [resource], diagnostics: [] };
  },
  async list(ctx: FetchContext): Promise<LiveResource[]> {
    const prefix = predefinedPrefix(ctx.settings);
    return recordList(await ctx.get(LIST_PATH), LIST_PATH).map((rec) => {
      const id = requireString(rec, 'queryId', LIST_PATH);
      const live: LiveResource = { kind: 'Query', account: ctx.account, name: id, id, spec: specOf(rec) };
      if (id.startsWith(prefix)) live.managedByService = true;
      const lastChange = lastChangeOf(rec.lastUpdateUser, rec.lastUpdateTime);
      if (lastChange) live.lastChange = lastChange;
      return live;
    });
  },
  createRequest(desired, _children, ctx) {
    return request(ctx, 'POST', LIST_PATH, { queryId: desired.name, ...body(desired, Object.keys(desired.spec)) });
  },
  // The client chooses the id.
  createdId: (_body, desired) => desired.name,
  updateRequests(id, desired, changed, ctx) {
    const patch = body(desired, changed);
    return Object.keys(patch).length === 0 ? [] : [request(ctx, 'PATCH', apiPath(QUERIES_COLLECTION, id), patch)];
  },
  deleteRequest: (id, ctx) => request(ctx, 'DELETE', apiPath(QUERIES_COLLECTION, id)),
  documents: {
    schemas,
    check: checkDocument,
  },
  lifecycle: {
    // Every account has the service's predefined queries, which policies name without declaring them.
    serviceDefaults: true,
  },
  compare: {
    // The service refuses to change an older query's evaluator (api-facts.md).
    replaceOn: ['evaluatorId'],
    // Optional members a file leaves out keep their live values.
    openMembers: () => [''],
  },
  rename: {
    inPlace: false,
    refusal: "a query's name is its queryId, which the service cannot change",
  },
  serviceCheck: {
    request: (desired, ctx) => request(ctx, 'POST', VALIDATE_PATH, { queryText: desired.spec.text }),
    verdict: ({ status, message }) => (status >= 400 ? (message ?? `the text was refused (${status})`) : undefined),
  },
  export: {
    toDocument(live): ExportedDocument | null {
      if (live.managedByService) return null;
      const spec: JsonObject = {};
      for (const member of ['name', 'description', 'evaluatorId']) if (typeof live.spec[member] === 'string' && live.spec[member] !== '') spec[member] = live.spec[member];
      spec.text = live.spec.text ?? '';
      return { kind: 'Query', name: live.name, spec };
    },
  },
};
