// The integration collections (alert channels, cloud accounts, container registries) share their
// record shape and endpoints; each collection file supplies its types, validation and secrets.

import { HttpError, isoTime, notFound, objectBody, wantsOlderSpelling, type ExtraType, type Handler, type RequestContext } from '../http.js';
import { newIntgGuid } from '../ids.js';
import { maskData } from '../masking.js';
import type { IntegrationRecord, ScopeData } from '../model.js';
import type { Route } from '../router.js';
import { SEARCH } from '../request-schemas.js';
import { runSearch } from '../search.js';
import type { SensitiveMember } from '../service-facts.js';
import type { Schema } from '../validation.js';
import { channelState, type Failure } from '../health.js';

export interface IntegrationCollection {
  /** Path segment after /api/v2, e.g. `AlertChannels`. */
  path: string;
  key: 'alertChannels' | 'cloudAccounts' | 'containerRegistries';
  /** For audit records, e.g. `alert channel`. */
  label: string;
  types: readonly string[];
  /** GET /{type} lists the records of one type. */
  listByType: boolean;
  put: boolean;
  /** POST /{intgGuid}/test. */
  test: boolean;
  /** Throws 400 when the full record (name, type, enabled, data) is not acceptable. */
  validate(record: Record<string, unknown>): void;
  /** Sensitive `data` members of the record and how responses show them. */
  sensitive(record: IntegrationRecord): SensitiveMember[];
  /** Response `data` after masking, e.g. defaults the service adds or the older spellings of a record. */
  responseData?(data: Record<string, unknown>, record: IntegrationRecord): Record<string, unknown>;
  /** A credential the service issues for a record of this type (top-level `serverToken`), else undefined. */
  issueServerToken?(record: IntegrationRecord, ctx: RequestContext): IntegrationRecord['serverToken'];
  /** Refuses a delete (409) while something still refers to the record. */
  beforeDelete?(ctx: RequestContext, record: IntegrationRecord): void;
  /** Whether the emulator has tables for the record's type (default: `types` holds its `type`). */
  knownType?(record: Record<string, unknown>): boolean;
  /** The request schemas `validate` checks, one per type (for GET /api/v2/docs). */
  schemas(): Schema[];
}

/** A schema with every member optional: what a PATCH may carry (the result is then checked whole). */
function partial(s: Schema): Schema {
  const { required: _required, ...rest } = s;
  return rest;
}

/** Top-level members an integration response builds (a carried member of another name is answered as kept). */
export const INTEGRATION_MEMBERS = ['createdOrUpdatedBy', 'createdOrUpdatedTime', 'enabled', 'intgGuid', 'isOrg', 'name', 'props', 'state', 'type', 'serverToken', 'data'];

export function integrationResponse(c: IntegrationCollection, r: IntegrationRecord, isOrg: boolean, failure?: Failure): Record<string, unknown> {
  const masked = maskData(r.data, c.sensitive(r));
  const carriedProps = r.carried?.props !== null && typeof r.carried?.props === 'object' ? (r.carried.props as Record<string, unknown>) : {};
  const carried = Object.fromEntries(Object.entries(r.carried ?? {}).filter(([k]) => !INTEGRATION_MEMBERS.includes(k)));
  return {
    ...structuredClone(carried),
    createdOrUpdatedBy: r.createdOrUpdatedBy,
    createdOrUpdatedTime: isoTime(r.createdOrUpdatedTime),
    enabled: r.enabled,
    intgGuid: r.intgGuid,
    isOrg: isOrg ? 1 : 0,
    name: r.name,
    props: { ...structuredClone(carriedProps), createdBy: r.createdBy, createdTime: isoTime(r.createdTime), updatedBy: r.createdOrUpdatedBy },
    // Alert channels have a health (health.ts); the other integrations are healthy since written.
    state: c.test ? channelState(r, failure) : { ok: true, lastUpdatedTime: r.createdOrUpdatedTime, lastSuccessfulTime: r.createdOrUpdatedTime, details: {} },
    type: r.type,
    ...(r.serverToken !== undefined ? { serverToken: { ...r.serverToken } } : {}),
    data: c.responseData ? c.responseData(masked, r) : masked,
  };
}

