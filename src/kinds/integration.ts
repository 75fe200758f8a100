// Alert channels, cloud accounts and container registries are one shape in the service: an
// integration record {name, type, enabled 0|1, data} with a server-assigned intgGuid. This module
// builds their Kind from the few facts in which they differ.

import type { Diagnostic } from '../model/diagnostics.js';
import { Redactor } from '../model/masking.js';
import type { ChannelHealth } from '../model/routing.js';
import { getAt, removeAt, setAt } from '../model/json-pointer.js';
import { apiPath, clone, convertedEnvRefs, createdString, lastChangeOf, recordList, request, requireString, toBoolean, toFlag } from './common.js';
import { isObject, jsonEqual, type JsonObject } from '../model/json.js';
import { dataPointer, type SecretField } from './secret-fields.js';
import { emptyPointers, isMaskedValue, maskedPointers, secretNamePointers, WITHHELD } from '../model/secret-detection.js';
import type { SchemaObject } from './schema-parts.js';
import type { DesiredResource, LiveResource, ResourceDocument } from '../model/resource.js';
import type { ExportedDocument, FetchContext, Kind, RequestContext, SecretMember, UpdateOptions } from './types.js';

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
   * The types whose `data` this version knows (strict schemas, secrets from the kind's tables), and
   * where a spec names its type: `/type`, or `/data/registryType` for registries. Any other type is
   * carried as it is (the schema declares the type a closed set: a misspelt one is refused, a new
   * one is a warning) and its secrets are detected by name.
   */
  knownTypes: readonly string[];
  typePointer: '/type' | '/data/registryType';
  /** The schema file (a key of `schemas()`) of a known type's `data`. */
  dataFile(type: string): string;
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

/** Longest `details` text kept from a state (the service's words, untrusted: no unbounded growth). */
export const DETAILS_MAX = 300;

/**
 * A state's `details` as one line of text (a string, `{message}`, or any other object as JSON), the
 * record's own secrets masked and cut to DETAILS_MAX; undefined when it says nothing.
 */
export function detailsText(details: unknown, secrets: readonly string[]): string | undefined {
  let text: string;
  if (typeof details === 'string') text = details;
  else if (isObject(details) && typeof details.message === 'string') text = details.message;
  else if (isObject(details) && Object.keys(details).length > 0) text = JSON.stringify(details).slice(0, 4 * DETAILS_MAX);
  else return undefined;
  const masked = new Redactor({ mask: WITHHELD }, secrets).redact(text.slice(0, 64 * DETAILS_MAX)).replace(/\s+/g, ' ').trim();
  if (masked === '') return undefined;
  return masked.length > DETAILS_MAX ? `${masked.slice(0, DETAILS_MAX - 1)}…` : masked;
}

/**
 * A channel's health from its live `info` (the state as list() kept it): a channel that never
 * succeeded (lastSuccessfulTime 0 or unreadable) is unknown, not failing (issue 35).
 */
export function integrationHealth(info: JsonObject | undefined): ChannelHealth {
  if (!info || typeof info.ok !== 'boolean') return { state: 'unknown', reason: 'the service reports no state' };
  const raw = info.lastSuccessfulTime;
  const last = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : 0;
  if (!(last > 0)) return { state: 'unknown', reason: 'never succeeded' };
  if (info.ok) return { state: 'healthy', lastSuccess: last };
  return { state: 'failing', lastSuccess: last, ...(typeof info.details === 'string' ? { detail: info.details } : {}) };
}

/**
 * Whether the schema lists the member at `segments` (pointer segments below `data`): every segment a
 * listed member, until an object the schema does not describe member by member (its members are the
 * service's, listed as a whole).
 */
function listedIn(schema: SchemaObject | undefined, segments: readonly string[]): boolean {
  let node = schema;
  for (const raw of segments) {
    if (node === undefined) return false;
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(seg) && typeof node.items === 'object') {
      node = node.items as SchemaObject;
      continue;
    }
    const props = node.properties as Record<string, SchemaObject> | undefined;
    if (props === undefined) return true;
    if (!Object.hasOwn(props, seg)) return false;
    node = props[seg];
  }
  return true;
}

