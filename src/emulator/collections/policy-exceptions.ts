// /api/v2/Exceptions?policyId=P (api-facts.md "Policy exceptions"): a flat path with the policy as a
// query parameter on every verb; each constraint's fieldKey checked against the policy's constraint
// fields with the service's text; tag values as `[{key, value: [..]}]` (the older one-value form
// kept as written); Manual policies take none; an unknown exception is 404 `Not Found`.

import { HttpError, isoTime, objectBody, type Handler, type RequestContext } from '../http.js';
import { newMcGuid } from '../ids.js';
import type { PolicyExceptionRecord, PolicyRecord } from '../model.js';
import type { Route } from '../router.js';
import { check, invalidData, type Schema } from '../validation.js';
import { policyOfQuery, refuseMembers, withCarried, type Vendor } from './policy-data.js';

const CONSTRAINTS: Schema = {
  type: 'array',
  minItems: 1,
  items: { type: 'object', required: ['fieldKey', 'fieldValues'], properties: { fieldKey: { type: 'string', minLength: 1 }, fieldValues: { type: 'array', minItems: 1 } } },
};
export const EXCEPTION_CREATE: Schema = {
  type: 'object',
  required: ['description', 'constraints'],
  properties: { description: { type: 'string' }, constraints: CONSTRAINTS },
  additionalProperties: true,
};
export const EXCEPTION_PATCH: Schema = { type: 'object', properties: { description: { type: 'string' }, constraints: CONSTRAINTS }, additionalProperties: true };
const POLICY_ID_QUERY = { policyId: { type: 'string', description: 'the policy the exceptions belong to (required on every verb)' } as Schema };

const WILDCARD = /[*?]/;

/** The service's refusal of a key the policy does not list (its recorded text). */
const notApplicable = (key: string, p: PolicyRecord): HttpError =>
  new HttpError(400, `fieldKey: ${key} is not applicable to policy ${p.policyId}. Valid fieldKey are [${p.constraintFields.map((f) => f.fieldKey).sort().join(', ')}]`);

function checkConstraints(p: PolicyRecord, constraints: { fieldKey: string; fieldValues: unknown[] }[]): void {
  const errors: string[] = [];
  constraints.forEach((c, i) => {
    const field = p.constraintFields.find((f) => f.fieldKey === c.fieldKey);
    if (field === undefined) throw notApplicable(c.fieldKey, p);
    c.fieldValues.forEach((v, j) => {
      const at = `constraints/${i}/fieldValues/${j}`;
      if (field.dataType !== 'KVTagPair') {
        if (typeof v !== 'string' || v === '') errors.push(`${at}: must be a non-empty string`);
        else if (field.dataType === 'Number' && !/^\d+$/.test(v) && v !== '*') errors.push(`${at}: ${c.fieldKey} takes numbers`);
        return;
      }
      const tag = v as Record<string, unknown> | null;
      const values = tag !== null && typeof tag === 'object' ? (Array.isArray(tag.value) ? tag.value : [tag.value]) : [];
      if (tag === null || typeof tag !== 'object' || Array.isArray(tag) || typeof tag.key !== 'string' || tag.key === '') {
        errors.push(`${at}: must be {key, value: [..]}`);
      } else if (!values.every((x) => typeof x === 'string')) {
        errors.push(`${at}/value: must be a list of strings`);
      } else if (WILDCARD.test(tag.key) || values.some((x) => WILDCARD.test(x as string))) {
        errors.push(`${at}: wildcards are not accepted for ${c.fieldKey}`);
      }
    });
  });
  if (errors.length > 0) throw invalidData(errors);
}

