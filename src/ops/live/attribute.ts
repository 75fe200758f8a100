// `plan --attribute`: who made the drift, from the service's audit log. Read only for the accounts
// whose plan has drift (an update, replace or delete, or an unmanaged resource): one search per
// account (following `nextPage` when the answer is paged), never more than the rate-limit budget
// known for the search allows; an account left out, or a search that fails, is a warning, never a
// failed plan. Entries are matched to a resource by its live id in the entry's description.

import { ApiError, type ApiClient, ClientConfigError, unwrapData } from '../../api/types.js';
import { API_PREFIX, bucketOf } from '../../api/buckets.js';
import type { AccountConfig } from '../../model/account.js';
import type { Diagnostic } from '../../model/diagnostics.js';
import { isObject, type JsonObject } from '../../model/json.js';
import type { AuditEntry, CallStats, Change, Plan, UnmanagedResource } from '../../model/plan.js';
import { requestTarget } from '../../model/account.js';

export const AUDIT_SEARCH_PATH = `${API_PREFIX}/AuditLogs/search`;
/** The window searched: the searches of the service allow at most 7 days. */
export const ATTRIBUTION_DAYS = 7;
/** Most entries kept per resource, newest first. */
export const ENTRIES_PER_RESOURCE = 5;
/** A bound on pages followed per account, far beyond a week of configuration writes. */
const MAX_PAGES = 20;

export interface AttributeOptions {
  /** Epoch ms: the end of the window (injected: no wall clock in here). */
  now: number;
}

export interface Attributed {
  plan: Plan;
  diagnostics: Diagnostic[];
}

const DRIFT: ReadonlySet<string> = new Set(['update', 'replace', 'delete']);

/** Accounts with drift, in the plan's account order. */
export function driftedAccounts(plan: Plan): string[] {
  const drifted = new Set([...plan.changes.filter((c) => DRIFT.has(c.action)).map((c) => c.account), ...plan.unmanaged.map((u) => u.account)]);
  return plan.accounts.map((a) => a.name).filter((a) => drifted.has(a));
}

/** `yyyy-MM-ddTHH:mm:ssZ`, one of the service's time formats. */
export function serviceTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19) + 'Z';
}

/** An audit record as an entry; undefined when it has no usable time. */
export function auditEntryOf(rec: JsonObject): AuditEntry | undefined {
  const t = rec.createdTime;
  const ms = typeof t === 'number' ? t : typeof t === 'string' ? (/^\d{10,}$/.test(t) ? Number(t) : Date.parse(t)) : NaN;
  if (!Number.isFinite(ms)) return undefined;
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  return { at: new Date(ms).toISOString(), user: text(rec.userName), action: text(rec.userAction), description: text(rec.eventDescription) };
}

/** The entries whose description names `id` as a whole word (a profile id is no match for its template's), newest first. */
export function entriesNaming(entries: readonly AuditEntry[], id: string): AuditEntry[] {
  const escaped = id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const word = new RegExp(`(?<![A-Za-z0-9_.-])${escaped}(?![A-Za-z0-9_.-])`);
  return entries
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => word.test(e.description))
    .sort((a, b) => (a.e.at < b.e.at ? 1 : a.e.at > b.e.at ? -1 : a.i - b.i))
    .slice(0, ENTRIES_PER_RESOURCE)
    .map(({ e }) => e);
}

async function searchAccount(client: ApiClient, account: AccountConfig, start: string, end: string): Promise<AuditEntry[]> {
  const target = requestTarget(account);
  let res = await client.request({ method: 'POST', path: AUDIT_SEARCH_PATH, ...target, body: { timeFilter: { startTime: start, endTime: end } } });
  const entries: AuditEntry[] = [];
  // The pages of one search count together against the client's response size limit.
  let paged = res.bytes ?? 0;
  for (let page = 1; ; page++) {
    const data = unwrapData(res.body);
    for (const rec of Array.isArray(data) ? data : []) {
      const entry = isObject(rec) ? auditEntryOf(rec) : undefined;
      if (entry) entries.push(entry);
    }
    const paging = isObject(res.body) ? res.body.paging : undefined;
    const next = isObject(paging) && isObject(paging.urls) ? paging.urls.nextPage : undefined;
    if (typeof next !== 'string' || next === '' || page >= MAX_PAGES) break;
    res = await client.request({ method: 'GET', path: next, ...target, pagedBytes: paged });
    paged += res.bytes ?? 0;
  }
  return entries;
}

function statsDelta(before: CallStats, after: CallStats, base: CallStats): CallStats {
  const byBucket: Record<string, number> = { ...base.byBucket };
  for (const [bucket, n] of Object.entries(after.byBucket)) {
    const d = n - (before.byBucket[bucket] ?? 0);
    if (d > 0) byBucket[bucket] = (byBucket[bucket] ?? 0) + d;
  }
  return { total: base.total + after.total - before.total, byBucket };
}

export async function attribute(plan: Plan, client: ApiClient, options: AttributeOptions): Promise<Attributed> {
  const wanted = driftedAccounts(plan);
  const diagnostics: Diagnostic[] = [];
  const end = serviceTime(Math.ceil(options.now / 1000) * 1000);
  const start = serviceTime(options.now - ATTRIBUTION_DAYS * 24 * 3600 * 1000);
  // Within the budget known for the search; an unknown budget is a full bucket.
  const known = client.budget().find((b) => b.bucket === bucketOf('POST', AUDIT_SEARCH_PATH));
  const allowed = known === undefined ? wanted.length : Math.max(0, Math.floor(known.remaining));
  if (allowed < wanted.length) {
    diagnostics.push({
      severity: 'warning',
      code: 'attribution-budget',
      message: `audit log not read for ${wanted.slice(allowed).join(', ')}: the rate-limit budget of ${known!.bucket} has ${allowed} request${allowed === 1 ? '' : 's'} left`,
      hint: `the budget refills within the hour (RateLimit-Reset ${known!.resetSeconds}s); the records' own "last changed" stays in the plan`,
    });
  }
  const before = client.stats();
  const found = new Map<string, AuditEntry[]>();
  for (const name of wanted.slice(0, allowed)) {
    const account = plan.accounts.find((a) => a.name === name)!;
    try {
      found.set(name, await searchAccount(client, account, start, end));
    } catch (err) {
      // A refusal (403 for a sub-account admin's key), a wait longer than allowed, a nextPage on
      // another host: the plan is still the plan, without these entries.
      if (!(err instanceof ApiError || err instanceof ClientConfigError)) throw err;
      diagnostics.push({ severity: 'warning', code: 'attribution-failed', message: `audit log of account ${name} could not be read: ${err.message}` });
    }
  }
  const withAudit = <T extends Change | UnmanagedResource>(item: T, id: string | undefined): T => {
    const entries = id === undefined ? undefined : found.get(item.account);
    if (!entries) return item;
    const matched = entriesNaming(entries, id!);
    return matched.length > 0 ? { ...item, audit: matched } : item;
  };
  return {
    plan: {
      ...plan,
      changes: plan.changes.map((c) => (DRIFT.has(c.action) ? withAudit(c, c.liveId) : c)),
      unmanaged: plan.unmanaged.map((u) => withAudit(u, u.id)),
      diagnostics: [...plan.diagnostics, ...diagnostics],
      apiCalls: statsDelta(before, client.stats(), plan.apiCalls),
      attribution: { accounts: [...found.keys()], start, end, days: ATTRIBUTION_DAYS, perResource: ENTRIES_PER_RESOURCE },
    },
    diagnostics,
  };
}
