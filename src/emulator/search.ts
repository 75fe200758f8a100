// POST .../search: filters [{field, expression, value | values}] and `returns`, applied to the
// records as the service would return them (so secrets stay masked and spellings match responses).

import { HttpError } from './http.js';
import { SEARCH, type SearchExpression } from './request-schemas.js';
import { check, invalidData } from './validation.js';

export interface SearchFilter {
  field: string;
  expression: SearchExpression;
  value?: string;
  values?: string[];
}

export interface SearchRequest {
  filters: SearchFilter[];
  returns?: string[];
  timeFilter?: { startTime?: string; endTime?: string };
}

const VALUE_ONLY = new Set<SearchExpression>(['eq', 'ne', 'like', 'not_like', 'ilike', 'not_ilike', 'rlike', 'not_rlike', 'gt', 'lt', 'ge', 'le']);
const NEGATION: Partial<Record<SearchExpression, SearchExpression>> = {
  ne: 'eq',
  not_in: 'in',
  not_like: 'like',
  not_ilike: 'ilike',
  not_rlike: 'rlike',
};

function isNumeric(s: string): boolean {
  return s.trim() !== '' && Number.isFinite(Number(s));
}

function compare(a: string, b: string): number {
  if (isNumeric(a) && isNumeric(b)) return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

function likeRegex(pattern: string, flags: string): RegExp {
  const body = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/%/g, '.*').replace(/_/g, '.');
  return new RegExp(`^${body}$`, flags + 's');
}

/**
 * Checks the body (400 with the offending filter) and returns it typed. `fields`, when given, are the
 * only filterable fields (the seed lists them for some collections).
 */
export function parseSearch(body: unknown, fields?: readonly string[]): SearchRequest {
  const req = body === undefined ? {} : body;
  check(SEARCH, req);
  const r = req as { filters?: SearchFilter[]; returns?: string[]; timeFilter?: SearchRequest['timeFilter'] };
  const errors: string[] = [];
  (r.filters ?? []).forEach((f, i) => {
    const at = `filters/${i}`;
    const hasValue = f.value !== undefined;
    const hasValues = f.values !== undefined;
    if (fields !== undefined && !fields.includes(f.field)) {
      errors.push(`${at}/field: must be one of ${fields.join(', ')}`);
    }
    if (f.expression === 'expr') {
      errors.push(`${at}/expression: expr is reserved for future use`);
    } else if (VALUE_ONLY.has(f.expression)) {
      if (!hasValue) errors.push(`${at}/value: required for ${f.expression}`);
      if (hasValues) errors.push(`${at}/values: not allowed for ${f.expression}`);
      if (hasValue && (f.expression === 'rlike' || f.expression === 'not_rlike')) {
        try {
          new RegExp(f.value as string);
        } catch {
          errors.push(`${at}/value: not a valid regular expression`);
        }
      }
    } else {
      if (hasValue) errors.push(`${at}/value: not allowed for ${f.expression}`);
      if (!hasValues) errors.push(`${at}/values: required for ${f.expression}`);
      else if (f.expression === 'between') {
        const v = f.values as string[];
        if (v.length !== 2) errors.push(`${at}/values: between takes two items (lower, upper)`);
        else if (compare(v[1], v[0]) <= 0) errors.push(`${at}/values: the upper bound must be greater than the lower bound`);
      } else if ((f.values as string[]).length === 0) {
        errors.push(`${at}/values: must have at least 1 item`);
      }
    }
  });
  if (errors.length > 0) throw invalidData(errors);
  return { filters: r.filters ?? [], returns: r.returns, timeFilter: r.timeFilter };
}

