// A resource group's query in three forms. The service's: `{filters: {<name>: {field, operation,
// values, key?}}, expression: {operator, children: [{filterName} | {operator, children}]}}`. The
// readable one a file may use instead: `{all: [...]}` or `{any: [...]}` whose items are conditions
// `{field, operation?, values, key?}` or nested `all:` / `any:`. And the canonical one the engine
// compares: a tree `{operator, children}` with the conditions inline, children and values sorted,
// so the names the service gives its filters and the order it keeps children in make no diff.

import { isObject, type Json, type JsonObject } from '../../model/json.js';

/** The operation a readable condition means when it names none. */
export const DEFAULT_OPERATION = 'EQUALS';
export const OPERATORS = ['AND', 'OR'] as const;

const sortKey = (v: Json): string => JSON.stringify(v);
const byKey = (a: Json, b: Json): number => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0);

/** A condition in canonical form: members in one order, values sorted and unique. */
function condition(f: JsonObject): JsonObject {
  const values = Array.isArray(f.values) ? [...new Set(f.values.filter((v): v is string => typeof v === 'string'))].sort() : [];
  const out: JsonObject = { field: typeof f.field === 'string' ? f.field : '', operation: typeof f.operation === 'string' ? f.operation : DEFAULT_OPERATION };
  if (typeof f.key === 'string') out.key = f.key;
  out.values = values;
  return out;
}

const group = (operator: string, children: Json[]): JsonObject => ({ operator, children: [...children].sort(byKey) });

/** The service's query → canonical; a child naming no filter is dropped (the service refuses it). */
export function fromServiceQuery(query: JsonObject): JsonObject | undefined {
  const filters = isObject(query.filters) ? query.filters : {};
  const walk = (node: Json | undefined): Json | undefined => {
    if (!isObject(node)) return undefined;
    if (typeof node.filterName === 'string') {
      const f = filters[node.filterName];
      return isObject(f) ? condition(f) : undefined;
    }
    const op = typeof node.operator === 'string' ? node.operator.toUpperCase() : undefined;
    if (op === undefined || !Array.isArray(node.children)) return undefined;
    return group(op, node.children.map(walk).filter((c): c is Json => c !== undefined));
  };
  const tree = walk(query.expression);
  return isObject(tree) ? tree : undefined;
}

/** The readable form (`all:` / `any:`) → canonical. */
export function fromReadable(node: JsonObject): JsonObject {
  const walk = (n: JsonObject): JsonObject => {
    if (Array.isArray(n.all)) return group('AND', n.all.filter(isObject).map(walk));
    if (Array.isArray(n.any)) return group('OR', n.any.filter(isObject).map(walk));
    return condition(n);
  };
  return walk(node);
}

/** Either file form → canonical. */
export function canonicalQuery(query: JsonObject): JsonObject | undefined {
  return 'filters' in query || 'expression' in query ? fromServiceQuery(query) : fromReadable(query);
}

/** Canonical → the service's shape, filters named `filter0`, `filter1`... in tree order. */
export function toServiceQuery(tree: JsonObject): JsonObject {
  const filters: JsonObject = {};
  const walk = (n: JsonObject): JsonObject => {
    if (Array.isArray(n.children)) return { operator: n.operator as string, children: n.children.filter(isObject).map(walk) };
    const name = `filter${Object.keys(filters).length}`;
    const f: JsonObject = { field: n.field as string, operation: n.operation as string, values: n.values as Json[] };
    if (typeof n.key === 'string') f.key = n.key;
    filters[name] = f;
    return { filterName: name };
  };
  const expression = Array.isArray(tree.children) ? walk(tree) : { operator: 'AND', children: [walk(tree)] };
  return { filters, expression };
}

/** Canonical → the readable form a person reads (export): the default operation left out. */
export function toReadable(tree: JsonObject): JsonObject {
  const walk = (n: JsonObject): JsonObject => {
    if (Array.isArray(n.children)) return { [n.operator === 'OR' ? 'any' : 'all']: n.children.filter(isObject).map(walk) };
    const out: JsonObject = { field: n.field as string };
    if (typeof n.key === 'string') out.key = n.key;
    if (n.operation !== DEFAULT_OPERATION) out.operation = n.operation as string;
    out.values = n.values as Json[];
    return out;
  };
  return Array.isArray(tree.children) ? walk(tree) : { all: [walk(tree)] };
}

/**
 * Problems of a file's service-form query that the schema cannot see: a child naming a filter the
 * query does not define. Pointers are query-relative.
 */
export function serviceQueryProblems(query: JsonObject): { pointer: string; message: string }[] {
  const filters = isObject(query.filters) ? query.filters : {};
  const out: { pointer: string; message: string }[] = [];
  const walk = (node: Json | undefined, pointer: string): void => {
    if (!isObject(node)) return;
    if (typeof node.filterName === 'string') {
      if (!Object.hasOwn(filters, node.filterName)) {
        out.push({ pointer: `${pointer}/filterName`, message: `names filter "${node.filterName}", which query.filters does not define` });
      }
      return;
    }
    if (Array.isArray(node.children)) node.children.forEach((c, i) => walk(c, `${pointer}/children/${i}`));
  };
  walk(query.expression, '/expression');
  return out;
}
