// /api/v2/AlertRules: requests use camelCase filters, responses the service's lowercase spellings,
// with list values reordered (categories alphabetically, severities ascending) as the service does.
// The newer filters `category`, `subCategory` and `source` (or `sources`) are stored where written and
// answered as written; a rule created with `X-Emulator-Spelling: older` answers in camelCase with a
// top-level `name` (api-facts.md: older records).

import { notFound, objectBody, wantsOlderSpelling, type Handler, type RequestContext } from '../http.js';
import { newMcGuid } from '../ids.js';
import type { RuleFilters, RuleRecord } from '../model.js';
import { RULE_CREATE, RULE_PATCH, SEARCH } from '../request-schemas.js';
import type { Route } from '../router.js';
import { runSearch } from '../search.js';
import { check, invalidData } from '../validation.js';

/** The newer filter lists: member of RuleFilters → the request spellings that set it. */
const NEWER: Record<'category' | 'subCategory' | 'source', readonly string[]> = {
  category: ['category'],
  subCategory: ['subCategory'],
  source: ['source', 'sources'],
};
const NEWER_MEMBERS = Object.keys(NEWER) as (keyof typeof NEWER)[];

export function ruleResponse(r: RuleRecord): Record<string, unknown> {
  const f = r.filters;
  const newer: Record<string, string[]> = {};
  for (const m of NEWER_MEMBERS) {
    const list = f[m];
    if (list !== undefined) newer[m === 'source' ? (r.sourceSpelling ?? 'source') : m] = [...list].sort();
  }
  return {
    ...structuredClone(r.carried ?? {}),
    mcGuid: r.mcGuid,
    type: r.type,
    ...(r.older ? { name: f.name } : {}),
    intgGuidList: [...r.intgGuidList],
    filters: {
      name: f.name,
      description: f.description,
      enabled: f.enabled,
      [r.older ? 'resourceGroups' : 'resourcegroups']: [...f.resourceGroups],
      [r.older ? 'eventCategory' : 'eventcategory']: [...f.eventCategory].sort(),
      severity: [...f.severity].sort((a, b) => a - b),
      ...newer,
      createdOrUpdatedBy: r.createdOrUpdatedBy,
      createdOrUpdatedTime: String(r.createdOrUpdatedTime),
    },
  };
}

/** Every listed channel must exist in the addressed account (or organization). */
function checkChannels(ctx: RequestContext, list: string[]): void {
  const known = new Set(ctx.scope.alertChannels.map((c) => c.intgGuid));
  const errors = list.flatMap((g, i) => (known.has(g) ? [] : [`intgGuidList/${i}: no alert channel ${g} in this account`]));
  if (errors.length > 0) throw invalidData(errors);
}

function mergeFilters(base: RuleFilters, body: Record<string, unknown>): RuleFilters {
  const pick = <K extends keyof RuleFilters>(k: K): RuleFilters[K] => (body[k] !== undefined ? (body[k] as RuleFilters[K]) : base[k]);
  const out: RuleFilters = {
    name: pick('name'),
    description: pick('description'),
    enabled: pick('enabled'),
    resourceGroups: [...pick('resourceGroups')],
    eventCategory: [...pick('eventCategory')],
    severity: [...pick('severity')],
  };
  for (const m of NEWER_MEMBERS) {
    const given = NEWER[m].map((spelling) => body[spelling]).find((v) => v !== undefined) as string[] | undefined;
    const list = given ?? base[m];
    if (list !== undefined) out[m] = [...list];
  }
  return out;
}

/** The spelling of the source filter a request used, if it gave one. */
function sourceSpelling(body: Record<string, unknown>): 'source' | 'sources' | undefined {
  return body.sources !== undefined ? 'sources' : body.source !== undefined ? 'source' : undefined;
}

const DEFAULT_FILTERS: RuleFilters = { name: '', description: '', enabled: 1, resourceGroups: [], eventCategory: [], severity: [] };

function find(ctx: RequestContext): RuleRecord {
  const r = ctx.scope.alertRules.find((x) => x.mcGuid === ctx.params.mcGuid);
  if (r === undefined) throw notFound();
  return r;
}

