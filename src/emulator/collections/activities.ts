// The activity and evaluation searches (seed 001): changed files, DNS summaries, user logins,
// compliance evaluations and cloud activities, over generated records (activity-data.ts), with the
// seed's time windows and paging: 5,000 rows per page, 500,000 per result set, `nextPage` a full
// URL fetched by GET with the bearer token, valid 24 hours on the emulator's clock.

import type { ActivityData, ActivityDataset } from '../activity-data.js';
import { mayAccess } from '../auth.js';
import { HttpError, isoTime, type Handler, type RequestContext } from '../http.js';
import { newResultSetId } from '../ids.js';
import { SEARCH } from '../request-schemas.js';
import type { Route } from '../router.js';
import { matches, parseSearch, parseTime, project, type SearchFilter } from '../search.js';
import {
  COMPLIANCE_DATASETS,
  COMPLIANCE_HISTORY_MS,
  DEFAULT_RANGE_MS,
  MAX_RANGE_MS,
  NEXT_PAGE_VALID_MS,
  ROWS_PER_PAGE,
  ROWS_PER_RESULT_SET,
} from '../service-facts.js';
import type { Schema } from '../validation.js';
import { check } from '../validation.js';

export const COMPLIANCE_SEARCH: Schema = {
  ...SEARCH,
  required: ['dataset'],
  properties: { ...SEARCH.properties, dataset: { type: 'string', enum: COMPLIANCE_DATASETS } },
};

interface Endpoint {
  dataset: ActivityDataset;
  /** The search path; its pages are served under `${base}/pages/:pageId`. */
  search: string;
  base: string;
  summary: string;
  /** 90 days of history and a required `dataset`. */
  compliance?: boolean;
}

const ENDPOINTS: Endpoint[] = [
  { dataset: 'ChangedFiles', base: 'Activities/ChangedFiles', search: 'Activities/ChangedFiles/search', summary: 'Search changed files' },
  { dataset: 'DNSs', base: 'Activities/DNSs', search: 'Activities/DNSs/search', summary: 'Search DNS summaries' },
  { dataset: 'UserLogins', base: 'Activities/UserLogins', search: 'Activities/UserLogins/search', summary: 'Search user logins' },
  {
    dataset: 'ComplianceEvaluations',
    base: 'Configs/ComplianceEvaluations',
    search: 'Configs/ComplianceEvaluations/search',
    summary: 'Search compliance evaluations (dataset required, last 90 days)',
    compliance: true,
  },
  { dataset: 'CloudActivities', base: 'CloudActivities', search: 'CloudActivities/search', summary: 'Search cloud activities' },
];

/** A result set: the matching records of one search, fixed when it ran, read page by page. */
interface ResultSet {
  endpoint: Endpoint;
  account: string;
  variant: string;
  /** Without filters: a contiguous index range; with filters: the matching indices. */
  first: number;
  indices?: number[];
  totalRows: number;
  returns?: string[];
  /** Expiry of each issued nextPage URL, by page number (1 = the second page). */
  urlExpiry: Map<number, number>;
}

/** Result sets kept at most; the oldest are dropped first (their URLs then answer 404). */
const MAX_RESULT_SETS = 1000;

const DAY_MS = 86_400_000;

/**
 * The time window of a search, [from, to): 24 hours before now by default (before `endTime` when
 * only that is given; up to now when only `startTime` is), at most 7 days, and for compliance
 * evaluations not before 90 days ago. 400 otherwise.
 */
function windowOf(ctx: RequestContext, start: string | undefined, end: string | undefined, names: [string, string], compliance: boolean): [number, number] {
  const from0 = start !== undefined ? parseTime(start, names[0]) : undefined;
  const to0 = end !== undefined ? parseTime(end, names[1]) : undefined;
  const to = to0 ?? (from0 !== undefined ? Math.max(ctx.now, from0) : ctx.now);
  const from = from0 ?? to - DEFAULT_RANGE_MS;
  if (to <= from) throw new HttpError(400, `Invalid data: #1: [${names[1]}: must be after ${names[0]}]`);
  if (to - from > MAX_RANGE_MS) {
    throw new HttpError(400, `Invalid data: #1: [${names[0]}..${names[1]}: the time range is ${((to - from) / DAY_MS).toFixed(2)} days; at most 7 days per request]`);
  }
  if (compliance && from < ctx.now - COMPLIANCE_HISTORY_MS) {
    throw new HttpError(400, `Invalid data: #1: [${names[0]}: compliance evaluations are kept for 90 days; start at ${isoTime(ctx.now - COMPLIANCE_HISTORY_MS)} or later]`);
  }
  return [from, to];
}

