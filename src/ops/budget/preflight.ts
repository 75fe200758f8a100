// Pre-flight: before the first request, the requests a run will send per rate-limit bucket and how
// long the service's budget makes it take. A read that may go through a list or its search is one
// group over two buckets (they refill side by side); every other request has its bucket to itself.
// The budget is what the service last reported (an earlier run's headers, brought forward to now);
// a bucket never seen is taken to be full at the size of the others, or the documented 120 an hour.

import type { BucketBudget } from '../../api/types.js';
import { API_PREFIX, bucketOf } from '../../api/buckets.js';
import type { AccountConfig } from '../../model/account.js';
import type { Change, PlanRetryReserve } from '../../model/plan.js';
import { DEFAULT_RETRY_BUDGET_MS } from '../../api/options.js';
import { durationText } from '../../model/duration.js';
import type { Kind } from '../../kinds/types.js';
import { budgetAt, changeRequests, countWrites, PLACEHOLDER_ID, waitSecondsFor, type WriteCount } from './budget.js';
import type { ParentsOf, ReadPaths } from '../live/fetch.js';
import { LEASE_LIFETIME_MS, leaseMarginMs, RENEW_LEAD_MS } from '../lease/lease.js';
import { LEASE_LIST_PATH, writeLeaseRequest } from '../lease/lease-record.js';
import { APPLIED_LIST_PATH, replaceAppliedRequest } from '../apply/applied-record.js';
import { RETRY_BUDGET_MS, retryLookUps } from '../apply/apply-change.js';

/** The service's documented budget per functionality: 120 requests per hour. */
export const DOCUMENTED_LIMIT = 120;

/** Requests that any of `buckets` can carry (one bucket for most). */
export interface RequestGroup {
  buckets: string[];
  requests: number;
}

export interface BucketEstimate {
  bucket: string;
  /** Requests expected to go through it. */
  requests: number;
  /** Budget left as last reported (or assumed full). */
  remaining: number;
  limit: number;
  /** Not reported by the service yet: taken to be full. */
  assumed?: true;
}

export interface Preflight {
  /** Requests of the run. */
  total: number;
  /** Per bucket, sorted by name. */
  buckets: BucketEstimate[];
  /** Seconds the run waits for rate limits, by the slowest group (0: the budget allows it all now). */
  seconds: number;
  /** The group that takes longest, when the run must wait. */
  slowest?: RequestGroup & { perHour: number };
}

/** The token exchange every run starts with. */
export const TOKEN_GROUP: RequestGroup = { buckets: [bucketOf('POST', `${API_PREFIX}/access/tokens`)], requests: 1 };

/**
 * The list reads of `accounts`: one per collection of the kinds each account needs, and for a kind
 * listed per parent (Kind.perParent) one per parent `parentsOf` names (the live read reads no other).
 */
export function readGroups(
  accounts: readonly AccountConfig[],
  kindsOf: (account: AccountConfig) => readonly Kind[],
  readPaths: ReadPaths = 'both',
  parentsOf?: ParentsOf,
): RequestGroup[] {
  const groups = new Map<string, RequestGroup>();
  const add = (buckets: string[], requests: number): void => {
    const key = buckets.join('|');
    const group = groups.get(key) ?? { buckets, requests: 0 };
    group.requests += requests;
    groups.set(key, group);
  };
  for (const account of accounts) {
    const collections = new Map<string, boolean>();
    for (const kind of kindsOf(account)) {
      if (kind.perParent) {
        const parents = parentsOf?.(account, kind.kind);
        // Without a list of parents every live one is read: how many is known only once they are.
        if (parents === undefined) throw new Error(`${kind.kind} is read per parent: the pre-flight needs the parents to read`);
        if (parents.length > 0) add([bucketOf('GET', kind.perParent.path(PLACEHOLDER_ID))], parents.length);
        continue;
      }
      collections.set(kind.collection, (collections.get(kind.collection) ?? false) || kind.searchable === true);
    }
    for (const [collection, searchable] of collections) {
      const list = bucketOf('GET', `${API_PREFIX}/${collection}`);
      const search = bucketOf('POST', `${API_PREFIX}/${collection}/search`);
      add(!searchable || readPaths === 'list' ? [list] : readPaths === 'search' ? [search] : [list, search], 1);
    }
  }
  return [...groups.values()];
}

