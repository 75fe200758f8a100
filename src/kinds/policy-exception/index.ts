// Policy exceptions (api-facts.md "Policy exceptions"): a document names one policy (a custom
// Policy's name, or a predefined policy's id) and lists its exceptions. The service gives an
// exception no name: it is identified by its policy and its description, so a resource is named
// `<policy>/<description>` and its live id is `<policyId>/<exceptionId>` (every request carries the
// policy as `?policyId=`, deletes included). Exceptions are listed per policy, one request each
// (Kind.perParent), only for the policies a repository declares exceptions for. Field keys are
// checked against the live policy's exceptionConfiguration; the service's 400 says the same.

import type { Diagnostic } from '../../model/diagnostics.js';
import { isObject, type Json, type JsonObject } from '../../model/json.js';
import type { DesiredResource, LiveResource, ResourceDocument } from '../../model/resource.js';
import { MalformedBodyError } from '../../model/service-body.js';
import { apiPath, convertedEnvRefs, createdString, lastChangeOf, recordList, request, requireString, stringList } from '../common.js';
import type { ExportedDocument, FetchContext, Kind, Locate, RequestContext } from '../types.js';
import { fromFile, fromService, isOlderTag, TAG_KEYS, toService } from './constraints.js';
import { SCHEMA_FILE, schemas } from './schema.js';

const KIND = 'PolicyException';
const COLLECTION = 'Exceptions';
const POLICY_KIND = 'Policy';
const WILDCARD = /[*?]/;

/** `/api/v2/Exceptions[/<exceptionId>]?policyId=<policyId>`. */
function exceptionsPath(policyId: string, exceptionId?: string): string {
  return `${exceptionId === undefined ? apiPath(COLLECTION) : apiPath(COLLECTION, exceptionId)}?policyId=${encodeURIComponent(policyId)}`;
}

/** A live id's two parts: the policy's id and the exception's (split at the last `/`: the service's exception ids hold none). */
function splitId(id: string): [policyId: string, exceptionId: string] {
  const cut = id.lastIndexOf('/');
  if (cut <= 0 || cut === id.length - 1) throw new MalformedBodyError('unaddressable-id', 'a request to', apiPath(COLLECTION), `the id ${JSON.stringify(id)} is not <policyId>/<exceptionId>`);
  return [id.slice(0, cut), id.slice(cut + 1)];
}

/** The resource name of an exception: its policy's name and its description. */
export const exceptionName = (policy: string, description: string): string => `${policy}/${description}`;

function fromDocument(doc: ResourceDocument): { resources: DesiredResource[]; diagnostics: Diagnostic[] } {
  const diagnostics = convertedEnvRefs(doc, ['/exceptions']);
  const resources: DesiredResource[] = [];
  (Array.isArray(doc.spec.exceptions) ? doc.spec.exceptions : []).forEach((raw, i) => {
    if (!isObject(raw) || typeof raw.description !== 'string') return;
    const previous = stringList(raw.previousDescriptions).filter((d) => d !== raw.description);
    resources.push({
      kind: KIND,
      account: doc.account,
      name: exceptionName(doc.name, raw.description),
      parent: doc.name,
      spec: { policy: doc.name, description: raw.description, constraints: fromFile(raw.constraints) },
      envRefs: {},
      source: doc.positions[`/exceptions/${i}`] ?? doc.source,
      ...(previous.length > 0 ? { previousNames: previous.map((d) => exceptionName(doc.name, d)) } : {}),
      ...(doc.lifecycle ? { lifecycle: structuredClone(doc.lifecycle) } : {}),
      // Where the entry and its field keys are: the check's diagnostics point at them.
      context: { pointer: `/spec/exceptions/${i}`, keys: keyPositions(doc, i, raw.constraints) },
    });
  });
  return { resources, diagnostics };
}

/** The file position of each field key of exception `i`. */
function keyPositions(doc: ResourceDocument, i: number, constraints: Json | undefined): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(isObject(constraints) ? constraints : {})) {
    const pos = doc.positions[`/exceptions/${i}/constraints/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`];
    if (pos) out[key] = { file: pos.file, line: pos.line, column: pos.column };
  }
  return out;
}

