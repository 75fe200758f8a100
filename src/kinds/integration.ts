// Alert channels, cloud accounts and container registries are one shape in the service: an
// integration record {name, type, enabled 0|1, data} with a server-assigned intgGuid. This module
// builds their Kind from the few facts in which they differ.

import { getAt, removeAt, setAt } from '../model/json-pointer.js';
import { apiPath, clone, convertedEnvRefs, createdString, lastChangeOf, recordList, request, requireString, toBoolean, toFlag } from './common.js';
import { isObject, jsonEqual, type JsonObject } from '../model/json.js';
import { dataPointer, type SecretField } from './secret-fields.js';
import type { SchemaObject } from './schema-parts.js';
import type { DesiredResource, LiveResource, ResourceDocument } from '../model/resource.js';
import type { ExportedDocument, FetchContext, Kind, RequestContext, UpdateOptions } from './types.js';

export interface IntegrationOptions {
  kind: string;
  order: number;
  documentKind: string;
  schema: string;
  /** The kind's JSON Schemas (its document and per-type data schemas). */
  schemas(): Record<string, SchemaObject>;
  /** Collection segment of the API paths, e.g. `AlertChannels`. */
  collection: string;
  /** Secret members of `data` this spec uses (by its type). */
  secrets(spec: JsonObject): SecretField[];
  /** Secret members of `data` a file may hold for this spec, used or not; default: `secrets`. */
  fileSecrets?(spec: JsonObject): SecretField[];
  /** The only `type` the service knows for this kind (registries); documents may leave it out. */
  fixedType?: string;
  /**
   * Where a spec names its type: `/type`, or `/data/registryType` for registries. A type the kind's
   * schema does not know is carried as it is (the schema declares the type a closed set: a misspelt
   * one is refused, a new one is a warning).
   */
  typePointer: '/type' | '/data/registryType';
  /** Members the service accepts and never returns (Kind.unreturned), as spec pointers (`/data/...`). */
  unreturned?(spec: JsonObject): string[];
  /** Live `data` in the shape files use (a spelling the service also answers with, read as ours). */
  readData?(type: string, data: JsonObject): JsonObject;
  /** Members the service fills into `data` when a request leaves them out. */
  dataDefaults?: JsonObject;
  /** A change of `type` is sent as PUT with the full object; without PUT it goes in a PATCH. */
  hasPut: boolean;
  /** Lists inside `data` the service may reorder. */
  setPointers?(spec: JsonObject): string[];
  /** The service can send a test notification (alert channels). */
  testable?: boolean;
}

const MEMBERS = ['type', 'enabled', 'data'] as const;

