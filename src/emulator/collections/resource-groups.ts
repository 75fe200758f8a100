// /api/v2/ResourceGroups (api-facts.md "Resource groups"): every account has one default group per
// resource type, which cannot be changed or deleted (409); a group an alert or report rule still
// uses cannot be deleted (409). The service normalises a query: it renames the filters (`filter0`,
// `filter1`... in the order the expression first names them) and orders each level's children
// (filters by name, then nested groups), so a client must compare queries as the service does.
// The default groups are older records: answered with `resourceName`, `guid` and `props`.

import { createHash } from 'node:crypto';
import { HttpError, notFound, objectBody, type Handler, type RequestContext } from '../http.js';
import { newIntgGuid } from '../ids.js';
import type { ResourceGroupRecord, ScopeData } from '../model.js';
import { ENABLED, NAME, SEARCH } from '../request-schemas.js';
import type { Route } from '../router.js';
import { runSearch } from '../search.js';
import { check, invalidData, validate, type Schema } from '../validation.js';

/** The emulator's own table: resource types and the name of each type's default group. */
export const RESOURCE_TYPES: Readonly<Record<string, string>> = {
  AWS: 'All AWS Accounts',
  AZURE: 'All Azure Subscriptions',
  GCP: 'All GCP Projects',
  CONTAINER: 'All Containers',
  MACHINE: 'All Machines',
  OCI: 'All OCI Compartments',
  KUBERNETES: 'All Kubernetes Clusters',
};
/** The field each default group matches with `*`. */
const DEFAULT_FIELD: Readonly<Record<string, string>> = {
  AWS: 'Account',
  AZURE: 'Subscription ID',
  GCP: 'Project ID',
  CONTAINER: 'Image Repo',
  MACHINE: 'Machine Tag',
  OCI: 'Compartment ID',
  KUBERNETES: 'Cluster Name',
};
/** Defaults created before `query` existed: answered in the older spelling. */
const LEGACY_DEFAULTS = new Set(['AWS', 'AZURE', 'GCP']);

const TEXT: Schema = { type: 'string', minLength: 1 };
const FILTER: Schema = {
  type: 'object',
  required: ['field', 'operation', 'values'],
  properties: { field: TEXT, operation: TEXT, values: { type: 'array', minItems: 1, items: { type: 'string' } }, key: TEXT },
};
const EXPRESSION: Schema = {
  type: 'object',
  required: ['operator', 'children'],
  properties: { operator: { type: 'string', enum: ['AND', 'OR'] }, children: { type: 'array', minItems: 1, items: { type: 'object' } } },
};
const QUERY: Schema = { type: 'object', required: ['filters', 'expression'], properties: { filters: { type: 'object' }, expression: EXPRESSION } };
export const GROUP_CREATE: Schema = {
  type: 'object',
  required: ['name', 'resourceType', 'query'],
  properties: {
    name: NAME,
    resourceType: { type: 'string', enum: Object.keys(RESOURCE_TYPES) },
    description: { type: 'string' },
    enabled: ENABLED,
    query: QUERY,
  },
  additionalProperties: true,
};
export const GROUP_PATCH: Schema = {
  type: 'object',
  properties: { name: NAME, resourceType: { type: 'string', enum: Object.keys(RESOURCE_TYPES) }, description: { type: 'string' }, enabled: ENABLED, query: QUERY },
  additionalProperties: true,
};

type Node = { filterName: string } | { operator: string; children: Node[] };
const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The query as the service keeps it: filters renamed in the order the expression first names them,
 * children ordered (filters by new name, then groups by their JSON). 400 for a child that is
 * neither form or a filter name the query does not define.
 */
