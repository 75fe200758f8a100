// Custom policies (api-facts.md "Policies"): a query the service evaluates, rated and described.
// The service derives the id from a suffix the client sends (`<tenant>-<suffix>`): a Policy's name
// is that suffix (Kind.derivedId), the live twin is the record whose id ends with it, and export
// names a policy by it. It names its Query by name (declared or live, custom or predefined) and its
// alert template as `<profile>.<template>` (Kind.memberReferences: the template must exist in that
// profile), or a bare profile. The vendor's policies (`<vendor>-global-<n>`) are listed as the
// service's (named by their id, never planned, pruned or exported): their state is another kind's.

import type { Diagnostic } from '../../model/diagnostics.js';
import { isObject, type Json, type JsonObject } from '../../model/json.js';
import type { DesiredResource, LiveResource, ResourceDocument } from '../../model/resource.js';
import { splitTemplateId } from '../alert-profile/records.js';
import { apiPath, canonicalSets, createdString, convertedEnvRefs, lastChangeOf, recordList, request, requireString, stringList, toBoolean } from '../common.js';
import type { ExportedDocument, FetchContext, Kind, Locate, RequestContext } from '../types.js';
import { isPredefinedPolicy, SUFFIX, SUFFIX_RULE, suffixOf } from './ids.js';
import { DEFAULT_LIMIT, SCHEMA_FILE, schemas } from './schema.js';

export const POLICIES_COLLECTION = 'Policies';
const LIST_PATH = apiPath(POLICIES_COLLECTION);
/** Spec members and the service's names for them. */
const FIELDS: Readonly<Record<string, string>> = {
  query: 'queryId',
  type: 'policyType',
  title: 'title',
  description: 'description',
  remediation: 'remediation',
  severity: 'severity',
  enabled: 'enabled',
  alertEnabled: 'alertEnabled',
  frequency: 'evalFrequency',
  limit: 'limit',
  tags: 'tags',
  alertTemplate: 'alertProfile',
  alertProfile: 'alertProfile',
};

const str = (v: Json | undefined, fallback = ''): string => (typeof v === 'string' ? v : fallback);

/** The canonical spec from a file's spec or a service record read through `field`. */
function canonical(get: (member: string) => Json | undefined, tags: Json[]): JsonObject {
  const type = str(get('type'), 'Violation');
  const spec: JsonObject = {
    query: str(get('query')),
    type,
    title: str(get('title')),
    description: str(get('description')),
    remediation: str(get('remediation')),
    severity: str(get('severity')).toLowerCase(),
    enabled: toBoolean(get('enabled')),
    alertEnabled: toBoolean(get('alertEnabled')),
    limit: typeof get('limit') === 'number' ? (get('limit') as number) : DEFAULT_LIMIT,
    tags,
  };
  // Compliance policies have no evaluation frequency (the service leaves it out).
  if (type !== 'Compliance') spec.frequency = str(get('frequency'), 'Hourly');
  return spec;
}

function checkDocument(doc: JsonObject, at: Locate): Diagnostic[] {
  const out: Diagnostic[] = [];
  const name = typeof doc.name === 'string' ? doc.name : '';
  const spec = isObject(doc.spec) ? doc.spec : {};
  if (name !== '' && !SUFFIX.test(name)) {
    out.push({
      severity: 'error',
      code: 'invalid-name',
      message: `Policy "${name}": the service derives its id from its name, and ${SUFFIX_RULE}`,
      ...at('/name'),
      hint: 'the title, which findings show, may be any text: put it in spec.title',
    });
  }
  if (spec.type === 'Compliance' && spec.frequency !== undefined) {
    out.push({ severity: 'error', code: 'conflicting-members', message: `Policy "${name}": a Compliance policy has no evaluation frequency`, ...at('/spec/frequency'), hint: 'remove frequency, or make it a Violation policy' });
  }
  if (spec.alertTemplate !== undefined && spec.alertProfile !== undefined) {
    out.push({ severity: 'error', code: 'conflicting-members', message: `Policy "${name}": give alertTemplate or alertProfile, not both`, ...at('/spec/alertProfile'), hint: 'alertTemplate names a profile and its template: <profile>.<template>' });
  }
  return out;
}

function fromDocument(doc: ResourceDocument): { resources: DesiredResource[]; diagnostics: Diagnostic[] } {
  // Compared in canonical form (lower-case severity, tags as a set): a value from ${env:...} would move with it.
  const diagnostics = convertedEnvRefs(doc, ['/severity', '/tags', '/type', '/enabled', '/alertEnabled', '/frequency', '/limit']);
  const sets = canonicalSets(doc.envRefs);
  const spec = canonical((m) => doc.spec[m], sets.set('/tags', stringList(doc.spec.tags)));
  for (const m of ['alertTemplate', 'alertProfile']) if (typeof doc.spec[m] === 'string') spec[m] = doc.spec[m];
  return { resources: [{ kind: 'Policy', account: doc.account, name: doc.name, spec, envRefs: sets.envRefs(), source: doc.source }], diagnostics };
}