/** The writes of `changes`, one group per bucket (look-ups after unknown outcomes aside). */
export function writeGroups(changes: readonly Change[], kinds: readonly Kind[], accounts: readonly AccountConfig[], counted?: WriteCount): RequestGroup[] {
  // An unknown kind is left out: the plan's own budget estimate warns about it.
  return [...(counted ?? countWrites(changes, kinds, accounts)).perBucket].map(([bucket, requests]) => ({ buckets: [bucket], requests }));
}

/**
 * The tests `apply --test-channels` sends after the writes: one per create, update or replace of a
 * kind the service tests (Kind.lifecycle.testRequest), each in its own bucket.
 */
export function testGroups(changes: readonly Change[], kinds: readonly Kind[], accounts: readonly AccountConfig[]): RequestGroup[] {
  const { add, groups } = tally();
  for (const change of changes) {
    if (change.action === 'delete') continue;
    const test = kinds.find((k) => k.kind === change.kind)?.lifecycle?.testRequest;
    if (!test) continue;
    const target = accounts.find((a) => a.name === change.account);
    add(test(PLACEHOLDER_ID, { account: change.account, orgAccess: target?.orgAccess === true, resolve: () => PLACEHOLDER_ID }), 1);
  }
  return groups();
}

/** The tests of `count` chosen resources of `kind` (`test-channels`): one request each. */
export function chosenTestGroups(kind: Kind, count: number): RequestGroup[] {
  const test = kind.lifecycle?.testRequest;
  if (!test || count === 0) return [];
  const { add, groups } = tally();
  add(test(PLACEHOLDER_ID, { account: 'preflight', orgAccess: false, resolve: () => PLACEHOLDER_ID }), count);
  return groups();
}

export function preflight(groups: readonly RequestGroup[], reported: readonly BucketBudget[], now: number): Preflight {
  const size = reported.reduce((m, b) => Math.max(m, b.limit), 0) || DOCUMENTED_LIMIT;
  const known = new Map(reported.map((b) => [b.bucket, budgetAt(b, now)]));
  const stateOf = (bucket: string): BucketBudget & { assumed?: true } =>
    known.get(bucket) ?? { bucket, limit: size, remaining: size, resetSeconds: 0, observedAt: now, assumed: true };
  const perBucket = new Map<string, BucketEstimate>();
  // What each bucket has left as the groups before take their share; below zero, what they still owe it.
  const left = new Map<string, number>();
  let seconds = 0;
  let slowest: Preflight['slowest'];
  for (const group of merge(groups)) {
    const states = group.buckets.map((b) => {
      const s = stateOf(b);
      if (!perBucket.has(b)) perBucket.set(b, { bucket: b, requests: 0, remaining: Math.max(0, s.remaining), limit: s.limit, ...(s.assumed ? { assumed: true as const } : {}) });
      return { ...s, remaining: left.get(b) ?? Math.max(0, s.remaining) };
    });
    // A bucket that earlier groups overdrew makes this group wait behind their requests too.
    const owed = states.reduce((n, s) => n + Math.max(0, -s.remaining), 0);
    const wait = groupWaitSeconds(group.requests + owed, states, now);
    if (wait > seconds) {
      seconds = wait;
      slowest = { ...group, perHour: states.reduce((n, s) => n + s.limit, 0) };
    }
    split(group.requests, states).forEach((n, i) => {
      perBucket.get(states[i].bucket)!.requests += n;
      left.set(states[i].bucket, states[i].remaining - n);
    });
  }
  const buckets = [...perBucket.values()].filter((b) => b.requests > 0).sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : 0));
  return { total: buckets.reduce((n, b) => n + b.requests, 0), buckets, seconds, ...(slowest ? { slowest } : {}) };
}

