// /api/v2/AuditLogs: the write history of the addressed account (or organization).

import { HttpError, type Handler, type RequestContext } from '../http.js';
import type { AuditRecord } from '../model.js';
import type { Route } from '../router.js';
import { SEARCH } from '../request-schemas.js';
import { matches, parseSearch, parseTime, project } from '../search.js';

function inRange(ctx: RequestContext, start: string | undefined, end: string | undefined, names: [string, string]): AuditRecord[] {
  const from = start !== undefined ? parseTime(start, names[0]) : -Infinity;
  const to = end !== undefined ? parseTime(end, names[1]) : Infinity;
  if (from > to) throw new HttpError(400, `Invalid data: #1: [${names[1]}: must not be before ${names[0]}]`);
  return ctx.scope.auditLogs.filter((r) => {
    const t = Date.parse(r.createdTime);
    return t >= from && t <= to;
  });
}

const list: Handler = (ctx) => {
  const records = inRange(ctx, ctx.query.get('startTime') ?? undefined, ctx.query.get('endTime') ?? undefined, ['startTime', 'endTime']);
  return { status: 200, body: { data: records } };
};

const search: Handler = (ctx) => {
  const req = parseSearch(ctx.body);
  const records = inRange(ctx, req.timeFilter?.startTime, req.timeFilter?.endTime, ['timeFilter/startTime', 'timeFilter/endTime']);
  const data = records.filter((r) => req.filters.every((f) => matches(r, f))).map((r) => project(r, req.returns));
  return { status: 200, body: { data } };
};

export const auditLogRoutes = (): Route[] => [
  {
    pattern: 'AuditLogs',
    org: true,
    methods: { GET: list },
    docs: {
      GET: {
        summary: 'The write history of the account (or organization), with the user of each write',
        query: { startTime: { type: 'string' }, endTime: { type: 'string' } },
        response: { kind: 'list', type: 'AuditLogs' },
      },
    },
  },
  {
    pattern: 'AuditLogs/search',
    org: true,
    methods: { POST: search },
    docs: { POST: { summary: 'Search the write history', request: SEARCH, response: { kind: 'list', type: 'AuditLogs' } } },
  },
];
