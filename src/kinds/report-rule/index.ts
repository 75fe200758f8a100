// Report rules (api-facts.md "Report rules"): which scheduled reports go to which e-mail channels.
// The file lists the reports to receive by the service's names; the request sends every other
// report false, so a report unticked in the console shows as a change. Channels are EmailUser
// channels only (Reference.only); resource groups are named like the alert rules' ones.

import type { Diagnostic } from '../../model/diagnostics.js';
import { isObject, type Json, type JsonObject } from '../../model/json.js';
import type { DesiredResource, LiveResource, ResourceDocument } from '../../model/resource.js';
import { SEVERITY_NAMES, severitiesOf, severityOf } from '../alert-rule/severities.js';
import { apiPath, canonicalSet, canonicalSets, CONSUMER_ROUTING, convertedEnvRefs, createdString, liveRule, recordList, request, rulePatch, stringList, toBoolean, toFlag } from '../common.js';
import type { ExportedDocument, FetchContext, Kind, RequestContext } from '../types.js';
import { REPORT_RULE_TYPE, REPORTS } from './reports.js';
import { SCHEMA_FILE, schemas } from './schema.js';

const COLLECTION = 'ReportRules';
const LIST_PATH = apiPath(COLLECTION);
const SET_POINTERS = ['/channels', '/severity', '/resourceGroups', '/reports'];
const FILTER_MEMBERS = ['severity', 'resourceGroups', 'description', 'enabled'];
// A report this version does not know is judged by its schema's closed set (misspelt: an error; new: a warning).

/** Every known report false, the listed ones true: a report left out of the file is unticked. */
function notificationTypes(desired: DesiredResource): JsonObject {
  const out: JsonObject = Object.fromEntries(REPORTS.map((r) => [r, false]));
  for (const r of stringList(desired.spec.reports)) out[r] = true;
  return out;
}

function filtersBody(desired: DesiredResource, ctx: RequestContext): JsonObject {
  const s = desired.spec;
  return {
    name: desired.name,
    description: typeof s.description === 'string' ? s.description : '',
    enabled: toFlag(s.enabled),
    severity: Array.isArray(s.severity) ? s.severity : [],
    resourceGroups: stringList(s.resourceGroups).map((n) => ctx.resolve('ResourceGroup', n)),
  };
}

const channelIds = (desired: DesiredResource, ctx: RequestContext): string[] => stringList(desired.spec.channels).map((n) => ctx.resolve('AlertChannel', n));

export const ReportRule: Kind = {
  kind: 'ReportRule',
  order: 25,
  documentKind: 'ReportRule',
  schema: SCHEMA_FILE,
  references: [
    { kind: 'AlertChannel', pointer: '/channels', only: { member: '/type', values: ['EmailUser'] } },
    { kind: 'ResourceGroup', pointer: '/resourceGroups' },
  ],
  collection: COLLECTION,
  fromDocument(doc: ResourceDocument) {
    const parsed = severitiesOf(doc);
    const diagnostics: Diagnostic[] = [...convertedEnvRefs(doc, ['/severity', '/enabled', '/reports']), ...parsed.diagnostics];
    const severities = parsed.severities;
    const sets = canonicalSets(doc.envRefs);
    const set = (pointer: string, items: Json[]): Json[] => sets.set(pointer, items);
    const spec: JsonObject = {
      channels: set('/channels', stringList(doc.spec.channels)),
      severity: set('/severity', severities),
      resourceGroups: set('/resourceGroups', stringList(doc.spec.resourceGroups)),
      reports: set('/reports', stringList(doc.spec.reports)),
      description: typeof doc.spec.description === 'string' ? doc.spec.description : '',
      enabled: toBoolean(doc.spec.enabled),
    };
    const resource: DesiredResource = { kind: 'ReportRule', account: doc.account, name: doc.name, spec, envRefs: sets.envRefs(), source: doc.source };
    return { resources: [resource], diagnostics };
  },
  async list(ctx: FetchContext): Promise<LiveResource[]> {
    return recordList(await ctx.get(LIST_PATH), LIST_PATH).map((rec) => {
      const filters = isObject(rec.filters) ? rec.filters : {};
      const set = (items: Json[]) => canonicalSet(items, '', {}).items;
      const types = isObject(rec.reportNotificationTypes) ? rec.reportNotificationTypes : {};
      const spec: JsonObject = {
        // Ids; the engine maps them to names through `references`.
        channels: set(stringList(rec.intgGuidList)),
        severity: set((Array.isArray(filters.severity) ? filters.severity : []).map(severityOf).filter((s): s is number => s !== undefined)),
        resourceGroups: set(stringList(filters.resourceGroups ?? filters.resourcegroups)),
        // Every report ticked, known or not (new reports appear without notice).
        reports: set(Object.keys(types).filter((r) => types[r] === true || types[r] === 1)),
        description: typeof filters.description === 'string' ? filters.description : '',
        enabled: toBoolean(filters.enabled),
      };
      return liveRule('ReportRule', rec, filters, spec, ctx.account, LIST_PATH);
    });
  },
  createRequest(desired, _children, ctx) {
    return request(ctx, 'POST', LIST_PATH, {
      type: REPORT_RULE_TYPE,
      intgGuidList: channelIds(desired, ctx),
      filters: filtersBody(desired, ctx),
      reportNotificationTypes: notificationTypes(desired),
    });
  },
  createdId: (body) => createdString(body, 'mcGuid', LIST_PATH),
  updateRequests(id, desired, changed, ctx, options) {
    const extra: JsonObject = changed.includes('reports') ? { reportNotificationTypes: notificationTypes(desired) } : {};
    const parts = { filters: () => filtersBody(desired, ctx), channels: () => channelIds(desired, ctx), extra };
    return rulePatch(apiPath(COLLECTION, id), changed, FILTER_MEMBERS, parts, ctx, options?.rename);
  },
  deleteRequest: (id, ctx) => request(ctx, 'DELETE', apiPath(COLLECTION, id)),
  // Routing: reports reach e-mail channels, no alerts.
  routing: CONSUMER_ROUTING,
  documents: {
    schemas,
  },
  compare: {
    setPointers: () => [...SET_POINTERS],
    valueNames: () => [{ pointer: '/severity', names: Object.fromEntries([...SEVERITY_NAMES].map(([n, name]) => [String(n), name])) }],
  },
  rename: {
    inPlace: true,
  },
  export: {
    toDocument(live): ExportedDocument {
      const s = live.spec;
      const list = (v: Json | undefined): Json[] => (Array.isArray(v) ? v : []);
      const spec: JsonObject = {
        channels: list(s.channels),
        reports: list(s.reports),
      };
      if (list(s.severity).length > 0) spec.severity = list(s.severity).map((v) => (typeof v === 'number' ? (SEVERITY_NAMES.get(v) ?? v) : v));
      if (list(s.resourceGroups).length > 0) spec.resourceGroups = list(s.resourceGroups);
      if (typeof s.description === 'string' && s.description !== '') spec.description = s.description;
      if (s.enabled === false) spec.enabled = false;
      return { kind: 'ReportRule', name: live.name, spec };
    },
  },
};