/** The writable members of a request; unknown top-level members are ignored. */
function writable(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['name', 'type', 'enabled', 'data']) if (k in body) out[k] = body[k];
  return out;
}

function records(c: IntegrationCollection, scope: ScopeData): IntegrationRecord[] {
  return scope[c.key];
}

function find(c: IntegrationCollection, ctx: RequestContext): IntegrationRecord {
  const r = records(c, ctx.scope).find((x) => x.intgGuid === ctx.params.intgGuid);
  if (r === undefined) throw notFound();
  return r;
}

/** A record of a type the emulator has no table for: only its shape is checked. */
function checkCarried(record: Record<string, unknown>): void {
  const problems: string[] = [];
  if (typeof record.name !== 'string' || record.name === '') problems.push('name: must be a non-empty string');
  if (record.enabled !== 0 && record.enabled !== 1) problems.push('enabled: must be 0 or 1');
  if (record.data === null || typeof record.data !== 'object' || Array.isArray(record.data)) problems.push('data: must be object');
  if (problems.length > 0) throw new HttpError(400, `Invalid data: ${problems.map((p, i) => `#${i + 1}: [${p}]`).join(' ')}`);
}

/** `data` with each member `extra.masked` names shown as the given text. */
function maskExtra(data: unknown, extra: ExtraType): unknown {
  if (data === null || typeof data !== 'object') return data;
  const out = structuredClone(data) as Record<string, unknown>;
  for (const [dotted, shown] of Object.entries(extra.masked ?? {})) {
    const parts = dotted.split('.');
    let parent: unknown = out;
    for (const p of parts.slice(0, -1)) parent = parent !== null && typeof parent === 'object' ? (parent as Record<string, unknown>)[p] : undefined;
    if (parent !== null && typeof parent === 'object' && parts[parts.length - 1] in parent) (parent as Record<string, unknown>)[parts[parts.length - 1]] = shown;
  }
  return out;
}

export function integrationRoutes(c: IntegrationCollection): Route[] {
  const view = (ctx: RequestContext, r: IntegrationRecord) => {
    const out = integrationResponse(c, r, ctx.isOrg, ctx.channelFailure?.(r));
    const extra = ctx.extraType?.(c.path, r as unknown as Record<string, unknown>);
    return extra ? { ...out, data: maskExtra(out.data, extra) } : out;
  };
  const known = (record: Record<string, unknown>) => (c.knownType ? c.knownType(record) : c.types.includes(record.type as string));
  const validate = (ctx: RequestContext, record: Record<string, unknown>): void => {
    if (ctx.extraType?.(c.path, record) || (ctx.carryUnknown === true && !known(record))) checkCarried(record);
    else c.validate(record);
  };

  const list: Handler = (ctx) => ({ status: 200, body: { data: records(c, ctx.scope).map((r) => view(ctx, r)) } });

  const create: Handler = (ctx) => {
    const body = writable(objectBody(ctx));
    validate(ctx, body);
    const r: IntegrationRecord = {
      intgGuid: newIntgGuid(ctx.guidPrefix),
      name: body.name as string,
      type: body.type as string,
      enabled: body.enabled as number,
      data: body.data as Record<string, unknown>,
      createdBy: ctx.user,
      createdTime: ctx.now,
      createdOrUpdatedBy: ctx.user,
      createdOrUpdatedTime: ctx.now,
      ...(wantsOlderSpelling(ctx) ? { older: true } : {}),
    };
    const token = c.issueServerToken?.(r, ctx);
    if (token !== undefined) r.serverToken = token;
    records(c, ctx.scope).push(r);
    ctx.committed(`Create ${c.label}`, `Created ${c.label} ${r.name} (${r.intgGuid})`);
    return { status: 201, body: { data: view(ctx, r) } };
  };

  const search: Handler = (ctx) => ({
    status: 200,
    body: { data: runSearch(records(c, ctx.scope).map((r) => view(ctx, r)), ctx.body) },
  });

  /** GET /{type} or GET /{intgGuid}: the same path shape, told apart by the type names. */
  const getOne: Handler = (ctx) => {
    const id = ctx.params.intgGuid;
    if (c.listByType && c.types.includes(id)) {
      return { status: 200, body: { data: records(c, ctx.scope).filter((r) => r.type === id).map((r) => view(ctx, r)) } };
    }
    return { status: 200, body: { data: view(ctx, find(c, ctx)) } };
  };

  const update =
    (replace: boolean): Handler =>
    (ctx) => {
      const r = find(c, ctx);
      const body = writable(objectBody(ctx));
      const next = replace ? body : { name: r.name, type: r.type, enabled: r.enabled, data: r.data, ...body };
      validate(ctx, next);
      r.name = next.name as string;
      r.type = next.type as string;
      r.enabled = next.enabled as number;
      r.data = next.data as Record<string, unknown>;
      // A type that gets a server token keeps the one it has; one changed to such a type gets one.
      if (r.serverToken === undefined) {
        const token = c.issueServerToken?.(r, ctx);
        if (token !== undefined) r.serverToken = token;
      }
      r.createdOrUpdatedBy = ctx.user;
      r.createdOrUpdatedTime = ctx.now;
      ctx.committed(`Update ${c.label}`, `Updated ${c.label} ${r.name} (${r.intgGuid})`);
      return { status: 200, body: { data: view(ctx, r) } };
    };

  const remove: Handler = (ctx) => {
    const r = find(c, ctx);
    c.beforeDelete?.(ctx, r);
    const all = records(c, ctx.scope);
    all.splice(all.indexOf(r), 1);
    ctx.committed(`Delete ${c.label}`, `Deleted ${c.label} ${r.name} (${r.intgGuid})`);
    return { status: 204 };
  };

  // The emulator delivers nothing: a test succeeds unless the channel was told to fail (health.ts).
  const test: Handler = (ctx) => {
    const r = find(c, ctx);
    const failure = ctx.channelFailure?.(r);
    if (failure !== undefined) throw new HttpError(400, `Test of ${c.label} ${r.name} (${r.intgGuid}) failed: ${failure.details}`);
    r.lastSuccessfulTime = ctx.now;
    r.lastTestTime = ctx.now;
    ctx.touched();
    return { status: 204 };
  };

  const full: Schema = { oneOf: c.schemas() };
  const one = { kind: 'one' as const, type: c.path };
  const many = { kind: 'list' as const, type: c.path };
  const routes: Route[] = [
    {
      pattern: c.path,
      org: true,
      methods: { GET: list, POST: create },
      docs: { GET: { summary: `List ${c.label} records`, response: many }, POST: { summary: `Create a ${c.label}`, request: full, status: 201, response: one } },
    },
    {
      pattern: `${c.path}/search`,
      org: true,
      methods: { POST: search },
      docs: { POST: { summary: `Search ${c.label} records`, request: SEARCH, response: many } },
    },
  ];
  if (c.test) {
    routes.push({
      pattern: `${c.path}/:intgGuid/test`,
      org: true,
      methods: { POST: test },
      docs: { POST: { summary: `Test a ${c.label} (400 when it fails; a success moves state.lastSuccessfulTime)`, status: 204, response: { kind: 'none' } } },
    });
  }
  routes.push({
    pattern: `${c.path}/:intgGuid`,
    org: true,
    methods: { GET: getOne, PATCH: update(false), DELETE: remove, ...(c.put ? { PUT: update(true) } : {}) },
    docs: {
      GET: { summary: c.listByType ? `Read one ${c.label} (or list those of a type, when the segment is a type)` : `Read one ${c.label}`, response: one },
      PATCH: { summary: `Change members of a ${c.label}`, request: { oneOf: c.schemas().map(partial) }, response: one },
      DELETE: { summary: `Delete a ${c.label}`, status: 204, response: { kind: 'none' } },
      ...(c.put ? { PUT: { summary: `Replace a ${c.label}`, request: full, response: one } } : {}),
    },
  });
  return routes;
}