export function normaliseQuery(query: Record<string, unknown>): Record<string, unknown> {
  const filters = query.filters as Record<string, unknown>;
  const errors: string[] = [];
  for (const [name, f] of Object.entries(filters)) errors.push(...checkFilter(f, `query/filters/${name}`));
  const renamed = new Map<string, string>();
  const walk = (node: unknown, path: string): Node | undefined => {
    if (isObj(node) && typeof node.filterName === 'string') {
      if (!Object.hasOwn(filters, node.filterName)) {
        errors.push(`${path}/filterName: no filter ${node.filterName} in query/filters`);
        return undefined;
      }
      if (!renamed.has(node.filterName)) renamed.set(node.filterName, `filter${renamed.size}`);
      return { filterName: renamed.get(node.filterName)! };
    }
    if (isObj(node) && (node.operator === 'AND' || node.operator === 'OR') && Array.isArray(node.children) && node.children.length > 0) {
      const children = node.children.map((c, i) => walk(c, `${path}/children/${i}`)).filter((c): c is Node => c !== undefined);
      return { operator: node.operator, children };
    }
    errors.push(`${path}: expected {filterName} or {operator: AND|OR, children: [...]}`);
    return undefined;
  };
  const expression = walk(query.expression, 'query/expression');
  if (errors.length > 0 || expression === undefined) throw invalidData(errors);
  const order = (n: Node): Node => {
    if ('filterName' in n) return n;
    const kids = n.children.map(order);
    const key = (c: Node): string => ('filterName' in c ? `0${c.filterName}` : `1${JSON.stringify(c)}`);
    return { operator: n.operator, children: kids.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)) };
  };
  const out: Record<string, unknown> = {};
  for (const [from, to] of renamed) out[to] = structuredClone(filters[from]);
  return { filters: out, expression: order(expression) };
}

const checkFilter = (f: unknown, path: string): string[] => validate(FILTER, f, path);

const hex32 = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 32).toUpperCase();

function defaultGroups(prefix: string): ResourceGroupRecord[] {
  return Object.entries(RESOURCE_TYPES).map(([type, name]) => {
    const query = {
      filters: { filter0: { field: DEFAULT_FIELD[type], operation: 'INCLUDES', values: ['*'] } },
      expression: { operator: 'AND', children: [{ filterName: 'filter0' }] },
    };
    const legacy = LEGACY_DEFAULTS.has(type);
    return {
      resourceGroupGuid: `${prefix.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_${hex32(`${prefix}|${type}`)}`,
      name,
      resourceType: type,
      description: `Every ${type} resource`,
      enabled: 1,
      ...(legacy ? { props: { [DEFAULT_FIELD[type]]: ['*'] }, legacy: true } : { query }),
      isDefaultBoolean: true,
      createdTime: 0,
      createdBy: 'system',
      updatedTime: 0,
      updatedBy: 'system',
    };
  });
}

/** The groups of a scope, with its default groups made on first use. */
export function groupsOf(scope: ScopeData, prefix: string): ResourceGroupRecord[] {
  return (scope.resourceGroups ??= defaultGroups(prefix));
}

export function groupResponse(g: ResourceGroupRecord): Record<string, unknown> {
  const common = {
    ...structuredClone(g.carried ?? {}),
    resourceType: g.resourceType,
    description: g.description,
    enabled: g.enabled,
    isDefaultBoolean: g.isDefaultBoolean,
    createdTime: new Date(g.createdTime).toISOString(),
    createdBy: g.createdBy,
    updatedTime: new Date(g.updatedTime).toISOString(),
    updatedBy: g.updatedBy,
  };
  const body = g.query !== undefined ? { query: structuredClone(g.query) } : { props: g.propsText ?? structuredClone(g.props ?? {}) };
  return g.legacy
    ? { guid: g.resourceGroupGuid, resourceName: g.name, ...common, ...body }
    : { resourceGroupGuid: g.resourceGroupGuid, name: g.name, ...common, ...body };
}

function find(ctx: RequestContext): ResourceGroupRecord {
  const g = groupsOf(ctx.scope, ctx.guidPrefix).find((x) => x.resourceGroupGuid === ctx.params.resourceGroupGuid);
  if (g === undefined) throw notFound();
  return g;
}

/** Who still routes through group `guid`: alert and report rules, by name. */
function usersOf(scope: ScopeData, guid: string): string[] {
  const alert = scope.alertRules.filter((r) => r.filters.resourceGroups.includes(guid)).map((r) => `alert rule ${r.filters.name}`);
  const report = (scope.reportRules ?? []).filter((r) => r.filters.resourceGroups.includes(guid)).map((r) => `report rule ${r.filters.name}`);
  return [...alert, ...report];
}

const list: Handler = (ctx) => ({ status: 200, body: { data: groupsOf(ctx.scope, ctx.guidPrefix).map(groupResponse) } });