export function integrationKind(opts: IntegrationOptions): Kind {
  const listPath = apiPath(opts.collection);
  const defaults = opts.dataDefaults ?? {};
  const pointers = (spec: JsonObject, writeOnly: boolean) =>
    opts
      .secrets(spec)
      .filter((s) => s.writeOnly === writeOnly)
      .map((s) => dataPointer(s.path));
  const isKnown = (spec: JsonObject): boolean => {
    const t = typeOf(spec);
    // Stryker disable next-line ConditionalExpression: knownTypes holds strings only, so includes(undefined) is false as well
    return t !== undefined && opts.knownTypes.includes(t);
  };
  // Secrets no table names: every member named as a secret that the type's schema does not list (in
  // a type this version does not know, any); in any type, every member the service shows masked.
  // All are treated as write-only.
  let dataSchemas: Record<string, SchemaObject> | undefined;
  const listed = (spec: JsonObject, pointer: string): boolean => {
    const type = typeOf(spec);
    if (type === undefined || !opts.knownTypes.includes(type)) return false;
    dataSchemas ??= opts.schemas();
    return listedIn(dataSchemas[opts.dataFile(type)], pointer.split('/').slice(2));
  };
  const detected = (spec: JsonObject): string[] => [
    ...new Set([...maskedPointers(spec.data, '/data'), ...secretNamePointers(spec.data, '/data').filter((p) => !listed(spec, p))]),
  ];
  const unique = (items: string[]): string[] => [...new Set(items)];
  const writeOnlyOf = (spec: JsonObject, found: readonly string[]): string[] => unique([...pointers(spec, true), ...found]);
  const membersOf = (spec: JsonObject, found: readonly string[]): SecretMember[] => {
    const declared = (opts.fileSecrets ?? opts.secrets)(spec).map((s) => ({ pointer: dataPointer(s.path), writeOnly: s.writeOnly }));
    const named = new Set(declared.map((m) => m.pointer));
    return [...declared, ...found.filter((p) => !named.has(p)).map((pointer) => ({ pointer, writeOnly: true }))];
  };
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
    references: [],
    collection: opts.collection,
    // Alert channels, cloud accounts and container registries all have `POST .../search`.
    searchable: true,
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
        // What a state's details may echo: the record's secrets, as they came back, before they go.
        const held = unique([...pointers(spec, true), ...pointers(spec, false), ...detected(spec)])
          .map((ptr) => getAt(spec, ptr))
          .filter((v): v is string => typeof v === 'string');
        // Write-only secrets come back masked ("" or left out): never compared, so not kept.
        for (const ptr of pointers(spec, true)) spec = removeAt(spec, ptr);
        // A secret no table names is kept as a mask, whatever came back: export still knows the place
        // (for its `${env:...}`), and the value, even when the service returned it in clear, goes nowhere.
        for (const ptr of detected(spec)) spec = setAt(spec, ptr, WITHHELD);
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
          const details = detailsText(state.details, held);
          live.info = {
            ok: state.ok,
            ...(state.lastSuccessfulTime !== undefined ? { lastSuccessfulTime: state.lastSuccessfulTime } : {}),
            ...(details !== undefined ? { details } : {}),
          };
        }
        return live;
      });
    },
    createRequest(desired: DesiredResource, _children: DesiredResource[], ctx: RequestContext) {
      return request(ctx, 'POST', listPath, fullBody(desired));
    },
    createdId: (body) => createdString(body, 'intgGuid', listPath),
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
    documents: {
      schemas: opts.schemas,
    },
    compare: {
      replaceOn: [],
      setPointers: (spec) => opts.setPointers?.(spec) ?? [],
      // `data` is replaced whole by an update: the file names what it manages, the rest is carried.
      // Not across a change of type: the other type's members mean nothing to the new one.
      openMembers: (desired, live) => (desired.type === live.type && typeOf(desired) === typeOf(live) ? ['/data'] : []),
    },
    secrets: {
      ...(opts.unreturned ? { unreturned: opts.unreturned } : {}),
      writeOnly: (spec) => writeOnlyOf(spec, detected(spec)),
      sensitive: (spec) => pointers(spec, false),
      secretMembers: (spec) => membersOf(spec, detected(spec)),
      // The spec's own secrets detected once for the three (they are most of the work).
      facts: (spec) => {
        const found = detected(spec);
        return { members: membersOf(spec, found), writeOnly: writeOnlyOf(spec, found), sensitive: pointers(spec, false) };
      },
    },
    rename: {
      inPlace: true,
    },
    // The service tests a channel (`--test-channels`).
    ...(opts.testable ? { lifecycle: { testRequest: (id: string, ctx: RequestContext) => request(ctx, 'POST', apiPath(opts.collection, id, 'test')) } } : {}),
    export: {
      toDocument(live: LiveResource): ExportedDocument | null {
        let data: JsonObject = {};
        for (const [key, value] of Object.entries(isObject(live.spec.data) ? live.spec.data : {})) {
          if (!(key in defaults && jsonEqual(value, defaults[key]))) data[key] = clone(value);
        }
        // Export replaces every secret pointer by an env reference; a masked one must be there to be
        // replaced, and so must a member the service never returns.
        for (const ptr of [...(kind.secrets?.writeOnly?.(live.spec) ?? []), ...(kind.secrets?.unreturned?.(live.spec) ?? [])]) {
          if (getAt({ data }, ptr) === undefined) data = setAt({ data }, ptr, '').data as JsonObject;
        }
        // In a type this version does not know, "" may be a secret the service hides or an empty
        // setting: neither written as a value nor as a variable, but named.
        const notes: Diagnostic[] = [];
        if (!isKnown(live.spec)) {
          const inObject = (ptr: string): boolean => isObject(getAt({ data }, ptr.slice(0, ptr.lastIndexOf('/'))));
          for (const ptr of emptyPointers(data, '/data').filter(inObject).reverse()) {
            data = removeAt({ data }, ptr).data as JsonObject;
            notes.push({
              severity: 'warning',
              code: 'empty-member-left-out',
              message: `${opts.kind} "${live.name}" in account ${live.account}: spec${ptr} is empty in the service (type \`${String(typeOf(live.spec))}\`, unknown to this version: a hidden secret or an empty setting); left out of the export`,
              field: '/spec' + ptr,
              hint: 'if it is a secret, add it to the file as ${env:NAME} (a member shown empty and taken from the environment is not compared); an update leaves it out otherwise',
            });
          }
        }
        const spec: JsonObject = {};
        if (opts.fixedType === undefined || live.spec.type !== opts.fixedType) spec.type = live.spec.type;
        if (live.spec.enabled === false) spec.enabled = false;
        spec.data = data;
        return { kind: opts.documentKind, name: live.name, spec, ...(notes.length > 0 ? { notes } : {}) };
      },
    },
  };
  return kind;
}