const list: Handler = (ctx) => ({ status: 200, body: { data: ctx.scope.alertRules.map(ruleResponse) } });

const create: Handler = (ctx) => {
  const body = objectBody(ctx);
  check(RULE_CREATE, body);
  const intgGuidList = body.intgGuidList as string[];
  checkChannels(ctx, intgGuidList);
  const filters = body.filters as Record<string, unknown>;
  const spelling = sourceSpelling(filters);
  const r: RuleRecord = {
    mcGuid: newMcGuid(),
    type: body.type as string,
    intgGuidList: [...intgGuidList],
    filters: mergeFilters(DEFAULT_FILTERS, filters),
    createdOrUpdatedBy: ctx.user,
    createdOrUpdatedTime: ctx.now,
    ...(spelling !== undefined ? { sourceSpelling: spelling } : {}),
    ...(wantsOlderSpelling(ctx) ? { older: true } : {}),
  };
  ctx.scope.alertRules.push(r);
  ctx.committed('Create alert rule', `Created alert rule ${r.filters.name} (${r.mcGuid})`);
  return { status: 201, body: { data: ruleResponse(r) } };
};

const search: Handler = (ctx) => ({ status: 200, body: { data: runSearch(ctx.scope.alertRules.map(ruleResponse), ctx.body) } });

const get: Handler = (ctx) => ({ status: 200, body: { data: ruleResponse(find(ctx)) } });

/** PATCH: `intgGuidList` is replaced; `filters` members are updated one by one. */
const patch: Handler = (ctx) => {
  const r = find(ctx);
  const body = objectBody(ctx);
  check(RULE_PATCH, body);
  const intgGuidList = (body.intgGuidList as string[] | undefined) ?? r.intgGuidList;
  if (body.intgGuidList !== undefined) checkChannels(ctx, intgGuidList);
  const given = body.filters as Record<string, unknown> | undefined;
  const filters = given !== undefined ? mergeFilters(r.filters, given) : r.filters;
  const spelling = given !== undefined ? sourceSpelling(given) : undefined;
  if (spelling !== undefined) r.sourceSpelling = spelling;
  r.intgGuidList = [...intgGuidList];
  r.filters = filters;
  r.createdOrUpdatedBy = ctx.user;
  r.createdOrUpdatedTime = ctx.now;
  ctx.committed('Update alert rule', `Updated alert rule ${r.filters.name} (${r.mcGuid})`);
  return { status: 200, body: { data: ruleResponse(r) } };
};

const remove: Handler = (ctx) => {
  const r = find(ctx);
  ctx.scope.alertRules.splice(ctx.scope.alertRules.indexOf(r), 1);
  ctx.committed('Delete alert rule', `Deleted alert rule ${r.filters.name} (${r.mcGuid})`);
  return { status: 204 };
};

export const alertRuleRoutes = (): Route[] => [
  {
    pattern: 'AlertRules',
    org: true,
    methods: { GET: list, POST: create },
    docs: {
      GET: { summary: 'List alert rules', response: { kind: 'list', type: 'AlertRules' } },
      POST: { summary: 'Create an alert rule', request: RULE_CREATE, status: 201, response: { kind: 'one', type: 'AlertRules' } },
    },
  },
  {
    pattern: 'AlertRules/search',
    org: true,
    methods: { POST: search },
    docs: { POST: { summary: 'Search alert rules', request: SEARCH, response: { kind: 'list', type: 'AlertRules' } } },
  },
  {
    pattern: 'AlertRules/:mcGuid',
    org: true,
    methods: { GET: get, PATCH: patch, DELETE: remove },
    docs: {
      GET: { summary: 'Read one alert rule', response: { kind: 'one', type: 'AlertRules' } },
      PATCH: { summary: 'Change an alert rule (intgGuidList replaced, filters merged)', request: RULE_PATCH, response: { kind: 'one', type: 'AlertRules' } },
      DELETE: { summary: 'Delete an alert rule', status: 204, response: { kind: 'none' } },
    },
  },
];