function specOf(rec: JsonObject): JsonObject {
  const spec = canonical((m) => rec[FIELDS[m]], sets(stringList(rec.tags)));
  if (typeof rec.queryId !== 'string') delete spec.query;
  const alert = rec.alertProfile;
  if (typeof alert === 'string' && alert !== '') spec[alert.includes('.') ? 'alertTemplate' : 'alertProfile'] = alert;
  return spec;
}

const sets = (items: string[]): string[] => [...new Set(items)].sort();

/** The request body carrying `members` of the spec, under the service's names. */
function body(desired: DesiredResource, members: readonly string[]): JsonObject {
  const s = desired.spec;
  const out: JsonObject = {};
  for (const m of members) {
    const value = s[m];
    if (value === undefined || !Object.hasOwn(FIELDS, m)) continue;
    out[FIELDS[m]] = m === 'tags' ? stringList(value) : value;
  }
  if (s.type === 'Compliance') delete out.evalFrequency;
  return out;
}

export const Policy: Kind = {
  kind: 'Policy',
  order: 45,
  documentKind: 'Policy',
  schema: SCHEMA_FILE,
  collection: POLICIES_COLLECTION,
  references: [
    { kind: 'Query', pointer: '/query' },
    { kind: 'AlertProfile', pointer: '/alertProfile' },
  ],
  memberReferences: [
    {
      pointer: '/alertTemplate',
      kind: 'AlertProfile',
      label: 'alert template',
      // A declared profile lists its templates in `alerts` (file form) and as children (`<profile>.<template>`).
      members: (spec, children) => [
        ...(Array.isArray(spec.alerts) ? spec.alerts.flatMap((a) => (isObject(a) && typeof a.name === 'string' ? [a.name] : [])) : []),
        ...children.map((c) => splitTemplateId(c.name)[1]),
      ],
    },
  ],
  fromDocument,
  async list(ctx: FetchContext): Promise<LiveResource[]> {
    return recordList(await ctx.get(LIST_PATH), LIST_PATH).map((rec) => {
      const id = requireString(rec, 'policyId', LIST_PATH);
      const predefined = isPredefinedPolicy(rec);
      // A custom policy is named by its suffix; the service's by their whole id.
      const live: LiveResource = { kind: 'Policy', account: ctx.account, name: predefined ? id : (suffixOf(id) ?? id), id, spec: specOf(rec) };
      if (predefined) live.managedByService = true;
      // What exceptions the policy takes (read by PolicyException's check; never compared).
      const fields = isObject(rec.exceptionConfiguration) ? rec.exceptionConfiguration.constraintFields : undefined;
      if (Array.isArray(fields)) live.info = { constraintFields: fields };
      const lastChange = lastChangeOf(rec.lastUpdateUser, rec.lastUpdateTime);
      if (lastChange) live.lastChange = lastChange;
      return live;
    });
  },
  createRequest(desired, _children, ctx) {
    return request(ctx, 'POST', LIST_PATH, { policyId: desired.name, ...body(desired, Object.keys(desired.spec)) });
  },
  // The service derives the id: read it from the answer.
  createdId: (created) => createdString(created, 'policyId', LIST_PATH),
  updateRequests(id, desired, changed, ctx: RequestContext) {
    if (changed.length === 0) return [];
    // Both providers send the query again on every update; a type change carries the frequency.
    const members = [...new Set([...changed, 'query', ...(changed.includes('type') ? ['frequency'] : [])])];
    return [request(ctx, 'PATCH', apiPath(POLICIES_COLLECTION, id), body(desired, members))];
  },
  deleteRequest: (id, ctx) => request(ctx, 'DELETE', apiPath(POLICIES_COLLECTION, id)),
  documents: {
    schemas,
    check: checkDocument,
  },
  compare: {
    setPointers: () => ['/tags'],
    // alertTemplate / alertProfile left out of a file keep the live setting.
    openMembers: () => [''],
  },
  rename: {
    inPlace: false,
    refusal: "a policy's name is the suffix of its id, which the service cannot change",
  },
  derivedId: {
    nameOf: suffixOf,
    rule: { pattern: SUFFIX, says: SUFFIX_RULE },
  },
  export: {
    toDocument(live): ExportedDocument | null {
      if (live.managedByService || live.name === live.id) return null;
      const s = live.spec;
      const spec: JsonObject = {};
      if (typeof s.query === 'string') spec.query = s.query;
      spec.title = s.title ?? '';
      if (s.description !== '') spec.description = s.description ?? '';
      spec.remediation = s.remediation ?? '';
      spec.severity = s.severity ?? '';
      if (s.type !== 'Violation') spec.type = s.type ?? '';
      if (s.enabled === false) spec.enabled = false;
      if (s.alertEnabled === false) spec.alertEnabled = false;
      if (s.frequency !== undefined && s.frequency !== 'Hourly') spec.frequency = s.frequency;
      if (s.limit !== DEFAULT_LIMIT) spec.limit = s.limit ?? DEFAULT_LIMIT;
      if (Array.isArray(s.tags) && s.tags.length > 0) spec.tags = s.tags;
      for (const m of ['alertTemplate', 'alertProfile']) if (typeof s[m] === 'string') spec[m] = s[m];
      return { kind: 'Policy', name: live.name, spec };
    },
  },
};