export function integrationKind(opts: IntegrationOptions): Kind {
  const listPath = apiPath(opts.collection);
  const defaults = opts.dataDefaults ?? {};
  const pointers = (spec: JsonObject, writeOnly: boolean) =>
    opts.secrets(spec).filter((s) => s.writeOnly === writeOnly).map((s) => dataPointer(s.path));
  const withDefaults = (data: JsonObject): JsonObject => ({ ...clone(defaults), ...data });

  const fullBody = (desired: DesiredResource): JsonObject => ({
    name: desired.name,
    type: desired.spec.type,
    enabled: toFlag(desired.spec.enabled),
    data: desired.spec.data,
  });

  const typeOf = (spec: JsonObject): string | undefined => {
    const t = getAt(spec, opts.typePointer);
    return typeof t === 'string' ? t : undefined;
  };

  const kind: Kind = {
    kind: opts.kind,
    order: opts.order,
    documentKind: opts.documentKind,
    schema: opts.schema,
    schemas: opts.schemas,
    references: [],
    replaceOn: [],
    collection: opts.collection,
    // Alert channels, cloud accounts and container registries all have `POST .../search`.
    searchable: true,

    setPointers: (spec) => opts.setPointers?.(spec) ?? [],
    // `data` is replaced whole by an update: the file names what it manages, the rest is carried.
    // Not across a change of type: the other type's members mean nothing to the new one.
    openMembers: (desired, live) => (desired.type === live.type && typeOf(desired) === typeOf(live) ? ['/data'] : []),
    writeOnly: (spec) => pointers(spec, true),
    ...(opts.unreturned ? { unreturned: opts.unreturned } : {}),
    sensitive: (spec) => pointers(spec, false),
    secretMembers: (spec) =>
      (opts.fileSecrets ?? opts.secrets)(spec).map((s) => ({ pointer: dataPointer(s.path), writeOnly: s.writeOnly })),

    fromDocument(doc: ResourceDocument) {
      const data = isObject(doc.spec.data) ? clone(doc.spec.data) : {};
      const spec: JsonObject = {
        type: opts.fixedType ?? (typeof doc.spec.type === 'string' ? doc.spec.type : ''),
        enabled: toBoolean(doc.spec.enabled),
        data: withDefaults(data),
      };
      const resource: DesiredResource = {
        kind: opts.kind,
        account: doc.account,
        name: doc.name,
        spec,
        envRefs: { ...doc.envRefs },
        source: doc.source,
      };
      return { resources: [resource], diagnostics: convertedEnvRefs(doc, ['/enabled']) };
    },

    async list(ctx: FetchContext): Promise<LiveResource[]> {
      return recordList(await ctx.get(listPath), listPath).map((rec) => {
        const type = typeof rec.type === 'string' ? rec.type : (opts.fixedType ?? '');
        const data = isObject(rec.data) ? clone(rec.data) : {};
        let spec: JsonObject = { type, enabled: toBoolean(rec.enabled), data: {} };
        spec.data = withDefaults(opts.readData ? opts.readData(typeOf({ ...spec, data }) ?? '', data) : data);
        // Write-only secrets come back masked ("" or left out): never compared, so not kept.
        for (const ptr of kind.writeOnly(spec)) spec = removeAt(spec, ptr);
        const live: LiveResource = {
          kind: opts.kind,
          account: ctx.account,
          name: requireString(rec, 'name', listPath),
          id: requireString(rec, 'intgGuid', listPath),
          spec,
        };
        const lastChange = lastChangeOf(rec.createdOrUpdatedBy, rec.createdOrUpdatedTime);
        if (lastChange) live.lastChange = lastChange;
        // `state` is the service's report, of any shape (api-facts.md): kept only when it says ok or not.
        const state = rec.state;
        if (isObject(state) && typeof state.ok === 'boolean') {
          live.info = { ok: state.ok, ...(state.lastSuccessfulTime !== undefined ? { lastSuccessfulTime: state.lastSuccessfulTime } : {}) };
        }
        return live;
      });
    },

    createRequest(desired: DesiredResource, _children: DesiredResource[], ctx: RequestContext) {
      return request(ctx, 'POST', listPath, fullBody(desired));
    },

    createdId: (body) => createdString(body, 'intgGuid', listPath),

    renamable: true,
    updateRequests(id: string, desired: DesiredResource, changed: string[], ctx: RequestContext, options?: UpdateOptions) {
      const members = MEMBERS.filter((m) => changed.includes(m));
      if (members.length === 0 && !options?.rename) return [];
      const path = apiPath(opts.collection, id);
      if (members.includes('type') && opts.hasPut) return [request(ctx, 'PUT', path, fullBody(desired))];
      // PATCH replaces each member it carries: a changed `data` goes whole, write-only secrets included.
      const body: JsonObject = options?.rename ? { name: desired.name } : {};
      for (const m of members) body[m] = m === 'enabled' ? toFlag(desired.spec.enabled) : desired.spec[m];
      return [request(ctx, 'PATCH', path, body)];
    },

    deleteRequest: (id, ctx) => request(ctx, 'DELETE', apiPath(opts.collection, id)),

    toDocument(live: LiveResource): ExportedDocument | null {
      let data: JsonObject = {};
      for (const [key, value] of Object.entries(isObject(live.spec.data) ? live.spec.data : {})) {
        if (!(key in defaults && jsonEqual(value, defaults[key]))) data[key] = clone(value);
      }
      // Export replaces every secret pointer by an env reference; a masked one must be there to be
      // replaced, and so must a member the service never returns.
      for (const ptr of [...kind.writeOnly(live.spec), ...(kind.unreturned?.(live.spec) ?? [])]) {
        if (getAt({ data }, ptr) === undefined) data = setAt({ data }, ptr, '').data as JsonObject;
      }
      const spec: JsonObject = {};
      if (opts.fixedType === undefined || live.spec.type !== opts.fixedType) spec.type = live.spec.type;
      if (live.spec.enabled === false) spec.enabled = false;
      spec.data = data;
      return { kind: opts.documentKind, name: live.name, spec };
    },
  };
  if (opts.testable) {
    kind.testRequest = (id, ctx) => request(ctx, 'POST', apiPath(opts.collection, id, 'test'));
  }
  return kind;
}
