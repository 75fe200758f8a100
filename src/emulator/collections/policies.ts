// /api/v2/Policies (api-facts.md "Policies", "Predefined policy state"): ids built from a suffix
// (`<tenant>-<suffix>`, else `<tenant>-default-<n>`), severity answered in lower case, answers with
// `message: "SUCCESS"`, PATCH partial and without `policyId`, the bulk PATCH with a bare array, and
// the vendor's predefined policies (`<vendor>-global-<n>`), whose state only may change.

import { HttpError, isoTime, objectBody, type Handler, type RequestContext } from '../http.js';
import type { PolicyRecord } from '../model.js';
import { constraintFieldsFor } from '../predefined-policies.js';
import { predefinedProfiles } from '../predefined-profiles.js';
import { checkQueryText } from '../query-text.js';
import type { Route } from '../router.js';
import { check, invalidData, type Schema } from '../validation.js';
import { policiesOf, queriesOf, refuseMembers, tenantOf, withCarried, type Vendor } from './policy-data.js';

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
/** api-facts.md: lower-case letters (at most 16), optionally `-` and digits (at most 8). */
const SUFFIX = /^[a-z]{1,16}(-[0-9]{1,8})?$/;
const MAX_LIMIT = 5000;
/** What a predefined policy lets a client change (api-facts.md: its state). */
const PREDEFINED_WRITABLE = ['enabled', 'alertEnabled', 'severity'];

const SEVERITY: Schema = { type: 'string', minLength: 1, description: `one of ${SEVERITIES.join(', ')}, in any case; answered in lower case` };
const members: Record<string, Schema> = {
  policyType: { type: 'string', enum: ['Violation', 'Compliance', 'Manual'], description: 'Manual is refused: users create Violation and Compliance policies' },
  queryId: { type: 'string', minLength: 1 },
  title: { type: 'string', minLength: 1 },
  description: { type: 'string' },
  remediation: { type: 'string', minLength: 1 },
  severity: SEVERITY,
  enabled: { type: 'boolean' },
  alertEnabled: { type: 'boolean' },
  alertProfile: { type: 'string', minLength: 1, description: '<alertProfileId>.<alertTemplateName> or <alertProfileId>' },
  evalFrequency: { type: 'string', enum: ['Hourly', 'Daily'] },
  limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT },
  tags: { type: 'array', items: { type: 'string', minLength: 1 } },
};
export const POLICY_CREATE: Schema = {
  type: 'object',
  required: ['policyType', 'queryId', 'title', 'description', 'remediation', 'severity'],
  properties: { policyId: { type: 'string', description: 'the suffix of the id: lower-case letters (≤ 16), optionally -<digits> (≤ 8)' }, ...members },
  additionalProperties: true,
};
export const POLICY_PATCH: Schema = { type: 'object', properties: members, additionalProperties: true };
export const POLICY_BULK: Schema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['policyId'],
    properties: { policyId: { type: 'string', minLength: 1 }, enabled: { type: 'boolean' }, severity: SEVERITY },
    additionalProperties: true,
  },
};

function severityOf(value: unknown, at: string, errors: string[]): string | undefined {
  if (typeof value !== 'string') return undefined;
  const s = value.toLowerCase();
  if (!(SEVERITIES as readonly string[]).includes(s)) errors.push(`${at}: must be one of ${SEVERITIES.join(', ')}`);
  return s;
}