/** Offline: descriptions unique in the document, tags as lists without wildcards, renames per entry. */
function checkDocument(doc: JsonObject, at: Locate): Diagnostic[] {
  const out: Diagnostic[] = [];
  const name = String(doc.name);
  if (Array.isArray(doc.previousNames) && doc.previousNames.length > 0) {
    out.push({
      severity: 'error',
      code: 'rename-unsupported',
      message: `${KIND} \`${name}\` gives previousNames, but its name is the policy the exceptions belong to: an exception is renamed by its own previousDescriptions`,
      ...at('/previousNames'),
      field: '/previousNames',
      hint: 'move the old description into `previousDescriptions` of the exception that had it',
    });
  }
  const spec = isObject(doc.spec) ? doc.spec : {};
  const seen = new Map<string, number>();
  (Array.isArray(spec.exceptions) ? spec.exceptions : []).forEach((raw, i) => {
    if (!isObject(raw)) return;
    const base = `/spec/exceptions/${i}`;
    if (typeof raw.description === 'string') {
      const first = seen.get(raw.description);
      if (first === undefined) seen.set(raw.description, i);
      else
        out.push({
          severity: 'error',
          code: 'duplicate-item',
          message: `${KIND} \`${name}\`: exceptions ${first + 1} and ${i + 1} share the description ${JSON.stringify(raw.description)}; the description identifies an exception within its policy`,
          ...at(`${base}/description`),
          field: `${base}/description`,
          hint: 'give each exception of a policy its own description',
        });
    }
    const constraints = isObject(raw.constraints) ? raw.constraints : {};
    for (const [key, values] of Object.entries(constraints)) {
      if (!Array.isArray(values)) continue;
      const pointer = `${base}/constraints/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      values.forEach((v, j) => {
        if (isOlderTag(v)) {
          out.push({
            severity: 'error',
            code: 'invalid-value',
            message: `${KIND} \`${name}\`: tag ${JSON.stringify((v as JsonObject).key)} of ${key} gives one value as text; the service accepts that form but does not apply it`,
            ...at(`${pointer}/${j}/value`),
            field: `${pointer}/${j}/value`,
            hint: `write the value as a list: value: [${JSON.stringify((v as JsonObject).value)}]`,
          });
        } else if (isObject(v) && [v.key, ...(Array.isArray(v.value) ? v.value : [])].some((x) => typeof x === 'string' && WILDCARD.test(x))) {
          out.push({ severity: 'error', code: 'invalid-value', message: `${KIND} \`${name}\`: wildcards are not accepted in tags (${key})`, ...at(`${pointer}/${j}`), field: `${pointer}/${j}`, hint: 'name each tag value' });
        } else if (typeof v === 'string' && TAG_KEYS.includes(key)) {
          out.push({ severity: 'error', code: 'invalid-type', message: `${KIND} \`${name}\`: ${key} takes tags, not text`, ...at(`${pointer}/${j}`), field: `${pointer}/${j}`, hint: 'write each as {key: <tag>, value: [<values>]}' });
        }
      });
    }
  });
  return out;
}

interface ConstraintField {
  fieldKey: string;
  dataType?: string;
}

/** The live policy's constraint fields (Policy info), when it is live and says. */
function constraintFields(policy: LiveResource | undefined): ConstraintField[] | undefined {
  const fields = policy?.info?.constraintFields;
  if (!Array.isArray(fields)) return undefined;
  return fields.flatMap((f) => (isObject(f) && typeof f.fieldKey === 'string' ? [{ fieldKey: f.fieldKey, ...(typeof f.dataType === 'string' ? { dataType: f.dataType } : {}) }] : []));
}

/** Against the live policy: every field key one it lists, tags for tag keys, digits for Number keys. */
function checkAgainstPolicy(desired: DesiredResource, live: readonly LiveResource[]): Diagnostic[] {
  const policyName = String(desired.spec.policy);
  const policy = live.find((r) => r.kind === POLICY_KIND && r.account === desired.account && r.name === policyName);
  const fields = constraintFields(policy);
  if (policy === undefined || fields === undefined) return [];
  const base = typeof desired.context?.pointer === 'string' ? desired.context.pointer : '/spec';
  const keys = isObject(desired.context?.keys) ? desired.context.keys : {};
  const where = (key: string): Pick<Diagnostic, 'file' | 'line' | 'column' | 'field'> => {
    const at = isObject(keys[key]) ? (keys[key] as JsonObject) : desired.source;
    return { ...(at ? { file: String(at.file), line: Number(at.line), column: Number(at.column) } : {}), field: `${base}/constraints/${key}` };
  };
  const valid = fields.map((f) => f.fieldKey).sort();
  const out: Diagnostic[] = [];
  const constraints = isObject(desired.spec.constraints) ? desired.spec.constraints : {};
  if (fields.length === 0) {
    return [{ severity: 'error', code: 'invalid-value', message: `${KIND} ${desired.name}: policy ${policy.id} takes no exceptions (its exceptionConfiguration lists no field)`, ...where(''), field: base, hint: 'Manual policies, and policies of some providers, take none' }];
  }
  for (const [key, values] of Object.entries(constraints)) {
    const field = fields.find((f) => f.fieldKey === key);
    if (field === undefined) {
      out.push({
        severity: 'error',
        code: 'invalid-value',
        message: `${KIND} ${desired.name}: fieldKey ${key} is not applicable to policy ${policy.id}`,
        ...where(key),
        hint: `valid fieldKeys: ${valid.join(', ')}`,
      });
      continue;
    }
    const list: Json[] = Array.isArray(values) ? values : [];
    const tags = field.dataType === 'KVTagPair';
    if (list.some((v) => isObject(v) !== tags)) {
      out.push({
        severity: 'error',
        code: 'invalid-type',
        message: `${KIND} ${desired.name}: ${key} of policy ${policy.id} takes ${tags ? 'tags {key, value: [..]}' : 'text values'}`,
        ...where(key),
        hint: tags ? 'write each as {key: <tag>, value: [<values>]}' : 'write each value as text',
      });
    } else if (field.dataType === 'Number' && list.some((v) => typeof v === 'string' && !/^[0-9]+$/.test(v) && v !== '*')) {
      out.push({ severity: 'error', code: 'invalid-value', message: `${KIND} ${desired.name}: ${key} of policy ${policy.id} takes numbers`, ...where(key), hint: 'write digits, or * for any' });
    }
  }
  return out;
}

