// Alert rules: which alerts (by severity, category, resource group) go to which channels.
// Requests spell the filters camelCase; responses lowercase, camelCase, and since late 2023 also
// `category` / `subCategory` / `source` (or `sources`) lists (api-facts.md). The canonical spec is one
// shape: those newer lists are members only where the rule has them, compared when the file declares
// them and otherwise carried (a PATCH replaces `filters` whole).

import type { Diagnostic } from '../../model/diagnostics.js';
import { apiPath, canonicalSet, canonicalSets, convertedEnvRefs, createdString, liveRule, recordList, request, stringList, toBoolean, toFlag } from '../common.js';
import { isObject, type Json, type JsonObject } from '../../model/json.js';
import { ALERT_RULE_TYPE, EVENT_CATEGORIES } from '../spellings.js';
import type { DesiredResource, LiveResource, ResourceDocument } from '../../model/resource.js';
import type { FetchContext, Kind, Locate, RequestContext, RoutingHook } from '../types.js';
import { SCHEMA_FILE, schemas } from './schema.js';
import { SEVERITY_NAMES, severitiesOf, severityOf } from './severities.js';

const COLLECTION = 'AlertRules';
const LIST_PATH = apiPath(COLLECTION);
/** The newer filter lists, by their spec member and every spelling a response uses for them. */
const NEWER_FILTERS: Record<string, readonly string[]> = {
  category: ['category', 'categories'],
  subCategory: ['subCategory', 'subcategory', 'subCategories'],
  source: ['source', 'sources'],
};
const SET_POINTERS = ['/channels', '/severity', '/eventCategory', '/resourceGroups', ...Object.keys(NEWER_FILTERS).map((m) => '/' + m)];
/** Spec members sent inside `filters` (a PATCH replaces filters whole). */
const FILTER_MEMBERS = ['severity', 'eventCategory', 'resourceGroups', 'description', 'enabled', ...Object.keys(NEWER_FILTERS)];

/** The first of `spellings` a record carries as a list. */
function listIn(filters: JsonObject, spellings: readonly string[]): Json[] | undefined {
  for (const s of spellings) if (Array.isArray(filters[s])) return filters[s] as Json[];
  return undefined;
}

/** The service may change the case of a category; the configuration spells them as the enum does. */
function categoryOf(value: string): string {
  return CATEGORY_BY_LOWER_CASE.get(value.toLowerCase()) ?? value;
}

/** The enum's spelling of each category by its lower case (the first, as a search in order would find). */
const CATEGORY_BY_LOWER_CASE = new Map([...EVENT_CATEGORIES].reverse().map((c) => [c.toLowerCase(), c]));
const NEWER_MEMBERS = Object.keys(NEWER_FILTERS);

const list = (value: Json | undefined): Json[] => (Array.isArray(value) ? value : []);

function filtersBody(desired: DesiredResource, ctx: RequestContext): JsonObject {
  const s = desired.spec;
  return {
    name: desired.name,
    description: s.description ?? '',
    enabled: toFlag(s.enabled),
    // Never null: the service refuses null for an array member of filters.
    resourceGroups: stringList(s.resourceGroups).map((name) => ctx.resolve('ResourceGroup', name)),
    eventCategory: list(s.eventCategory),
    severity: list(s.severity),
    // Sent only where the rule has them: declared in the file, or carried from the live rule.
    ...Object.fromEntries(
      Object.keys(NEWER_FILTERS)
        .filter((m) => Array.isArray(s[m]))
        .map((m) => [m, s[m]]),
    ),
  };
}

/**
 * A rule without channels is refused by the service (the seed: `intgGuidList` non-empty on create
 * and on update): an error. A severity given twice (by name and number, or twice the same): a
 * warning, the rule still works.
 */
