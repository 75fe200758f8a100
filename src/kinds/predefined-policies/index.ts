// The state of the service's predefined policies (api-facts.md "Predefined policy state", the
// provider's "managed policies"): one document per account whose entries select predefined policies
// by id or by tag (a framework) and say whether they are enabled and at what severity. The plan's
// select step expands the entries against the live policies, one resource per selected policy; every
// update of an account goes in one bulk `PATCH /Policies` with a bare array. Nothing is created or
// deleted, and a policy no entry selects is left as it is.

import type { Diagnostic } from '../../model/diagnostics.js';
import { isObject, type JsonObject } from '../../model/json.js';
import type { DesiredResource, ResourceDocument } from '../../model/resource.js';
import { convertedEnvRefs, request, toBoolean } from '../common.js';
import type { ExportedDocument, Kind, Locate, RequestContext } from '../types.js';
import { POLICIES_COLLECTION, POLICIES_PATH, readPredefinedPolicies, severityName } from './records.js';
import { SCHEMA_FILE, schemas } from './schema.js';
import { entryJson, expandSelection, type Entry } from './selection.js';

const KIND = 'PredefinedPolicies';
/** The name export gives the one document of an account. */
export const EXPORTED_NAME = 'predefined-policies';
const STATE_MEMBERS = ['enabled', 'severity'] as const;

/** What a bulk item carries for one policy: its id and the state members that change. */
function bulkItem(id: string, desired: DesiredResource, changed: readonly string[]): JsonObject {
  const item: JsonObject = { policyId: id };
  for (const m of STATE_MEMBERS) if (changed.includes(m) && desired.spec[m] !== undefined) item[m] = desired.spec[m];
  return item;
}

/** Offline: an entry names a policy or a tag (one of them) and sets something; an id listed twice is an error. */
function checkDocument(doc: JsonObject, at: Locate): Diagnostic[] {
  const spec = doc.spec;
  if (!isObject(spec) || !Array.isArray(spec.policies)) return [];
  const out: Diagnostic[] = [];
  const ids = new Map<string, number>();
  spec.policies.forEach((entry, i) => {
    if (!isObject(entry)) return;
    const pointer = `/spec/policies/${i}`;
    const hasPolicy = entry.policy !== undefined;
    const hasTag = entry.tag !== undefined;
    if (hasPolicy === hasTag) {
      out.push({
        severity: 'error',
        code: hasPolicy ? 'conflicting-members' : 'missing-field',
        message: `entry ${i + 1} of ${KIND} \`${String(doc.name)}\` ${hasPolicy ? 'gives both policy and tag' : 'gives neither policy nor tag'}: an entry selects one policy by id or the policies carrying a tag`,
        ...at(pointer),
        field: pointer,
        hint: 'e.g. `policy: svc-global-8` or `tag: framework:cis-aws-1-4-0`',
      });
    }
    if (entry.enabled === undefined && entry.severity === undefined) {
      out.push({
        severity: 'error',
        code: 'missing-field',
        message: `entry ${i + 1} of ${KIND} \`${String(doc.name)}\` sets neither enabled nor severity: it would change nothing`,
        ...at(pointer),
        field: pointer,
        hint: 'add `enabled: true|false` or `severity: critical|high|medium|low|info`',
      });
    }
    if (typeof entry.policy === 'string') {
      const first = ids.get(entry.policy);
      if (first === undefined) ids.set(entry.policy, i);
      else
        out.push({
          severity: 'error',
          code: 'duplicate-item',
          message: `predefined policy ${entry.policy} is listed twice in ${KIND} \`${String(doc.name)}\` (entries ${first + 1} and ${i + 1})`,
          ...at(`${pointer}/policy`),
          field: `${pointer}/policy`,
          hint: 'keep one entry per policy (a tag entry before it may still select it: the later entry wins)',
        });
    }
  });
  return out;
}

function fromDocument(doc: ResourceDocument): { resources: DesiredResource[]; diagnostics: Diagnostic[] } {
  const diagnostics = convertedEnvRefs(doc, ['/policies']);
  const entries: Entry[] = [];
  const sources: JsonObject[] = [];
  (Array.isArray(doc.spec.policies) ? doc.spec.policies : []).forEach((raw, i) => {
    if (!isObject(raw)) return;
    const entry: Entry = {};
    if (typeof raw.policy === 'string') entry.policy = raw.policy;
    else if (typeof raw.tag === 'string') entry.tag = raw.tag;
    if (raw.enabled !== undefined && raw.enabled !== null) entry.enabled = toBoolean(raw.enabled);
    const severity = severityName(raw.severity);
    if (severity !== undefined) entry.severity = severity;
    entries.push(entry);
    const pos = doc.positions[`/policies/${i}`] ?? doc.source;
    sources.push({ file: pos.file, line: pos.line, column: pos.column });
  });
  const resource: DesiredResource = {
    kind: KIND,
    account: doc.account,
    name: doc.name,
    spec: { policies: entries.map(entryJson) },
    envRefs: {},
    source: doc.source,
    // Where each entry is, for the select step's diagnostics and the plan's file:line.
    context: { sources },
  };
  return { resources: [resource], diagnostics };
}

/** Predefined policies are the service's: nothing creates or deletes them (lifecycle.stateOnly keeps such changes out of plans). */
function refuse(what: string): never {
  throw new Error(`${KIND}: a predefined policy cannot be ${what}; only its state changes`);
}

export const PredefinedPolicies: Kind = {
  kind: KIND,
  order: 87,
  documentKind: KIND,
  schema: SCHEMA_FILE,
  // The same list as the custom policies: GET /Policies answers both.
  collection: POLICIES_COLLECTION,
  fromDocument,
  list: (ctx) => readPredefinedPolicies(ctx, KIND),
  createRequest: () => refuse('created'),
  createdId: () => refuse('created'),
  // One policy alone goes through the bulk call too (the apply executor sends an account's updates together).
  updateRequests: (id, desired, changed, ctx: RequestContext) => {
    const item = bulkItem(id, desired, changed);
    return Object.keys(item).length > 1 ? [request(ctx, 'PATCH', POLICIES_PATH, [item])] : [];
  },
  deleteRequest: () => refuse('deleted'),
  bulkUpdate: {
    request: (updates, ctx) => request(ctx, 'PATCH', POLICIES_PATH, updates.map((u) => bulkItem(u.id, u.desired, u.changed))),
  },
  select: {
    expand: (desired, live) => expandSelection(desired, live, KIND),
  },
  lifecycle: {
    stateOnly: true,
  },
  compare: {
    // An entry states only the members it sets: the others keep their live value.
    openMembers: () => [''],
  },
  rename: {
    inPlace: false,
    refusal: 'a PredefinedPolicies document names no record: its entries select the predefined policies by id or tag',
  },
  documents: {
    schemas,
    check: checkDocument,
  },
  export: {
    documentOf: () => EXPORTED_NAME,
    toDocument(group, records): ExportedDocument {
      return {
        kind: KIND,
        name: group.name,
        spec: {
          policies: records.map((r) => {
            const entry: JsonObject = { policy: r.id, enabled: r.spec.enabled === true };
            if (typeof r.spec.severity === 'string') entry.severity = r.spec.severity;
            return entry;
          }),
        },
      };
    },
  },
};
