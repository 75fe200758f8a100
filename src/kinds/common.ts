// Small helpers every kind file uses: paths, account headers, response records, set-like lists.

import type { Diagnostic } from '../model/diagnostics.js';
import { type ApiRequest, type HttpMethod, unwrapData } from '../api/types.js';
import { MalformedBodyError } from '../model/service-body.js';
import { API_PREFIX } from '../api/buckets.js';
import { isObject, jsonEqual, type Json, type JsonObject } from '../model/json.js';
import type { RequestContext, RoutingHook } from './types.js';
import type { LastChange, LiveResource, ResourceDocument } from '../model/resource.js';

/** `/api/v2/<collection>/<encoded id>/...`: every segment after the collection is URI-encoded. */
export function apiPath(collection: string, ...ids: string[]): string {
  // encodeURIComponent leaves '.' alone, and a URL resolver drops '.' and '..' steps (and reads '%2e'
  // as '.'): an id the service answered as one of them would send the request to another path.
  const bad = ids.find((id) => /^\.{0,2}$/.test(id));
  if (bad !== undefined) throw new MalformedBodyError('unaddressable-id', 'a request to', `${API_PREFIX}/${collection}`, `an id ${JSON.stringify(bad)} would address another path`);
  return [API_PREFIX, collection, ...ids.map((id) => encodeURIComponent(id))].join('/');
}

/** A request aimed at the account of `ctx`: Account-Name, or Org-Access for organization-level data. */
export function request(ctx: RequestContext, method: HttpMethod, path: string, body?: unknown): ApiRequest {
  const req: ApiRequest = { method, path, account: ctx.orgAccess ? undefined : ctx.account, orgAccess: ctx.orgAccess };
  if (body !== undefined) req.body = body;
  return req;
}

/** Configuration and service spellings of a flag (true/false, 1/0) → boolean; absent → `fallback`. */
export function toBoolean(value: unknown, fallback = true): boolean {
  if (value === undefined || value === null) return fallback;
  return value === true || value === 1 || value === '1' || value === 'true';
}

export function toFlag(value: Json | undefined): 0 | 1 {
  return value === true || value === 1 ? 1 : 0;
}

/** The records of a list response (`{data: [...]}` or a bare array); anything else is the service's fault. */
export function recordList(body: unknown, path: string): JsonObject[] {
  const list = unwrapData(body);
  if (!Array.isArray(list) || !list.every(isObject)) {
    throw new MalformedBodyError('not-a-list', 'GET', path, 'expected a list of records');
  }
  return list;
}

/** The record of a create response (`{data: record}`, `{data: [record]}` or bare). */
export function createdRecord(body: unknown): JsonObject | undefined {
  const data = unwrapData(body);
  const rec = Array.isArray(data) ? data[0] : data;
  return isObject(rec) ? rec : undefined;
}

/** A string member of a created record, or an error saying the outcome must be looked up. */
export function createdString(body: unknown, member: string, path: string): string {
  const value = createdRecord(body)?.[member];
  if (typeof value === 'string' && value !== '') return value;
  throw new MalformedBodyError('created-without-id', 'POST', path, `created, but the answer carries no ${member}`);
}

/** A string identity member of a live record; a record without one cannot be managed. */
export function requireString(rec: JsonObject, member: string, path: string): string {
  const value = rec[member];
  if (typeof value === 'string' && value !== '') return value;
  throw new MalformedBodyError('record-without-identity', 'GET', path, `a record without ${member}`);
}

export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** A deep copy of the objects and arrays; strings are immutable and shared (structuredClone copied them: a large list twice in memory). */
export function clone<T extends Json>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => clone(v)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, Json> = {};
  // By key, without an entry array per object (an own `__proto__` reads as itself: it shadows the accessor).
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const v = (value as Record<string, Json>)[k];
    // A member named __proto__ (JSON.parse makes it an own member) stays one, as structuredClone kept it.
    if (k === '__proto__') Object.defineProperty(out, k, { value: clone(v), enumerable: true, writable: true, configurable: true });
    else out[k] = clone(v);
  }
  return out as T;
}

