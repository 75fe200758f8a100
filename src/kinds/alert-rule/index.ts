// Alert rules: which alerts (by severity, category, resource group) go to which channels.
// Requests spell the filters camelCase, responses lowercase; the canonical spec is one shape.

import type { Diagnostic } from '../../model/diagnostics.js';
import { apiPath, canonicalSet, convertedEnvRefs, createdString, recordList, request, requireString, stringList, toBoolean, toFlag } from '../common.js';
import { isObject, type Json, type JsonObject } from '../../model/json.js';
import { ALERT_RULE_TYPE, EVENT_CATEGORIES } from '../spellings.js';
import type { DesiredResource, LiveResource, ResourceDocument } from '../../model/resource.js';
import type { FetchContext, Kind, Locate, RequestContext } from '../types.js';
import { SCHEMA_FILE, schemas } from './schema.js';
import { SEVERITIES, type SeverityName } from './severities.js';

const COLLECTION = 'AlertRules';
const LIST_PATH = apiPath(COLLECTION);
const SET_POINTERS = ['/channels', '/severity', '/eventCategory', '/resourceGroups'];
/** Spec members sent inside `filters` (a PATCH replaces filters whole). */
const FILTER_MEMBERS = ['severity', 'eventCategory', 'resourceGroups', 'description', 'enabled'];

const SEVERITY_NAMES = new Map<number, SeverityName>(Object.entries(SEVERITIES).map(([n, v]) => [v, n as SeverityName]));

/** A severity name (any case) or integer 1..5 → its integer; undefined when it is neither. */
function severityOf(value: Json): number | undefined {
  if (typeof value === 'string') {
    const lower = value.toLowerCase();
    if (Object.hasOwn(SEVERITIES, lower)) return SEVERITIES[lower as SeverityName];
    return /^[1-5]$/.test(value) ? Number(value) : undefined;
  }
  return typeof value === 'number' && Number.isInteger(value) && SEVERITY_NAMES.has(value) ? value : undefined;
}

/** The service may change the case of a category; the configuration spells them as the enum does. */
function categoryOf(value: string): string {
  return EVENT_CATEGORIES.find((c) => c.toLowerCase() === value.toLowerCase()) ?? value;
}

const list = (value: Json | undefined): Json[] => (Array.isArray(value) ? value : []);

function filtersBody(desired: DesiredResource): JsonObject {
  const s = desired.spec;
  return {
    name: desired.name,
    description: s.description ?? '',
    enabled: toFlag(s.enabled),
    // Never null: the service refuses null for an array member of filters.
    resourceGroups: list(s.resourceGroups),
    eventCategory: list(s.eventCategory),
    severity: list(s.severity),
  };
}

/** A severity given twice (by name and number, or twice the same): a warning, the rule still works. */
function checkDocument(doc: JsonObject, at: Locate): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (!isObject(doc.spec) || !Array.isArray(doc.spec.severity)) return out;
  const seen = new Map<number, number>();
  doc.spec.severity.forEach((s, i) => {
    const n = typeof s === 'number' ? s : typeof s === 'string' && Object.hasOwn(SEVERITIES, s) ? SEVERITIES[s as SeverityName] : undefined;
    if (n === undefined) return;
    const first = seen.get(n);
    if (first !== undefined) {
      out.push({
        severity: 'warning',
        code: 'duplicate-severity',
        message: `spec.severity names severity ${n} twice (items ${first + 1} and ${i + 1})`,
        ...at(`/spec/severity/${i}`),
      });
    } else seen.set(n, i);
  });
  return out;
}

function channelIds(desired: DesiredResource, ctx: RequestContext): string[] {
  return stringList(desired.spec.channels).map((name) => ctx.resolve('AlertChannel', name));
}