export function policyRoutes(vendor: Vendor): Route[] {
  const profiles = predefinedProfiles(vendor.prefix);

  function view(ctx: RequestContext, p: PolicyRecord): Record<string, unknown> {
    const query = p.queryId === undefined ? undefined : queriesOf(ctx.scope, vendor).find((q) => q.queryId === p.queryId);
    return withCarried(
      {
        policyId: p.policyId,
        policyType: p.policyType,
        ...(p.queryId !== undefined ? { queryId: p.queryId } : {}),
        ...(query !== undefined ? { queryText: query.queryText } : {}),
        title: p.title,
        description: p.description,
        remediation: p.remediation,
        severity: p.severity,
        enabled: p.enabled,
        alertEnabled: p.alertEnabled,
        ...(p.alertProfile !== undefined ? { alertProfile: p.alertProfile } : {}),
        ...(p.evalFrequency !== undefined && p.policyType === 'Violation' ? { evalFrequency: p.evalFrequency } : {}),
        limit: p.limit,
        tags: [...p.tags],
        owner: p.owner,
        lastUpdateTime: isoTime(p.lastUpdateTime),
        lastUpdateUser: p.lastUpdateUser,
        exceptionConfiguration: { constraintFields: structuredClone(p.constraintFields) },
        ...structuredClone(p.info ?? {}),
      },
      p.carried,
    );
  }
  const answer = (status: number, data: unknown) => ({ status, body: { data, message: 'SUCCESS' } });

  /** Checks what a create or a custom PATCH carries; returns the lower-case severity and the query's providers. */
  function checkMembers(ctx: RequestContext, body: Record<string, unknown>): { severity?: string; providers?: string[] } {
    const errors: string[] = [];
    if (body.policyType === 'Manual') errors.push('policyType: Manual policies are the service\'s; create Violation or Compliance policies');
    if (typeof body.remediation === 'string' && body.remediation.trim() === '') errors.push('remediation: must not be empty');
    const severity = severityOf(body.severity, 'severity', errors);
    let providers: string[] | undefined;
    if (typeof body.queryId === 'string') {
      const q = queriesOf(ctx.scope, vendor).find((x) => x.queryId === body.queryId);
      if (q === undefined) errors.push(`queryId: no query ${body.queryId} in this account`);
      else {
        const r = checkQueryText(q.queryText);
        providers = r.ok ? r.shape.providers : [];
      }
    }
    if (typeof body.alertProfile === 'string') {
      const [profileId, template, ...rest] = body.alertProfile.split('.');
      const profile = (ctx.scope.predefinedProfiles ?? profiles).find((p) => p.alertProfileId === profileId) ?? ctx.scope.alertProfiles.find((p) => p.alertProfileId === profileId);
      if (rest.length > 0) errors.push(`alertProfile: expected <alertProfileId>.<alertTemplateName>, got ${JSON.stringify(body.alertProfile)}`);
      else if (profile === undefined) errors.push(`alertProfile: no alert profile ${profileId}`);
      else if (template !== undefined && !profile.alerts.some((t) => t.name === template)) errors.push(`alertProfile: alert profile ${profileId} has no template ${template}`);
    }
    if (errors.length > 0) throw invalidData(errors);
    return { ...(severity !== undefined ? { severity } : {}), ...(providers !== undefined ? { providers } : {}) };
  }

  function find(ctx: RequestContext, id = ctx.params.policyId): PolicyRecord {
    const p = policiesOf(ctx.scope, vendor).find((x) => x.policyId === id);
    if (p === undefined) throw new HttpError(404, `Policy ${id} not found`);
    return p;
  }

  const list: Handler = (ctx) => answer(200, policiesOf(ctx.scope, vendor).map((p) => view(ctx, p)));
  const get: Handler = (ctx) => answer(200, view(ctx, find(ctx)));

  const tags: Handler = (ctx) => answer(200, [...new Set(policiesOf(ctx.scope, vendor).flatMap((p) => p.tags))].sort());

  function newId(ctx: RequestContext, suffix: unknown): string {
    const policies = policiesOf(ctx.scope, vendor);
    const tenant = tenantOf(ctx);
    if (suffix !== undefined) {
      if (typeof suffix !== 'string' || !SUFFIX.test(suffix)) {
        throw invalidData([`policyId: ${JSON.stringify(suffix)} is not a valid policy id suffix: lower-case letters (at most 16), optionally followed by - and digits (at most 8), e.g. lwcustom-11`]);
      }
      const id = `${tenant}-${suffix}`;
      if (policies.some((p) => p.policyId === id)) throw new HttpError(409, `Policy ${id} already exists`);
      return id;
    }
    let id: string;
    do {
      ctx.scope.policyCounter = (ctx.scope.policyCounter ?? 0) + 1;
      id = `${tenant}-default-${ctx.scope.policyCounter}`;
    } while (policies.some((p) => p.policyId === id));
    return id;
  }

  const create: Handler = (ctx) => {
    const body = objectBody(ctx);
    check(POLICY_CREATE, body);
    const { severity, providers } = checkMembers(ctx, body);
    const id = newId(ctx, body.policyId);
    const type = body.policyType as string;
    const p: PolicyRecord = {
      policyId: id,
      policyType: type,
      queryId: body.queryId as string,
      title: body.title as string,
      description: body.description as string,
      remediation: body.remediation as string,
      severity: severity as string,
      enabled: body.enabled !== false,
      alertEnabled: body.alertEnabled !== false,
      ...(typeof body.alertProfile === 'string' ? { alertProfile: body.alertProfile } : {}),
      ...(type === 'Violation' ? { evalFrequency: typeof body.evalFrequency === 'string' ? body.evalFrequency : 'Hourly' } : {}),
      limit: typeof body.limit === 'number' ? body.limit : 1000,
      tags: Array.isArray(body.tags) ? [...new Set(body.tags as string[])] : [],
      owner: ctx.user,
      lastUpdateTime: ctx.now,
      lastUpdateUser: ctx.user,
      constraintFields: constraintFieldsFor(providers ?? []),
      predefined: false,
    };
    policiesOf(ctx.scope, vendor).push(p);
    ctx.committed('Create policy', `Created policy ${id}`);
    return answer(201, view(ctx, p));
  };

  const patch: Handler = (ctx) => {
    const p = find(ctx);
    const body = objectBody(ctx);
    refuseMembers(body, ['policyId'], 'must not be sent on update; a policy id cannot change');
    check(POLICY_PATCH, body);
    if (p.predefined) {
      const other = Object.keys(members).filter((k) => body[k] !== undefined && !PREDEFINED_WRITABLE.includes(k));
      if (other.length > 0) throw new HttpError(403, `Policy ${p.policyId} is predefined (owner ${p.owner}); only ${PREDEFINED_WRITABLE.join(', ')} may change, not ${other.join(', ')}`);
    }
    const { severity, providers } = checkMembers(ctx, body);
    for (const k of ['policyType', 'title', 'description', 'remediation', 'alertProfile', 'evalFrequency'] as const) {
      if (typeof body[k] === 'string') p[k] = body[k] as string;
    }
    if (typeof body.queryId === 'string') {
      p.queryId = body.queryId;
      p.constraintFields = constraintFieldsFor(providers ?? []);
    }
    if (p.policyType === 'Violation') p.evalFrequency ??= 'Hourly';
    if (severity !== undefined) p.severity = severity;
    if (typeof body.enabled === 'boolean') p.enabled = body.enabled;
    if (typeof body.alertEnabled === 'boolean') p.alertEnabled = body.alertEnabled;
    if (typeof body.limit === 'number') p.limit = body.limit;
    if (Array.isArray(body.tags)) p.tags = [...new Set(body.tags as string[])];
    p.lastUpdateTime = ctx.now;
    p.lastUpdateUser = ctx.user;
    ctx.committed('Update policy', `Updated policy ${p.policyId}`);
    return answer(200, view(ctx, p));
  };

  /** The bulk state update: a bare array; all or nothing. Custom ids are updated as well (README). */
  const bulk: Handler = (ctx) => {
    const body = ctx.body;
    if (!Array.isArray(body)) throw invalidData([': must be array: the bulk update takes a bare array [{policyId, enabled?, severity?}]']);
    check(POLICY_BULK, body);
    const items = body as Record<string, unknown>[];
    const policies = policiesOf(ctx.scope, vendor);
    const errors: string[] = [];
    const seen = new Set<string>();
    const targets = items.map((item, i) => {
      const id = item.policyId as string;
      if (seen.has(id)) errors.push(`${i}/policyId: ${id} is listed twice`);
      seen.add(id);
      const p = policies.find((x) => x.policyId === id);
      if (p === undefined) errors.push(`${i}/policyId: no policy ${id} in this account`);
      return { p, severity: severityOf(item.severity, `${i}/severity`, errors), enabled: item.enabled as boolean | undefined };
    });
    if (errors.length > 0) throw invalidData(errors);
    for (const t of targets) {
      const p = t.p as PolicyRecord;
      if (t.enabled !== undefined) p.enabled = t.enabled;
      if (t.severity !== undefined) p.severity = t.severity;
      p.lastUpdateTime = ctx.now;
      p.lastUpdateUser = ctx.user;
    }
    if (targets.length > 0) ctx.committed('Update policies', `Updated the state of ${targets.map((t) => (t.p as PolicyRecord).policyId).join(', ')}`);
    return answer(200, targets.map((t) => view(ctx, t.p as PolicyRecord)));
  };

  const remove: Handler = (ctx) => {
    const p = find(ctx);
    if (p.predefined) throw new HttpError(403, `Policy ${p.policyId} is predefined (owner ${p.owner}) and cannot be deleted`);
    const all = policiesOf(ctx.scope, vendor);
    all.splice(all.indexOf(p), 1);
    // Its exceptions go with it.
    ctx.scope.policyExceptions = (ctx.scope.policyExceptions ?? []).filter((e) => e.policyId !== p.policyId);
    ctx.committed('Delete policy', `Deleted policy ${p.policyId}`);
    return { status: 204 };
  };

  const ONE = { kind: 'one' as const, type: 'Policies' };
  const LIST = { kind: 'list' as const, type: 'Policies' };
  return [
    {
      pattern: 'Policies',
      methods: { GET: list, POST: create, PATCH: bulk },
      docs: {
        GET: { summary: 'List policies (predefined and custom)', response: LIST },
        POST: { summary: 'Create a policy (policyId: an optional suffix of the id)', request: POLICY_CREATE, status: 201, response: ONE },
        PATCH: { summary: 'Bulk update of enabled and severity: a bare array [{policyId, enabled?, severity?}]', request: POLICY_BULK, response: LIST },
      },
    },
    {
      pattern: 'Policies/Tags',
      methods: { GET: tags },
      docs: { GET: { summary: 'The tags of every policy', response: { kind: 'schema', schema: { type: 'object', properties: { data: { type: 'array', items: { type: 'string' } } } } } } },
    },
    {
      pattern: 'Policies/:policyId',
      methods: { GET: get, PATCH: patch, DELETE: remove },
      docs: {
        GET: { summary: 'Read one policy', response: ONE },
        PATCH: { summary: 'Change a policy (partial; no policyId; a predefined one: enabled, alertEnabled, severity only)', request: POLICY_PATCH, response: ONE },
        DELETE: { summary: 'Delete a custom policy (and its exceptions)', status: 204, response: { kind: 'none' } },
      },
    },
  ];
}