function compareJson(a: Json, b: Json): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const sa = typeof a === 'string' ? a : JSON.stringify(a);
  const sb = typeof b === 'string' ? b : JSON.stringify(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/**
 * A set-like list in canonical order (sorted, duplicates dropped). Env references into the list
 * (`<pointer>/<i>` and below) follow their items to the new positions, so the plan still knows
 * which values came from `${env:...}`.
 */
export function canonicalSet<T extends Json>(
  items: readonly T[],
  pointer: string,
  envRefs: Record<string, string>,
): { items: T[]; envRefs: Record<string, string> } {
  const order = items.map((value, index) => ({ value, index })).sort((x, y) => compareJson(x.value, y.value) || x.index - y.index);
  const kept: { value: T; index: number }[] = [];
  for (const entry of order) {
    if (!kept.some((k) => jsonEqual(k.value, entry.value))) kept.push(entry);
  }
  const newIndex = new Map(kept.map((k, i) => [k.index, i]));
  const refs: Record<string, string> = {};
  for (const [ptr, template] of Object.entries(envRefs)) {
    const m = ptr.startsWith(pointer + '/') ? /^(\d+)(\/.*)?$/.exec(ptr.slice(pointer.length + 1)) : null;
    if (!m) {
      refs[ptr] = template;
      continue;
    }
    const to = newIndex.get(Number(m[1]));
    // A dropped duplicate has the same value as the kept item, so its reference adds nothing.
    if (to !== undefined) refs[`${pointer}/${to}${m[2] ?? ''}`] = template;
  }
  return { items: kept.map((k) => k.value), envRefs: refs };
}

/** canonicalSet over the lists of one document, the env references following their items in each. */
export function canonicalSets(envRefs: Record<string, string>): { set<T extends Json>(pointer: string, items: readonly T[]): T[]; envRefs(): Record<string, string> } {
  let refs = { ...envRefs };
  return {
    set(pointer, items) {
      const r = canonicalSet(items, pointer, refs);
      refs = r.envRefs;
      return r.items;
    },
    envRefs: () => refs,
  };
}

/**
 * A rule record (alert or report rule) as a live resource: its name in `filters` or, on some
 * records, at the top level; its id `mcGuid`; its writer and time in `filters`, the time as epoch
 * milliseconds (api-facts.md).
 */
export function liveRule(kind: string, rec: JsonObject, filters: JsonObject, spec: JsonObject, account: string, path: string): LiveResource {
  const named = typeof filters.name === 'string' && filters.name !== '' ? filters : rec;
  const live: LiveResource = { kind, account, name: requireString(named, 'name', path), id: requireString(rec, 'mcGuid', path), spec };
  const lastChange = lastChangeOf(filters.createdOrUpdatedBy ?? rec.createdOrUpdatedBy, filters.createdOrUpdatedTime ?? rec.createdOrUpdatedTime);
  if (lastChange) live.lastChange = lastChange;
  return live;
}

/** Env references below `from` re-based under `to` (`/alerts/0/subject` → `/subject`). */
export function rebaseEnvRefs(envRefs: Record<string, string>, from: string, to = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [ptr, template] of Object.entries(envRefs)) {
    if (ptr === from || ptr.startsWith(from + '/')) out[to + ptr.slice(from.length)] = template;
  }
  return out;
}

/** Env references whose value the canonical form converts (a template would no longer yield it). */
export function convertedEnvRefs(doc: ResourceDocument, pointers: readonly string[]): Diagnostic[] {
  return Object.keys(doc.envRefs)
    .filter((ptr) => pointers.some((p) => ptr === p || ptr.startsWith(p + '/')))
    .map((ptr) => ({
      severity: 'error' as const,
      code: 'env-not-supported',
      message: `${doc.kind} "${doc.name}": spec${ptr} may not come from \${env:...}`,
      ...(doc.positions[ptr] ?? doc.source),
      field: `/spec${ptr}`,
      hint: 'write the value in the file; it is not a secret',
    }));
}

/**
 * Who last wrote a record and when, from its `createdOrUpdatedBy` / `createdOrUpdatedTime` (an ISO
 * string on integrations, epoch milliseconds as a string in alert rule filters). Timestamps are not
 * always well formed (api-facts.md): a time that is not one is left out, never guessed.
 */
export function lastChangeOf(by: unknown, time: unknown): LastChange | undefined {
  const out: LastChange = {};
  if (typeof by === 'string' && by.trim() !== '') out.by = by;
  const ms = typeof time === 'number' ? time : typeof time === 'string' && /^\d{10,}$/.test(time) ? Number(time) : typeof time === 'string' ? Date.parse(time) : NaN;
  if (Number.isFinite(ms) && ms > 0) out.at = new Date(ms).toISOString();
  return out.by !== undefined || out.at !== undefined ? out : undefined;
}

/**
 * Routing of a kind that sends something other than alerts to channels (report rules' reports, data
 * export rules' data): it routes no alert, but a channel an enabled one uses is not idle.
 */
export const CONSUMER_ROUTING: RoutingHook = {
  role: 'consumer',
  read: (name, spec) => ({ role: 'consumer', consumer: { name, enabled: toBoolean(spec.enabled), channels: stringList(spec.channels) } }),
};

/**
 * The PATCH of a rule record (`mcGuid`, `filters`, `intgGuidList`): `filters` whole when one of
 * `filterMembers` changed or the rule is renamed (its name is in them), the channels when they
 * changed, and `extra` (members of the kind's own); no request when nothing is to send.
 */
export function rulePatch(
  path: string,
  changed: readonly string[],
  filterMembers: readonly string[],
  parts: { filters: () => JsonObject; channels: () => string[]; extra?: JsonObject },
  ctx: RequestContext,
  rename = false,
): ApiRequest[] {
  const body: JsonObject = {};
  if (rename || changed.some((m) => filterMembers.includes(m))) body.filters = parts.filters();
  if (changed.includes('channels')) body.intgGuidList = parts.channels();
  Object.assign(body, parts.extra ?? {});
  return Object.keys(body).length === 0 ? [] : [request(ctx, 'PATCH', path, body)];
}