export function policyExceptionRoutes(vendor: Vendor): Route[] {
  const all = (ctx: RequestContext) => (ctx.scope.policyExceptions ??= []);

  const view = (e: PolicyExceptionRecord) =>
    withCarried(
      {
        exceptionId: e.exceptionId,
        description: e.description,
        constraints: structuredClone(e.constraints),
        lastUpdateTime: isoTime(e.lastUpdateTime),
        lastUpdateUser: e.lastUpdateUser,
      },
      e.carried,
    );

  /** The policy of `?policyId=`, refusing a Manual one for writes. */
  function policy(ctx: RequestContext, write: boolean): PolicyRecord {
    const p = policyOfQuery(ctx, vendor);
    if (write && p.policyType === 'Manual') throw new HttpError(400, `Policy ${p.policyId} is a Manual policy; Manual policies take no exceptions`);
    return p;
  }

  function find(ctx: RequestContext, p: PolicyRecord): PolicyExceptionRecord {
    const e = all(ctx).find((x) => x.policyId === p.policyId && x.exceptionId === ctx.params.exceptionId);
    if (e === undefined) throw new HttpError(404, 'Not Found');
    return e;
  }

  const list: Handler = (ctx) => {
    const p = policy(ctx, false);
    return { status: 200, body: { data: all(ctx).filter((e) => e.policyId === p.policyId).map(view) } };
  };
  const get: Handler = (ctx) => ({ status: 200, body: { data: view(find(ctx, policy(ctx, false))) } });

  const create: Handler = (ctx) => {
    const p = policy(ctx, true);
    const body = objectBody(ctx);
    refuseMembers(body, ['exceptionId'], 'the service assigns it');
    check(EXCEPTION_CREATE, body);
    const constraints = structuredClone(body.constraints) as PolicyExceptionRecord['constraints'];
    checkConstraints(p, constraints);
    const e: PolicyExceptionRecord = {
      exceptionId: newMcGuid(),
      policyId: p.policyId,
      description: body.description as string,
      constraints: constraints.map((c) => ({ fieldKey: c.fieldKey, fieldValues: c.fieldValues })),
      lastUpdateTime: ctx.now,
      lastUpdateUser: ctx.user,
    };
    all(ctx).push(e);
    ctx.committed('Create policy exception', `Created exception ${e.exceptionId} of policy ${p.policyId}`);
    return { status: 201, body: { data: view(e) } };
  };

  const patch: Handler = (ctx) => {
    const p = policy(ctx, true);
    const e = find(ctx, p);
    const body = objectBody(ctx);
    refuseMembers(body, ['exceptionId'], 'must not be sent on update; an exception id cannot change');
    check(EXCEPTION_PATCH, body);
    if (body.constraints !== undefined) {
      const constraints = structuredClone(body.constraints) as PolicyExceptionRecord['constraints'];
      checkConstraints(p, constraints);
      e.constraints = constraints.map((c) => ({ fieldKey: c.fieldKey, fieldValues: c.fieldValues }));
    }
    if (typeof body.description === 'string') e.description = body.description;
    e.lastUpdateTime = ctx.now;
    e.lastUpdateUser = ctx.user;
    ctx.committed('Update policy exception', `Updated exception ${e.exceptionId} of policy ${p.policyId}`);
    return { status: 200, body: { data: view(e) } };
  };

  const remove: Handler = (ctx) => {
    const p = policy(ctx, false);
    const e = find(ctx, p);
    all(ctx).splice(all(ctx).indexOf(e), 1);
    ctx.committed('Delete policy exception', `Deleted exception ${e.exceptionId} of policy ${p.policyId}`);
    return { status: 204 };
  };

  const ONE = { kind: 'one' as const, type: 'Exceptions' };
  return [
    {
      pattern: 'Exceptions',
      methods: { GET: list, POST: create },
      docs: {
        GET: { summary: 'List the exceptions of the policy ?policyId=', query: POLICY_ID_QUERY, response: { kind: 'list', type: 'Exceptions' } },
        POST: { summary: 'Create an exception of the policy ?policyId= (fieldKeys of its exceptionConfiguration)', query: POLICY_ID_QUERY, request: EXCEPTION_CREATE, status: 201, response: ONE },
      },
    },
    {
      pattern: 'Exceptions/:exceptionId',
      methods: { GET: get, PATCH: patch, DELETE: remove },
      docs: {
        GET: { summary: 'Read one exception of the policy ?policyId=', query: POLICY_ID_QUERY, response: ONE },
        PATCH: { summary: 'Change an exception (no exceptionId in the body)', query: POLICY_ID_QUERY, request: EXCEPTION_PATCH, response: ONE },
        DELETE: { summary: 'Delete an exception', query: POLICY_ID_QUERY, status: 204, response: { kind: 'none' } },
      },
    },
  ];
}