/**
 * Seconds until `requests` can all be sent through buckets that refill side by side (a list and its
 * search): as one bucket holding what they hold together and refilling at their summed rate, whose
 * first token comes from whichever refills first.
 */
export function groupWaitSeconds(requests: number, states: readonly BucketBudget[], now: number): number {
  if (states.length === 0) return 0;
  return waitSecondsFor(requests, {
    bucket: states.map((s) => s.bucket).join(' + '),
    limit: states.reduce((n, s) => n + s.limit, 0),
    remaining: states.reduce((n, s) => n + Math.max(0, s.remaining), 0),
    resetSeconds: Math.min(...states.map((s) => (s.resetSeconds > 0 ? s.resetSeconds : 3600 / Math.max(1, s.limit)))),
    observedAt: now,
  });
}

/**
 * Groups over the same buckets as one, the largest choice first (a list and its search before
 * requests only the list can carry, which then take what the pair left of the list's bucket).
 */
function merge(groups: readonly RequestGroup[]): RequestGroup[] {
  const out = new Map<string, RequestGroup>();
  for (const g of groups) {
    const key = g.buckets.join('|');
    const same = out.get(key);
    if (same) same.requests += g.requests;
    else out.set(key, { buckets: [...g.buckets], requests: g.requests });
  }
  return [...out.values()].sort((a, b) => b.buckets.length - a.buckets.length);
}

/** Seconds between two renewals of a lease (lease.ts): the fence's span less the renewal's lead. */
export function renewalPeriodSeconds(requestBoundMs = 30_000): number {
  return (LEASE_LIFETIME_MS - leaseMarginMs(requestBoundMs) - RENEW_LEAD_MS) / 1000;
}

/**
 * The apply lease's requests to take it (lease.ts): a list and a create, and a delete of the
 * generation it replaces. One lease for every account of the run: a bounded handful whatever the
 * writes and the accounts.
 */
export function leaseTakeGroups(): RequestGroup[] {
  const { add, groups } = tally();
  add({ method: 'GET', path: LEASE_LIST_PATH }, 1);
  add({ method: 'POST', path: LEASE_LIST_PATH }, 1);
  add({ method: 'DELETE', path: leasePatch().path }, 1);
  return groups();
}

/** Once taken: per renewal (one each renewalPeriodSeconds of a run of `seconds`) a list and a PATCH, and the PATCH marking it released. */
export function leaseRestGroups(seconds = 0, requestBoundMs = 30_000): RequestGroup[] {
  const renewals = Math.floor(seconds / renewalPeriodSeconds(requestBoundMs));
  const { add, groups } = tally();
  if (renewals > 0) add({ method: 'GET', path: LEASE_LIST_PATH }, renewals);
  add(leasePatch(), 1 + renewals);
  return groups();
}

/** Everything the lease sends for a run of `seconds`. */
export function leaseGroups(seconds = 0, requestBoundMs = 30_000): RequestGroup[] {
  return [...leaseTakeGroups(), ...leaseRestGroups(seconds, requestBoundMs)];
}

function leasePatch() {
  return writeLeaseRequest(1, { owner: 'preflight', holder: 'preflight', stamp: 0, state: 'held' }, { account: 'home', orgAccess: false, resolve: () => PLACEHOLDER_ID });
}

/** Requests counted per bucket (`add`), then as one group per bucket, in the order first seen. */
function tally(): { add: (req: { method: string; path: string }, n: number) => void; groups: () => RequestGroup[] } {
  const count = new Map<string, number>();
  return {
    add: (req, n) => {
      const bucket = bucketOf(req.method, req.path);
      count.set(bucket, (count.get(bucket) ?? 0) + n);
    },
    groups: () => [...count].map(([bucket, requests]) => ({ buckets: [bucket], requests })),
  };
}

/**
 * What recording the applied commit sends (apply with `record`, the Action's apply): per account, a
 * list of the records and the write.
 */
