// Resource groups (api-facts.md "Resource groups"): sets of resources of one type that alert rules
// and report rules are limited to, named in those rules' `resourceGroups` (the engine resolves the
// names to GUIDs). The spec holds the query in canonical form (query.ts), so the filter names the
// service gives and the order it keeps children in make no diff. Every account has default groups
// (`isDefaultBoolean`): managed by the service, named by rules without being declared, never planned,
// exported only as the names rules give. Older records spell the name `resourceName`, the id `guid`,
// and may hold `props` instead of `query` (an object, or its JSON text as the real service returned
// some): such a `props` is carried as it is (never rewritten unless the file gives a query).

import type { Diagnostic } from '../../model/diagnostics.js';
import { isObject, type Json, type JsonObject } from '../../model/json.js';
import type { DesiredResource, LiveResource, ResourceDocument } from '../../model/resource.js';
import { apiPath, convertedEnvRefs, createdRecord, lastChangeOf, recordList, request, toBoolean, toFlag } from '../common.js';
import { MalformedBodyError } from '../../model/service-body.js';
import type { ExportedDocument, FetchContext, Kind, Locate } from '../types.js';
import { canonicalQuery, fromServiceQuery, serviceQueryProblems, toReadable, toServiceQuery } from './query.js';
import { SCHEMA_FILE, schemas } from './schema.js';

const COLLECTION = 'ResourceGroups';
const LIST_PATH = apiPath(COLLECTION);

/** The first non-empty string of `members` in `rec` (today's spelling first, then the older one). */
function stringOf(rec: JsonObject, members: readonly string[]): string | undefined {
  for (const m of members) if (typeof rec[m] === 'string' && rec[m] !== '') return rec[m] as string;
  return undefined;
}

function required(rec: JsonObject, members: readonly string[]): string {
  const value = stringOf(rec, members);
  if (value !== undefined) return value;
  throw new MalformedBodyError('record-without-identity', 'GET', LIST_PATH, `a record without ${members.join(' or ')}`);
}

const isDefault = (rec: JsonObject): boolean => rec.isDefaultBoolean === true || rec.isDefaultBoolean === 1 || rec.isDefaultBoolean === 'true';

/** Offline checks the schema cannot make: one query form, conditions with a field and values. */
function checkDocument(doc: JsonObject, at: Locate): Diagnostic[] {
  const out: Diagnostic[] = [];
  const query = isObject(doc.spec) ? doc.spec.query : undefined;
  const problem = (pointer: string, message: string, hint?: string): void => {
    out.push({
      severity: 'error',
      code: 'invalid-query',
      message: `ResourceGroup "${String(doc.name)}": ${message}`,
      ...at(`/spec/query${pointer}`),
      ...(hint ? { hint } : {}),
    });
  };
  if (isObject(doc.spec) && (query === undefined) === (doc.spec.props === undefined)) {
    out.push({
      severity: 'error',
      code: 'invalid-query',
      message: `ResourceGroup "${String(doc.name)}": give \`query\` (or, for an older group, its \`props\`), not ${query === undefined ? 'neither' : 'both'}`,
      ...at(query === undefined ? '/spec' : '/spec/props'),
    });
  }
  if (!isObject(query)) return out;
  const readable = ['all', 'any'].filter((m) => m in query);
  const service = ['filters', 'expression'].filter((m) => m in query);
  if (readable.length + (service.length > 0 ? 1 : 0) !== 1 || (service.length > 0 && service.length !== 2)) {
    problem(
      '',
      "query takes one form: `all:` or `any:` (readable), or both `filters` and `expression` (the service's)",
      'write `query: {all: [{field: Region, values: [eu-west-1]}]}`',
    );
    return out;
  }
  if (service.length === 2) {
    for (const p of serviceQueryProblems(query)) problem(p.pointer, p.message);
    return out;
  }
  const walk = (node: Json, pointer: string): void => {
    if (!isObject(node)) return;
    const nested = ['all', 'any'].filter((m) => m in node);
    const own = ['field', 'operation', 'key', 'values'].filter((m) => m in node);
    if (nested.length > 1 || (nested.length === 1 && own.length > 0)) {
      problem(pointer, 'an item is either a condition (field, operation, values, key) or one nested `all:` / `any:`');
      return;
    }
    if (nested.length === 1) {
      const items = node[nested[0]];
      if (Array.isArray(items)) items.forEach((c, i) => walk(c, `${pointer}/${nested[0]}/${i}`));
      return;
    }
    for (const m of ['field', 'values']) if (!(m in node)) problem(pointer, `a condition needs \`${m}\``);
  };
  walk(query, '');
  return out;
}

/**
 * An older group's `props`: an object, or (as the real service returned some) its JSON text, read as
 * the object it encodes so that a file may give either. Text that encodes no object stays text.
 */
function propsOf(value: Json | undefined): Json | undefined {
  if (isObject(value)) return value;
  if (typeof value !== 'string') return undefined;
  try {
    const parsed = JSON.parse(value) as Json;
    return isObject(parsed) ? parsed : value;
  } catch {
    return value;
  }
}