const create: Handler = (ctx) => {
  const body = objectBody(ctx);
  check(GROUP_CREATE, body);
  const query = normaliseQuery(body.query as Record<string, unknown>);
  const g: ResourceGroupRecord = {
    resourceGroupGuid: newIntgGuid(ctx.guidPrefix),
    name: body.name as string,
    resourceType: body.resourceType as string,
    description: typeof body.description === 'string' ? body.description : '',
    enabled: typeof body.enabled === 'number' ? body.enabled : 1,
    query,
    isDefaultBoolean: false,
    createdTime: ctx.now,
    createdBy: ctx.user,
    updatedTime: ctx.now,
    updatedBy: ctx.user,
  };
  groupsOf(ctx.scope, ctx.guidPrefix).push(g);
  ctx.committed('Create resource group', `Created resource group ${g.name} (${g.resourceGroupGuid})`);
  return { status: 201, body: { data: groupResponse(g) } };
};

const search: Handler = (ctx) => ({ status: 200, body: { data: runSearch(groupsOf(ctx.scope, ctx.guidPrefix).map(groupResponse), ctx.body) } });

const get: Handler = (ctx) => ({ status: 200, body: { data: groupResponse(find(ctx)) } });

const patch: Handler = (ctx) => {
  const g = find(ctx);
  const body = objectBody(ctx);
  check(GROUP_PATCH, body);
  if (g.isDefaultBoolean) throw new HttpError(409, `Default resource group ${g.name} cannot be changed`);
  if (body.resourceType !== undefined && body.resourceType !== g.resourceType) {
    throw invalidData([`resourceType: cannot change from ${g.resourceType} to ${String(body.resourceType)}`]);
  }
  const query = body.query !== undefined ? normaliseQuery(body.query as Record<string, unknown>) : undefined;
  if (typeof body.name === 'string') g.name = body.name;
  if (typeof body.description === 'string') g.description = body.description;
  if (typeof body.enabled === 'number') g.enabled = body.enabled;
  if (query !== undefined) {
    g.query = query;
    // Written anew, the record takes today's spelling.
    delete g.props;
    delete g.propsText;
    delete g.legacy;
  }
  g.updatedTime = ctx.now;
  g.updatedBy = ctx.user;
  ctx.committed('Update resource group', `Updated resource group ${g.name} (${g.resourceGroupGuid})`);
  return { status: 200, body: { data: groupResponse(g) } };
};

const remove: Handler = (ctx) => {
  const g = find(ctx);
  if (g.isDefaultBoolean) throw new HttpError(409, `Default resource group ${g.name} cannot be deleted`);
  const users = usersOf(ctx.scope, g.resourceGroupGuid);
  if (users.length > 0) throw new HttpError(409, `Resource group ${g.name} is in use by ${users.join(', ')}`);
  const groups = groupsOf(ctx.scope, ctx.guidPrefix);
  groups.splice(groups.indexOf(g), 1);
  ctx.committed('Delete resource group', `Deleted resource group ${g.name} (${g.resourceGroupGuid})`);
  return { status: 204 };
};

export const resourceGroupRoutes = (): Route[] => [
  {
    pattern: 'ResourceGroups',
    methods: { GET: list, POST: create },
    docs: {
      GET: { summary: 'List resource groups (default groups included)', response: { kind: 'list', type: 'ResourceGroups' } },
      POST: { summary: 'Create a resource group', request: GROUP_CREATE, status: 201, response: { kind: 'one', type: 'ResourceGroups' } },
    },
  },
  {
    pattern: 'ResourceGroups/search',
    methods: { POST: search },
    docs: { POST: { summary: 'Search resource groups', request: SEARCH, response: { kind: 'list', type: 'ResourceGroups' } } },
  },
  {
    pattern: 'ResourceGroups/:resourceGroupGuid',
    methods: { GET: get, PATCH: patch, DELETE: remove },
    docs: {
      GET: { summary: 'Read one resource group', response: { kind: 'one', type: 'ResourceGroups' } },
      PATCH: { summary: 'Change a resource group (409 for a default group)', request: GROUP_PATCH, response: { kind: 'one', type: 'ResourceGroups' } },
      DELETE: { summary: 'Delete a resource group (409 for a default group or one a rule uses)', status: 204, response: { kind: 'none' } },
    },
  },
];