function listOf(ctx: FetchContext): Promise<LiveResource[][]> {
  return Promise.all(
    (ctx.parents ?? []).map(async (p) => {
      const path = exceptionsPath(p.id);
      return recordList(await ctx.get(path), path).map((rec): LiveResource => {
        const exceptionId = requireString(rec, 'exceptionId', path);
        const description = typeof rec.description === 'string' ? rec.description : '';
        const live: LiveResource = {
          kind: KIND,
          account: ctx.account,
          name: exceptionName(p.name, description),
          id: `${p.id}/${exceptionId}`,
          parent: p.name,
          // The policy's id: the engine names it (Kind.references).
          spec: { policy: p.id, description, constraints: fromService(rec.constraints) },
        };
        const lastChange = lastChangeOf(rec.lastUpdateUser, rec.lastUpdateTime);
        if (lastChange) live.lastChange = lastChange;
        return live;
      });
    }),
  );
}

export const PolicyException: Kind = {
  kind: KIND,
  order: 83,
  documentKind: KIND,
  schema: SCHEMA_FILE,
  collection: COLLECTION,
  references: [{ kind: POLICY_KIND, pointer: '/policy' }],
  perParent: { parentKind: POLICY_KIND, path: (policyId) => exceptionsPath(policyId) },
  fromDocument,
  list: async (ctx) => (await listOf(ctx)).flat(),
  createRequest(desired, _children, ctx: RequestContext) {
    const policyId = ctx.resolve(POLICY_KIND, String(desired.spec.policy));
    return request(ctx, 'POST', exceptionsPath(policyId), { description: desired.spec.description, constraints: toService(desired.spec.constraints) });
  },
  createdId: (body, desired, ctx) => `${ctx ? ctx.resolve(POLICY_KIND, String(desired.spec.policy)) : String(desired.spec.policy)}/${createdString(body, 'exceptionId', apiPath(COLLECTION))}`,
  updateRequests(id, desired, changed, ctx, options) {
    const body: JsonObject = {};
    if (options?.rename || changed.includes('description')) body.description = desired.spec.description;
    if (changed.includes('constraints')) body.constraints = toService(desired.spec.constraints);
    return Object.keys(body).length === 0 ? [] : [request(ctx, 'PATCH', exceptionsPath(...splitId(id)), body)];
  },
  deleteRequest: (id, ctx) => request(ctx, 'DELETE', exceptionsPath(...splitId(id))),
  check: checkAgainstPolicy,
  documents: {
    schemas,
    check: checkDocument,
  },
  rename: {
    inPlace: true,
  },
  export: {
    documentOf: (live) => live.parent ?? String(live.spec.policy),
    toDocument(policy, records): ExportedDocument {
      const notes: Diagnostic[] = [];
      const seen = new Set<string>();
      const exceptions: JsonObject[] = [];
      for (const r of [...records].sort((a, b) => (String(a.spec.description) < String(b.spec.description) ? -1 : 1))) {
        const description = String(r.spec.description);
        if (description.trim() === '' || seen.has(description)) {
          notes.push({
            severity: 'warning',
            code: description.trim() === '' ? 'invalid-live-name' : 'duplicate-live-name',
            message: `${KIND} of policy ${policy.name} in account ${r.account}: exception ${r.id.slice(r.id.lastIndexOf('/') + 1)} ${description.trim() === '' ? 'has no description' : `shares the description ${JSON.stringify(description)} with another`}; left out of the export`,
            hint: 'the description identifies an exception: give it its own in the service, then export again',
          });
          continue;
        }
        seen.add(description);
        const constraints: JsonObject = {};
        for (const [key, values] of Object.entries(isObject(r.spec.constraints) ? r.spec.constraints : {})) {
          // The older one-value tag is written as a list: the form the service applies (the plan then sends it).
          constraints[key] = Array.isArray(values) ? values.map((v) => (isOlderTag(v) ? { ...(v as JsonObject), value: [(v as JsonObject).value] } : v)) : values;
        }
        exceptions.push({ description, constraints });
      }
      return { kind: KIND, name: policy.name, spec: { exceptions }, ...(notes.length > 0 ? { notes } : {}) };
    },
  },
};