function specOf(rec: JsonObject): JsonObject {
  const spec: JsonObject = {
    resourceType: typeof rec.resourceType === 'string' ? rec.resourceType : '',
    description: typeof rec.description === 'string' ? rec.description : '',
    enabled: toBoolean(rec.enabled),
  };
  const query = isObject(rec.query) ? fromServiceQuery(rec.query) : undefined;
  const props = propsOf(rec.props);
  if (query !== undefined) spec.query = query;
  else if (props !== undefined) spec.props = props;
  return spec;
}

function body(desired: DesiredResource, members: readonly string[]): JsonObject {
  const s = desired.spec;
  const out: JsonObject = {};
  if (members.includes('name')) out.name = desired.name;
  if (members.includes('resourceType')) out.resourceType = s.resourceType as string;
  if (members.includes('description')) out.description = typeof s.description === 'string' ? s.description : '';
  if (members.includes('enabled')) out.enabled = toFlag(s.enabled);
  if (members.includes('query') && isObject(s.query)) out.query = toServiceQuery(s.query);
  if (members.includes('props') && s.props !== undefined) out.props = s.props;
  return out;
}

export const ResourceGroup: Kind = {
  kind: 'ResourceGroup',
  order: 15,
  documentKind: 'ResourceGroup',
  schema: SCHEMA_FILE,
  collection: COLLECTION,
  searchable: true,
  fromDocument(doc: ResourceDocument) {
    // The query is compared in canonical form: a value from ${env:...} would move with it.
    const diagnostics: Diagnostic[] = convertedEnvRefs(doc, ['/query', '/enabled', '/resourceType']);
    const spec: JsonObject = {
      resourceType: typeof doc.spec.resourceType === 'string' ? doc.spec.resourceType : '',
      description: typeof doc.spec.description === 'string' ? doc.spec.description : '',
      enabled: toBoolean(doc.spec.enabled),
    };
    const query = isObject(doc.spec.query) ? canonicalQuery(doc.spec.query) : undefined;
    const props = propsOf(doc.spec.props);
    if (query !== undefined) spec.query = query;
    else if (props !== undefined) spec.props = props;
    const resource: DesiredResource = { kind: 'ResourceGroup', account: doc.account, name: doc.name, spec, envRefs: { ...doc.envRefs }, source: doc.source };
    return { resources: [resource], diagnostics };
  },
  async list(ctx: FetchContext): Promise<LiveResource[]> {
    return recordList(await ctx.get(LIST_PATH), LIST_PATH).map((rec) => {
      const live: LiveResource = {
        kind: 'ResourceGroup',
        account: ctx.account,
        name: required(rec, ['name', 'resourceName']),
        id: required(rec, ['resourceGroupGuid', 'guid']),
        spec: specOf(rec),
      };
      // Default groups are the service's: rules name them, nobody changes or deletes them.
      if (isDefault(rec)) live.managedByService = true;
      const lastChange = lastChangeOf(rec.updatedBy ?? rec.createdBy, rec.updatedTime ?? rec.createdTime);
      if (lastChange) live.lastChange = lastChange;
      return live;
    });
  },
  createRequest(desired, _children, ctx) {
    return request(ctx, 'POST', LIST_PATH, body(desired, ['name', 'resourceType', 'description', 'enabled', 'query', 'props']));
  },
  createdId(created) {
    const id = createdRecord(created) === undefined ? undefined : stringOf(createdRecord(created)!, ['resourceGroupGuid', 'guid']);
    if (id !== undefined) return id;
    throw new MalformedBodyError('created-without-id', 'POST', LIST_PATH, 'created, but the answer carries no resourceGroupGuid');
  },
  updateRequests(id, desired, changed, ctx, options) {
    const members = [...changed, ...(options?.rename ? ['name'] : [])];
    const patch = body(desired, members);
    return Object.keys(patch).length === 0 ? [] : [request(ctx, 'PATCH', apiPath(COLLECTION, id), patch)];
  },
  deleteRequest: (id, ctx) => request(ctx, 'DELETE', apiPath(COLLECTION, id)),
  documents: {
    schemas,
    check: checkDocument,
  },
  lifecycle: {
    // Every account has default groups that rules name without declaring them.
    serviceDefaults: true,
  },
  compare: {
    // The service refuses to change a group's type.
    replaceOn: ['resourceType'],
  },
  rename: {
    inPlace: true,
  },
  export: {
    toDocument(live): ExportedDocument | null {
      if (live.managedByService) return null;
      const s = live.spec;
      const spec: JsonObject = { resourceType: s.resourceType as string };
      if (typeof s.description === 'string' && s.description !== '') spec.description = s.description;
      if (s.enabled === false) spec.enabled = false;
      if (isObject(s.query)) spec.query = toReadable(s.query);
      else if (s.props !== undefined) spec.props = s.props;
      return { kind: 'ResourceGroup', name: live.name, spec };
    },
  },
};