function checkDocument(doc: JsonObject, at: Locate): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (!isObject(doc.spec)) return out;
  if (stringList(doc.spec.channels).length === 0) {
    out.push({
      severity: 'error',
      code: 'no-channels',
      message: `AlertRule "${String(doc.name)}" names no channel: the service refuses a rule without one (intgGuidList must not be empty)`,
      ...at(Array.isArray(doc.spec.channels) ? '/spec/channels' : '/spec'),
      hint: 'list the AlertChannels that should receive them in spec.channels',
    });
  }
  if (!Array.isArray(doc.spec.severity)) return out;
  const seen = new Map<number, number>();
  doc.spec.severity.forEach((s, i) => {
    const n = severityOf(s);
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

/**
 * Routing: the rule's filters as lists, each empty one matching every value (api-facts.md, "How alert
 * rules route"). The newer lists are conditions beside the event category (a cell does not range
 * over them); a null one (the file removes it) is absent.
 */
const routing: RoutingHook = {
  role: 'rule',
  dimensions: () => ({
    categories: [...EVENT_CATEGORIES],
    severities: [...SEVERITY_NAMES].sort((a, b) => a[0] - b[0]).map(([code, name]) => ({ code, name })),
  }),
  read: (name, spec) => ({
    role: 'rule',
    rule: {
      name,
      enabled: toBoolean(spec.enabled),
      channels: stringList(spec.channels),
      severities: list(spec.severity)
        .map(severityOf)
        .filter((s): s is number => s !== undefined),
      categories: stringList(spec.eventCategory).map(categoryOf),
      resourceGroups: stringList(spec.resourceGroups),
      conditions: NEWER_MEMBERS.map((member) => ({ name: member, values: stringList(spec[member]) })).filter((c) => c.values.length > 0),
    },
  }),
};

export const AlertRule: Kind = {
  kind: 'AlertRule',
  order: 20,
  documentKind: 'AlertRule',
  schema: SCHEMA_FILE,
  references: [
    { kind: 'AlertChannel', pointer: '/channels' },
    { kind: 'ResourceGroup', pointer: '/resourceGroups' },
  ],
  collection: COLLECTION,
  searchable: true,
  fromDocument(doc: ResourceDocument) {
    const parsed = severitiesOf(doc);
    const diagnostics: Diagnostic[] = [...convertedEnvRefs(doc, ['/severity', '/enabled']), ...parsed.diagnostics];
    const severities = parsed.severities;
    const sets = canonicalSets(doc.envRefs);
    const set = (pointer: string, items: Json[]): Json[] => sets.set(pointer, items);
    const spec: JsonObject = {
      channels: set('/channels', stringList(doc.spec.channels)),
      severity: set('/severity', severities),
      eventCategory: set('/eventCategory', stringList(doc.spec.eventCategory).map(categoryOf)),
      resourceGroups: set('/resourceGroups', stringList(doc.spec.resourceGroups)),
      description: typeof doc.spec.description === 'string' ? doc.spec.description : '',
      enabled: toBoolean(doc.spec.enabled),
    };
    for (const member of Object.keys(NEWER_FILTERS)) {
      const value = doc.spec[member];
      // null asks to remove the list from the live rule; left out, the live one is kept.
      if (value === null) spec[member] = null;
      else if (Array.isArray(value)) spec[member] = set('/' + member, stringList(value));
    }
    const resource: DesiredResource = { kind: 'AlertRule', account: doc.account, name: doc.name, spec, envRefs: sets.envRefs(), source: doc.source };
    return { resources: [resource], diagnostics };
  },
  async list(ctx: FetchContext): Promise<LiveResource[]> {
    return recordList(await ctx.get(LIST_PATH), LIST_PATH).map((rec) => {
      const filters = isObject(rec.filters) ? rec.filters : {};
      const set = (items: Json[]) => canonicalSet(items, '', {}).items;
      const severities = list(filters.severity)
        .map(severityOf)
        .filter((s): s is number => s !== undefined);
      const spec: JsonObject = {
        // Channel ids; the engine maps them to names through `references`.
        channels: set(stringList(rec.intgGuidList)),
        severity: set(severities),
        eventCategory: set(stringList(listIn(filters, ['eventcategory', 'eventCategory', 'eventCategories'])).map(categoryOf)),
        resourceGroups: set(stringList(listIn(filters, ['resourcegroups', 'resourceGroups']))),
        description: typeof filters.description === 'string' ? filters.description : '',
        enabled: toBoolean(filters.enabled),
      };
      for (const [member, spellings] of Object.entries(NEWER_FILTERS)) {
        const value = listIn(filters, spellings);
        if (value !== undefined) spec[member] = set(stringList(value));
      }
      return liveRule('AlertRule', rec, filters, spec, ctx.account, LIST_PATH);
    });
  },
  createRequest(desired, _children, ctx) {
    return request(ctx, 'POST', LIST_PATH, { type: ALERT_RULE_TYPE, intgGuidList: channelIds(desired, ctx), filters: filtersBody(desired, ctx) });
  },
  createdId: (body) => createdString(body, 'mcGuid', LIST_PATH),
  updateRequests(id, desired, changed, ctx, options) {
    const body: JsonObject = {};
    if (options?.rename || changed.some((m) => FILTER_MEMBERS.includes(m))) body.filters = filtersBody(desired, ctx);
    if (changed.includes('channels')) body.intgGuidList = channelIds(desired, ctx);
    return Object.keys(body).length === 0 ? [] : [request(ctx, 'PATCH', apiPath(COLLECTION, id), body)];
  },
  deleteRequest: (id, ctx) => request(ctx, 'DELETE', apiPath(COLLECTION, id)),
  routing,
  documents: {
    schemas,
    check: checkDocument,
  },
  compare: {
    setPointers: () => [...SET_POINTERS],
    // Files name severities; the service and the spec use 1..5: plans show the names.
    valueNames: () => [{ pointer: '/severity', names: Object.fromEntries([...SEVERITY_NAMES].map(([n, name]) => [String(n), name])) }],
    // Every top-level member is open: the newer filter lists are compared only when the file declares them.
    openMembers: () => [''],
  },
  rename: {
    // The name is inside `filters`: a rename sends filters whole, like any filter change.
    inPlace: true,
  },
  export: {
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
      for (const member of Object.keys(NEWER_FILTERS)) if (Array.isArray(s[member])) spec[member] = s[member];
      return { kind: 'AlertRule', name: live.name, spec };
    },
  },
};