/** Values at a dotted path; segments match exactly or else case-insensitively; arrays fan out. */
export function valuesAt(record: unknown, field: string): unknown[] {
  let current: unknown[] = [record];
  for (const seg of field.split('.')) {
    const next: unknown[] = [];
    for (const c of current) {
      for (const item of Array.isArray(c) ? c : [c]) {
        if (item === null || typeof item !== 'object') continue;
        const obj = item as Record<string, unknown>;
        const key = seg in obj ? seg : Object.keys(obj).find((k) => k.toLowerCase() === seg.toLowerCase());
        if (key !== undefined && obj[key] !== undefined) next.push(obj[key]);
      }
    }
    current = next;
  }
  return current.flatMap((v) => (Array.isArray(v) ? v : [v]));
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function holds(expression: SearchExpression, actual: string, f: SearchFilter): boolean {
  const value = f.value ?? '';
  switch (expression) {
    case 'eq':
      return actual === value;
    case 'in':
      return (f.values ?? []).includes(actual);
    case 'like':
      return likeRegex(value, '').test(actual);
    case 'ilike':
      return likeRegex(value, 'i').test(actual);
    case 'rlike':
      return new RegExp(value).test(actual);
    case 'gt':
      return compare(actual, value) > 0;
    case 'lt':
      return compare(actual, value) < 0;
    case 'ge':
      return compare(actual, value) >= 0;
    case 'le':
      return compare(actual, value) <= 0;
    case 'between': {
      const [lo, hi] = f.values ?? [];
      return compare(actual, lo) >= 0 && compare(actual, hi) <= 0;
    }
    default:
      throw new HttpError(400, `Invalid data: #1: [expression: ${expression} is not supported]`);
  }
}

/** A filter on an array field holds when any item matches; a negated one when none does. */
export function matches(record: unknown, f: SearchFilter): boolean {
  const actual = valuesAt(record, f.field).map(text);
  const positive = NEGATION[f.expression];
  if (positive !== undefined) return !actual.some((a) => holds(positive, a, f));
  return actual.some((a) => holds(f.expression, a, f));
}

/** Keeps only the `returns` members (dotted names keep a nested member). */
export function project<T>(record: T, returns: string[] | undefined): unknown {
  if (returns === undefined) return record;
  const out: Record<string, unknown> = {};
  const src = record as Record<string, unknown>;
  for (const name of returns) {
    const parts = name.split('.');
    let from: unknown = src;
    for (const p of parts) from = from !== null && typeof from === 'object' ? (from as Record<string, unknown>)[p] : undefined;
    if (from === undefined) continue;
    let to = out;
    parts.slice(0, -1).forEach((p) => {
      to = (to[p] ??= {}) as Record<string, unknown>;
    });
    to[parts[parts.length - 1]] = from;
  }
  return out;
}

/** Parses the body, filters the (response-shaped) records and projects them. */
export function runSearch(records: unknown[], body: unknown, fields?: readonly string[]): unknown[] {
  const req = parseSearch(body, fields);
  return records.filter((r) => req.filters.every((f) => matches(r, f))).map((r) => project(r, req.returns));
}

const TIME = /^(\d{4}-\d{2}-\d{2})(T\d{2}(:\d{2}:\d{2}(\.\d{3})?Z)?)?$/;

/** The service's time formats (yyyy-MM-dd, yyyy-MM-ddTHH, …:ssZ, …:ss.SSSZ), UTC, to epoch ms; 400 otherwise. */
export function parseTime(value: string, name: string): number {
  const m = TIME.exec(value);
  let iso = value;
  if (m && m[2] === undefined) iso = `${m[1]}T00:00:00Z`;
  else if (m && m[3] === undefined) iso = `${value}:00:00Z`;
  const ms = m ? Date.parse(iso) : NaN;
  if (Number.isNaN(ms)) {
    throw new HttpError(400, `Invalid data: #1: [${name}: expected yyyy-MM-dd, yyyy-MM-ddTHH, yyyy-MM-ddTHH:mm:ssZ or yyyy-MM-ddTHH:mm:ss.SSSZ (UTC)]`);
  }
  return ms;
}