export function activityRoutes(data: ActivityData, accounts: readonly string[]): Route[] {
  const sets = new Map<string, ResultSet>();

  const sweep = (now: number) => {
    for (const [id, s] of sets) if ([...s.urlExpiry.values()].every((x) => x <= now)) sets.delete(id);
    while (sets.size >= MAX_RESULT_SETS) sets.delete(sets.keys().next().value as string);
  };

  /** One page of a result set, with `paging`; issues (and remembers) the next page's URL. */
  const page = (ctx: RequestContext, id: string, s: ResultSet, n: number) => {
    const offset = n * ROWS_PER_PAGE;
    const rows = Math.max(0, Math.min(ROWS_PER_PAGE, s.totalRows - offset));
    const out: unknown[] = new Array(rows);
    for (let k = 0; k < rows; k++) {
      const index = s.indices !== undefined ? s.indices[offset + k] : s.first + offset + k;
      out[k] = project(data.record(s.endpoint.dataset, s.account, s.variant, index), s.returns);
    }
    let nextPage: string | null = null;
    if (offset + rows < s.totalRows) {
      s.urlExpiry.set(n + 1, ctx.now + NEXT_PAGE_VALID_MS);
      nextPage = `${ctx.baseUrl}/api/v2/${s.endpoint.base}/pages/${id}.${n + 1}`;
    }
    return { status: 200, body: { paging: { rows, totalRows: s.totalRows, urls: { nextPage } }, data: out } };
  };

  /** Runs a search over the window and answers its first page. */
  const run = (ctx: RequestContext, e: Endpoint, from: number, to: number, filters: SearchFilter[], returns: string[] | undefined, variant: string) => {
    const account = ctx.account as string;
    // Records exist up to now; later ones have not happened yet.
    const { first, count } = data.range(from, Math.min(to, ctx.now));
    let indices: number[] | undefined;
    let totalRows = Math.min(count, ROWS_PER_RESULT_SET);
    if (filters.length > 0) {
      indices = [];
      for (let i = first; i < first + count && indices.length < ROWS_PER_RESULT_SET; i++) {
        const record = data.record(e.dataset, account, variant, i);
        if (filters.every((f) => matches(record, f))) indices.push(i);
      }
      totalRows = indices.length;
    }
    sweep(ctx.now);
    const id = newResultSetId();
    const s: ResultSet = { endpoint: e, account, variant, first, indices, totalRows, returns, urlExpiry: new Map() };
    sets.set(id, s);
    return page(ctx, id, s, 0);
  };

  /** A nextPage URL is answered under the path of the search that issued it. */
  const nextPage = (e: Endpoint): Handler => (ctx) => {
    const m = /^([0-9a-f]+)\.(\d+)$/.exec(ctx.params.pageId);
    const found = m ? sets.get(m[1]) : undefined;
    const s = found?.endpoint === e ? found : undefined;
    const n = m ? Number(m[2]) : NaN;
    const expiry = s?.urlExpiry.get(n);
    if (m === null || s === undefined || expiry === undefined) throw new HttpError(404, 'Not found: no such page (unknown or dropped result set)');
    if (ctx.now >= expiry) throw new HttpError(404, `Not found: this nextPage URL expired at ${isoTime(expiry)} (valid 24 hours)`);
    if (ctx.key !== undefined && !mayAccess(ctx.key, s.account)) {
      throw new HttpError(403, `Account ${s.account} is not accessible with this key`);
    }
    return page(ctx, m[1], s, n);
  };

  const routes: Route[] = [];
  for (const e of ENDPOINTS) {
    const search: Handler = (ctx) => {
      if (e.compliance) check(COMPLIANCE_SEARCH, ctx.body ?? {});
      const req = parseSearch(ctx.body);
      const [from, to] = windowOf(ctx, req.timeFilter?.startTime, req.timeFilter?.endTime, ['timeFilter/startTime', 'timeFilter/endTime'], e.compliance === true);
      const variant = e.compliance ? String((ctx.body as Record<string, unknown>).dataset) : '';
      return run(ctx, e, from, to, req.filters, req.returns, variant);
    };
    routes.push({
      pattern: e.search,
      methods: { POST: search },
      docs: { POST: { summary: e.summary, request: e.compliance ? COMPLIANCE_SEARCH : SEARCH, response: { kind: 'paged', type: e.dataset } } },
    });
    if (e.dataset === 'CloudActivities') {
      const list: Handler = (ctx) => {
        const q = (n: string) => ctx.query.get(n) ?? undefined;
        const [from, to] = windowOf(ctx, q('startTime'), q('endTime'), ['startTime', 'endTime'], false);
        return run(ctx, e, from, to, [], undefined, '');
      };
      routes.push({
        pattern: e.base,
        methods: { GET: list },
        docs: {
          GET: {
            summary: 'List cloud activities in a time range (default the last 24 hours)',
            query: { startTime: { type: 'string' }, endTime: { type: 'string' } },
            response: { kind: 'paged', type: e.dataset },
          },
        },
      });
    }
    routes.push({
      pattern: `${e.base}/pages/:pageId`,
      methods: { GET: nextPage(e) },
      docs: { GET: { summary: `The next page of a ${e.dataset} result set (paging.urls.nextPage; valid 24 hours)`, response: { kind: 'paged', type: e.dataset } } },
    });
  }
  return routes;
}
