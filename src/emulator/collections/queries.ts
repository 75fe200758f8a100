// /api/v2/Queries (api-facts.md "Queries"): client-chosen ids, the text kept verbatim and checked by
// the emulator's parse check (query-text.ts), predefined queries (the vendor's, read-only: 403),
// `usedByPolicies`, and a delete refused while a policy uses the query (the emulator's choice).

import { HttpError, isoTime, objectBody, type Handler, type RequestContext } from '../http.js';
import type { QueryRecord } from '../model.js';
import { checkQueryText } from '../query-text.js';
import type { Route } from '../router.js';
import { check, invalidData, type Schema } from '../validation.js';
import { policiesOf, queriesOf, refuseMembers, withCarried, type Vendor } from './policy-data.js';

const ID_PATTERN = '^[A-Za-z0-9_.-]+$';
const TEXT: Schema = { type: 'string', minLength: 1 };
const USAGE: Schema = { type: 'object', properties: { providers: { type: 'array', items: { type: 'string' } }, policies: { type: 'array', items: { type: 'string' } } } };
export const QUERY_CREATE: Schema = {
  type: 'object',
  required: ['queryId', 'queryText'],
  properties: {
    queryId: { type: 'string', minLength: 1, pattern: ID_PATTERN },
    queryText: TEXT,
    queryName: { type: 'string' },
    description: { type: 'string' },
    usageContext: USAGE,
    evaluatorId: { type: 'string' },
  },
  additionalProperties: true,
};
export const QUERY_PATCH: Schema = {
  type: 'object',
  properties: { queryText: TEXT, queryName: { type: 'string' }, description: { type: 'string' }, usageContext: USAGE, evaluatorId: { type: 'string' } },
  additionalProperties: true,
};
export const QUERY_VALIDATE: Schema = { type: 'object', required: ['queryText'], properties: { queryText: TEXT }, additionalProperties: true };

/** 400 with the parse check's finding when the text does not parse. */
function parsed(text: string) {
  const r = checkQueryText(text);
  if (!r.ok) throw new HttpError(400, `Invalid query text: ${r.problem}`);
  return r.shape;
}