export const AlertRule: Kind = {
  kind: 'AlertRule',
  order: 20,
  documentKind: 'AlertRule',
  schema: SCHEMA_FILE,
  schemas,
  references: [{ kind: 'AlertChannel', pointer: '/channels' }],
  replaceOn: [],
  collection: COLLECTION,

  setPointers: () => [...SET_POINTERS],
  writeOnly: () => [],
  sensitive: () => [],
  secretMembers: () => [],
  checkDocument,

  fromDocument(doc: ResourceDocument) {
    const diagnostics: Diagnostic[] = convertedEnvRefs(doc, ['/severity', '/enabled']);
    const severities: number[] = [];
    list(doc.spec.severity).forEach((value, i) => {
      const sev = severityOf(value);
      if (sev !== undefined) severities.push(sev);
      else
        diagnostics.push({
          severity: 'error',
          code: 'invalid-severity',
          message: `AlertRule "${doc.name}": ${JSON.stringify(value)} is not a severity`,
          ...(doc.positions[`/severity/${i}`] ?? doc.source),
          field: `/spec/severity/${i}`,
          hint: `expected one of ${Object.keys(SEVERITIES).join(', ')} or an integer 1..5`,
        });
    });
    let envRefs = { ...doc.envRefs };
    const set = (pointer: string, items: Json[]): Json[] => {
      const r = canonicalSet(items, pointer, envRefs);
      envRefs = r.envRefs;
      return r.items;
    };
    const spec: JsonObject = {
      channels: set('/channels', stringList(doc.spec.channels)),
      severity: set('/severity', severities),
      eventCategory: set('/eventCategory', stringList(doc.spec.eventCategory).map(categoryOf)),
      resourceGroups: set('/resourceGroups', stringList(doc.spec.resourceGroups)),
      description: typeof doc.spec.description === 'string' ? doc.spec.description : '',
      enabled: toBoolean(doc.spec.enabled),
    };
    const resource: DesiredResource = { kind: 'AlertRule', account: doc.account, name: doc.name, spec, envRefs, source: doc.source };
    return { resources: [resource], diagnostics };
  },

  async list(ctx: FetchContext): Promise<LiveResource[]> {
    return recordList(await ctx.get(LIST_PATH), LIST_PATH).map((rec) => {
      const filters = isObject(rec.filters) ? rec.filters : {};
      const set = (items: Json[]) => canonicalSet(items, '', {}).items;
      const severities = list(filters.severity).map(severityOf).filter((s): s is number => s !== undefined);
      return {
        kind: 'AlertRule',
        account: ctx.account,
        name: requireString(filters, 'name', LIST_PATH),
        id: requireString(rec, 'mcGuid', LIST_PATH),
        spec: {
          // Channel ids; the engine maps them to names through `references`.
          channels: set(stringList(rec.intgGuidList)),
          severity: set(severities),
          eventCategory: set(stringList(filters.eventcategory ?? filters.eventCategory).map(categoryOf)),
          resourceGroups: set(stringList(filters.resourcegroups ?? filters.resourceGroups)),
          description: typeof filters.description === 'string' ? filters.description : '',
          enabled: toBoolean(filters.enabled),
        },
      };
    });
  },

  createRequest(desired, _children, ctx) {
    return request(ctx, 'POST', LIST_PATH, { type: ALERT_RULE_TYPE, intgGuidList: channelIds(desired, ctx), filters: filtersBody(desired) });
  },

  createdId: (body) => createdString(body, 'mcGuid', LIST_PATH),

  updateRequests(id, desired, changed, ctx) {
    const body: JsonObject = {};
    if (changed.some((m) => FILTER_MEMBERS.includes(m))) body.filters = filtersBody(desired);
    if (changed.includes('channels')) body.intgGuidList = channelIds(desired, ctx);
    return Object.keys(body).length === 0 ? [] : [request(ctx, 'PATCH', apiPath(COLLECTION, id), body)];
  },

  deleteRequest: (id, ctx) => request(ctx, 'DELETE', apiPath(COLLECTION, id)),

  toDocument(live) {
    const s = live.spec;
    const spec: JsonObject = {
      channels: list(s.channels),
      severity: list(s.severity).map((v) => (typeof v === 'number' ? (SEVERITY_NAMES.get(v) ?? v) : v)),
    };
    if (list(s.eventCategory).length > 0) spec.eventCategory = list(s.eventCategory);
    if (list(s.resourceGroups).length > 0) spec.resourceGroups = list(s.resourceGroups);
    if (typeof s.description === 'string' && s.description !== '') spec.description = s.description;
    if (s.enabled === false) spec.enabled = false;
    return { kind: 'AlertRule', name: live.name, spec };
  },
};
