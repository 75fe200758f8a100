// Data export rules (api-facts.md "Data export rules"): the account's data exported to S3 buckets,
// through AwsS3 alert channels named like a report rule's (Reference.only: another type is an error,
// declared or live). The record has the rules' layout: `mcGuid`, `filters` (name, description,
// enabled, profileVersions) and `intgGuidList`; its type is always `Dataexport`.

import { isObject, type JsonObject } from '../../model/json.js';
import type { DesiredResource, LiveResource, ResourceDocument } from '../../model/resource.js';
import { apiPath, canonicalSet, canonicalSets, CONSUMER_ROUTING, convertedEnvRefs, createdString, liveRule, recordList, request, rulePatch, stringList, toBoolean, toFlag } from '../common.js';
import type { ExportedDocument, FetchContext, Kind, RequestContext } from '../types.js';
import { SCHEMA_FILE, schemas } from './schema.js';
import { EXPORT_CHANNEL_TYPES } from './channels.js';

const COLLECTION = 'DataExportRules';
const LIST_PATH = apiPath(COLLECTION);
const EXPORT_TYPE = 'Dataexport';
const FILTER_MEMBERS = ['description', 'enabled', 'profileVersions'];

function filtersBody(desired: DesiredResource): JsonObject {
  const s = desired.spec;
  return {
    name: desired.name,
    description: typeof s.description === 'string' ? s.description : '',
    enabled: toFlag(s.enabled),
    // Where the rule has them: declared in the file, or carried from the live rule.
    ...(Array.isArray(s.profileVersions) ? { profileVersions: stringList(s.profileVersions) } : {}),
  };
}

const channelIds = (desired: DesiredResource, ctx: RequestContext): string[] => stringList(desired.spec.channels).map((n) => ctx.resolve('AlertChannel', n));

export const DataExportRule: Kind = {
  kind: 'DataExportRule',
  order: 27,
  documentKind: 'DataExportRule',
  schema: SCHEMA_FILE,
  references: [{ kind: 'AlertChannel', pointer: '/channels', only: { member: '/type', values: EXPORT_CHANNEL_TYPES } }],
  collection: COLLECTION,
  searchable: true,
  fromDocument(doc: ResourceDocument) {
    const sets = canonicalSets(doc.envRefs);
    const spec: JsonObject = {
      channels: sets.set('/channels', stringList(doc.spec.channels)),
      description: typeof doc.spec.description === 'string' ? doc.spec.description : '',
      enabled: toBoolean(doc.spec.enabled),
    };
    // Left out, the live rule keeps its own (compared only when declared: openMembers).
    if (Array.isArray(doc.spec.profileVersions)) spec.profileVersions = sets.set('/profileVersions', stringList(doc.spec.profileVersions));
    const resource: DesiredResource = { kind: 'DataExportRule', account: doc.account, name: doc.name, spec, envRefs: sets.envRefs(), source: doc.source };
    return { resources: [resource], diagnostics: convertedEnvRefs(doc, ['/enabled']) };
  },
  async list(ctx: FetchContext): Promise<LiveResource[]> {
    return recordList(await ctx.get(LIST_PATH), LIST_PATH).map((rec) => {
      const filters = isObject(rec.filters) ? rec.filters : {};
      const spec: JsonObject = {
        // Ids; the engine maps them to names through `references`.
        channels: canonicalSet(stringList(rec.intgGuidList), '', {}).items,
        description: typeof filters.description === 'string' ? filters.description : '',
        enabled: toBoolean(filters.enabled),
      };
      if (Array.isArray(filters.profileVersions)) spec.profileVersions = canonicalSet(stringList(filters.profileVersions), '', {}).items;
      return liveRule('DataExportRule', rec, filters, spec, ctx.account, LIST_PATH);
    });
  },
  createRequest: (desired, _children, ctx) => request(ctx, 'POST', LIST_PATH, { type: EXPORT_TYPE, intgGuidList: channelIds(desired, ctx), filters: filtersBody(desired) }),
  createdId: (body) => createdString(body, 'mcGuid', LIST_PATH),
  updateRequests: (id, desired, changed, ctx, options) =>
    rulePatch(apiPath(COLLECTION, id), changed, FILTER_MEMBERS, { filters: () => filtersBody(desired), channels: () => channelIds(desired, ctx) }, ctx, options?.rename),
  deleteRequest: (id, ctx) => request(ctx, 'DELETE', apiPath(COLLECTION, id)),
  // Routing: an export routes no alert, but a bucket an enabled export rule writes to is not idle.
  routing: CONSUMER_ROUTING,
  documents: {
    schemas,
  },
  compare: {
    setPointers: () => ['/channels', '/profileVersions'],
    // profileVersions is compared only when the file declares it; the others always are.
    openMembers: () => [''],
  },
  rename: {
    inPlace: true,
  },
  export: {
    toDocument(live): ExportedDocument {
      const s = live.spec;
      const spec: JsonObject = { channels: stringList(s.channels) };
      if (typeof s.description === 'string' && s.description !== '') spec.description = s.description;
      if (s.enabled === false) spec.enabled = false;
      if (Array.isArray(s.profileVersions) && s.profileVersions.length > 0) spec.profileVersions = s.profileVersions;
      return { kind: 'DataExportRule', name: live.name, spec };
    },
  },
};