export function recordGroups(accounts: readonly AccountConfig[]): RequestGroup[] {
  if (accounts.length === 0) return [];
  const ctx = { account: accounts[0].name, orgAccess: accounts[0].orgAccess, resolve: () => PLACEHOLDER_ID };
  const write = replaceAppliedRequest({ commit: 'preflight', stamp: 0 }, ctx);
  const { add, groups } = tally();
  add({ method: 'GET', path: APPLIED_LIST_PATH }, accounts.length);
  add(write, accounts.length);
  return groups();
}

/**
 * How `n` requests spread over buckets, as the client takes them (the one with most left first):
 * what is left is levelled, and what goes beyond it follows the refill rates.
 */
function split(n: number, states: readonly BucketBudget[]): number[] {
  const left = states.map((s) => Math.max(0, s.remaining));
  const out = states.map(() => 0);
  let rest = n;
  while (rest > 0 && left.some((l) => l > 0)) {
    let best = 0;
    for (let i = 1; i < left.length; i++) if (left[i] > left[best]) best = i;
    out[best]++;
    left[best]--;
    rest--;
  }
  if (rest > 0) {
    const total = states.reduce((m, s) => m + s.limit, 0) || states.length;
    let given = 0;
    states.forEach((s, i) => {
      const share = i === states.length - 1 ? rest - given : Math.floor((rest * (s.limit || 1)) / total);
      out[i] += share;
      given += share;
    });
  }
  return out;
}

/**
 * What a faulty apply may add to its time, which no fault-free run spends, so it is reserved (against
 * --max-duration) and shown as a bound, not added to the requests: a request safe to repeat tried
 * again for the client's retry budget, and with creates, one create whose outcome stays unknown looked
 * up and repeated for its own (apply-change.ts). A plan shows the same (Plan.retryReserve).
 */
export type RetryReserve = PlanRetryReserve;

/**
 * The reserve of an apply of `changes`: the client's retry budget (`requestBudgetMs`, the client's
 * retryBudget()), and a create's when any change is one (only creates are repeated after a look).
 */
export function retryReserve(changes: readonly Change[], requestBudgetMs = DEFAULT_RETRY_BUDGET_MS, createBudgetMs = RETRY_BUDGET_MS): RetryReserve {
  const create = changes.some((c) => c.action === 'create') ? { createSeconds: createBudgetMs / 1000, lookUps: retryLookUps(createBudgetMs) } : {};
  const requestSeconds = requestBudgetMs / 1000;
  return { seconds: requestSeconds + (create.createSeconds ?? 0), requestSeconds, ...create };
}

/** `; up to 7 min more reserved for retries under faults: ...`, or '' without a reserve. */
export function reserveText(reserve: RetryReserve | undefined): string {
  if (!reserve || reserve.seconds <= 0) return '';
  const request = `${durationText(reserve.requestSeconds)} for a request safe to repeat`;
  const create =
    reserve.createSeconds !== undefined && reserve.lookUps !== undefined
      ? `, ${durationText(reserve.createSeconds)} for a create whose outcome stays unknown (at most ${reserve.lookUps} look-ups and ${reserve.lookUps - 1} repeats)`
      : '';
  return `; up to ${durationText(reserve.seconds)} more reserved for retries under faults: ${request}${create}`;
}

/** One line for people: the requests, the wait the budget imposes, and the retries reserved. */
export function preflightLine(p: Preflight, reserve?: RetryReserve): string {
  const reads = `${p.total} request${p.total === 1 ? '' : 's'} in ${p.buckets.length} rate-limit bucket${p.buckets.length === 1 ? '' : 's'}`;
  const retry = reserveText(reserve);
  if (p.seconds === 0 || !p.slowest) return `${reads}; the budget allows them all now${retry}`;
  const s = p.slowest;
  return `${reads}; about ${durationText(p.seconds)} of waiting for rate limits (${s.buckets.join(' + ')}: ${s.requests} requests at ${s.perHour} an hour)${retry}`;
}