export function queryRoutes(vendor: Vendor): Route[] {
  const usedBy = (ctx: RequestContext, id: string) =>
    policiesOf(ctx.scope, vendor)
      .filter((p) => p.queryId === id)
      .map((p) => p.policyId);

  function view(ctx: RequestContext, q: QueryRecord): Record<string, unknown> {
    const r = checkQueryText(q.queryText);
    const shape = r.ok ? r.shape : undefined;
    return withCarried(
      {
        queryId: q.queryId,
        queryText: q.queryText,
        ...(q.queryName !== undefined ? { queryName: q.queryName } : {}),
        ...(q.description !== undefined ? { description: q.description } : {}),
        ...(q.usageContext !== undefined ? { usageContext: structuredClone(q.usageContext) } : {}),
        ...(q.evaluatorId !== undefined ? { evaluatorId: q.evaluatorId } : {}),
        owner: q.owner,
        lastUpdateTime: isoTime(q.lastUpdateTime),
        lastUpdateUser: q.lastUpdateUser,
        resultSchema: (shape?.columns ?? []).map((name) => ({ name, dataType: 'String' })),
        providers: shape?.providers ?? [],
        usedByPolicies: usedBy(ctx, q.queryId),
      },
      q.carried,
    );
  }

  function find(ctx: RequestContext): QueryRecord {
    const q = queriesOf(ctx.scope, vendor).find((x) => x.queryId === ctx.params.queryId);
    if (q === undefined) throw new HttpError(404, `Query id ${ctx.params.queryId} not found`);
    return q;
  }

  function findCustom(ctx: RequestContext): QueryRecord {
    const q = find(ctx);
    if (q.predefined) throw new HttpError(403, `Query ${q.queryId} is predefined (owner ${q.owner}) and cannot be changed or deleted`);
    return q;
  }

  const list: Handler = (ctx) => ({ status: 200, body: { data: queriesOf(ctx.scope, vendor).map((q) => view(ctx, q)) } });
  const get: Handler = (ctx) => ({ status: 200, body: { data: view(ctx, find(ctx)) } });

  const create: Handler = (ctx) => {
    const body = objectBody(ctx);
    check(QUERY_CREATE, body);
    const id = body.queryId as string;
    if (id.startsWith(vendor.prefix)) throw invalidData([`queryId: ${vendor.prefix} is reserved for predefined queries`]);
    const queries = queriesOf(ctx.scope, vendor);
    if (queries.some((q) => q.queryId === id)) throw new HttpError(409, `Query id ${id} already exists`);
    parsed(body.queryText as string);
    const q: QueryRecord = {
      queryId: id,
      queryText: body.queryText as string,
      ...(typeof body.queryName === 'string' ? { queryName: body.queryName } : {}),
      ...(typeof body.description === 'string' ? { description: body.description } : {}),
      ...(body.usageContext !== undefined ? { usageContext: structuredClone(body.usageContext) } : {}),
      ...(typeof body.evaluatorId === 'string' ? { evaluatorId: body.evaluatorId } : {}),
      owner: ctx.user,
      lastUpdateTime: ctx.now,
      lastUpdateUser: ctx.user,
      predefined: false,
    };
    queries.push(q);
    ctx.committed('Create query', `Created query ${id}`);
    return { status: 201, body: { data: view(ctx, q) } };
  };

  const patch: Handler = (ctx) => {
    const q = findCustom(ctx);
    const body = objectBody(ctx);
    refuseMembers(body, ['queryId'], 'must not be sent on update; a query id cannot change');
    check(QUERY_PATCH, body);
    if (typeof body.evaluatorId === 'string' && body.evaluatorId !== (q.evaluatorId ?? '')) {
      throw invalidData([`evaluatorId: cannot be changed on an existing query (is ${JSON.stringify(q.evaluatorId ?? '')})`]);
    }
    if (typeof body.queryText === 'string') parsed(body.queryText);
    if (typeof body.queryText === 'string') q.queryText = body.queryText;
    if (typeof body.queryName === 'string') q.queryName = body.queryName;
    if (typeof body.description === 'string') q.description = body.description;
    if (body.usageContext !== undefined) q.usageContext = structuredClone(body.usageContext);
    q.lastUpdateTime = ctx.now;
    q.lastUpdateUser = ctx.user;
    ctx.committed('Update query', `Updated query ${q.queryId}`);
    return { status: 200, body: { data: view(ctx, q) } };
  };

  const remove: Handler = (ctx) => {
    const q = findCustom(ctx);
    const users = usedBy(ctx, q.queryId);
    // No source shows the service's answer; the emulator refuses, naming the policy (README).
    if (users.length > 0) throw new HttpError(400, `Query ${q.queryId} is used by policy ${users.join(', ')}; delete the policy or change its query first`);
    const all = queriesOf(ctx.scope, vendor);
    all.splice(all.indexOf(q), 1);
    ctx.committed('Delete query', `Deleted query ${q.queryId}`);
    return { status: 204 };
  };

  /** A query-shaped answer for a text that parses; nothing is stored. */
  const validateText: Handler = (ctx) => {
    const body = objectBody(ctx);
    check(QUERY_VALIDATE, body);
    const shape = parsed(body.queryText as string);
    return {
      status: 200,
      body: {
        data: {
          queryId: shape.name ?? '',
          queryText: body.queryText,
          owner: ctx.user,
          lastUpdateTime: isoTime(ctx.now),
          lastUpdateUser: ctx.user,
          resultSchema: shape.columns.map((name) => ({ name, dataType: 'String' })),
          providers: shape.providers,
        },
      },
    };
  };

  const ONE = { kind: 'one' as const, type: 'Queries' };
  return [
    {
      pattern: 'Queries',
      methods: { GET: list, POST: create },
      docs: {
        GET: { summary: 'List queries (predefined and custom)', response: { kind: 'list', type: 'Queries' } },
        POST: { summary: 'Create a query (client-chosen queryId; 409 `already exists` for a taken one)', request: QUERY_CREATE, status: 201, response: ONE },
      },
    },
    {
      pattern: 'Queries/validate',
      methods: { POST: validateText },
      docs: { POST: { summary: 'Check a query text (400 when it does not parse)', request: QUERY_VALIDATE, response: ONE } },
    },
    {
      pattern: 'Queries/:queryId',
      methods: { GET: get, PATCH: patch, DELETE: remove },
      docs: {
        GET: { summary: 'Read one query', response: ONE },
        PATCH: { summary: 'Change a custom query (no queryId in the body)', request: QUERY_PATCH, response: ONE },
        DELETE: { summary: 'Delete a custom query no policy uses', status: 204, response: { kind: 'none' } },
      },
    },
  ];
}
