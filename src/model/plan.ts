// A Plan is data: computed by the engine, rendered by src/render, executed by apply() without
// diffing again. A leaf: the plan, its changes and the results of applying it, nothing else.

import type { AccountConfig } from './account.js';
import type { Diagnostic, SourcePosition } from './diagnostics.js';
import type { JsonObject } from './json.js';
import type { LastChange } from './resource.js';

export type { LastChange };

/** Requests sent to the service. */
export interface CallStats {
  /** Requests sent to the service, token exchange and retries included. */
  total: number;
  /** Per rate-limit bucket. */
  byBucket: Record<string, number>;
}

export const PLAN_FORMAT_VERSION = 1;

export type Action = 'create' | 'update' | 'replace' | 'delete';
export const ACTIONS: readonly Action[] = ['create', 'update', 'replace', 'delete'];

/** One JSON Patch operation (RFC 6902) between the masked before and after. */
export interface DiffOp {
  op: 'add' | 'remove' | 'replace';
  path: string;
  value?: unknown;
}

export interface Change {
  /** `${account}/${kind}/${name}`: unique within a plan. */
  key: string;
  action: Action;
  kind: string;
  account: string;
  name: string;
  parent?: string;
  /** Service identifier of the live resource (update, replace, delete). */
  liveId?: string;
  /** Live spec with secrets masked (update, replace, delete). */
  before?: JsonObject;
  /** Desired spec with env-derived values as {"$env": template} (create, update, replace). */
  after?: JsonObject;
  /** Field-level differences from before to after, secret values masked (update, replace). */
  diff?: DiffOp[];
  /** Top-level spec members that differ (update). */
  changed?: string[];
  /** Write-only pointers: not compared; sent on create, replace, rotation, or with their member. */
  writeOnly: string[];
  /** Pointers whose values are masked in every rendering. */
  sensitive: string[];
  /** Members the service never returns (no secrets): not compared, shown as written, sent with their object. */
  unreturned?: string[];
  /** Write-only secrets pushed on purpose (`--rotate`). */
  rotate?: boolean;
  /** Children created together with this resource (a new profile's templates). */
  children?: { name: string; after: JsonObject }[];
  /**
   * Resources this change's request names (a rule's channels), with the live id known at plan time;
   * no id when the referenced resource is created by an earlier change of the same plan.
   */
  refs?: { kind: string; name: string; id?: string }[];
  /** Keys of changes that must succeed before this one. */
  dependsOn: string[];
  /** Why this change exists when not obvious, e.g. `not declared; prune is on for AlertRule`. */
  reason?: string;
  source?: SourcePosition;
  /** Digest of the live record this change was computed from; `absent` when there was none. */
  liveDigest: string;
  /** Who last changed the live record and when, from the record (update, replace, delete). */
  lastChange?: LastChange;
  /** Audit log entries naming the live record, newest first (`plan --attribute`). */
  audit?: AuditEntry[];
}

/** One entry of the service's audit log, as `plan --attribute` matched it to a live resource. */
export interface AuditEntry {
  /** ISO 8601 UTC. */
  at: string;
  user: string;
  /** `userAction`, e.g. `update`. */
  action: string;
  /** `eventDescription`, e.g. `Updated alert channel ops-slack (PROD_...)`. */
  description: string;
}

/** What `plan --attribute` searched: the accounts with drift and the time window. */
export interface Attribution {
  /** Accounts whose audit log was read, in plan order. */
  accounts: string[];
  /** Window of the search, ISO 8601 UTC, and its length in days (what renderings name). */
  start: string;
  end: string;
  days: number;
  /** Most entries kept per resource. */
  perResource: number;
}

export interface UnmanagedResource {
  kind: string;
  account: string;
  name: string;
  id: string;
  /** Who last changed the live record and when, from the record. */
  lastChange?: LastChange;
  /** Audit log entries naming it, newest first (`plan --attribute`). */
  audit?: AuditEntry[];
}

export interface Refusal {
  code: 'safety-threshold' | 'in-use' | 'stale';
  message: string;
  details: string[];
}

export interface BucketNeed {
  bucket: string;
  /** Requests apply needs in this bucket. */
  needed: number;
  limit?: number;
  remaining?: number;
  /** Limit and remaining are assumed (a full bucket): apply has not used this bucket yet. */
  estimated?: boolean;
  /** Seconds apply would wait for the bucket to refill; 0 when the budget suffices. */
  waitSeconds: number;
}

export interface PlanSummary {
  create: number;
  update: number;
  replace: number;
  delete: number;
  unmanaged: number;
}

export interface Plan {
  formatVersion: typeof PLAN_FORMAT_VERSION;
  accounts: AccountConfig[];
  /** In execution order. */
  changes: Change[];
  summary: PlanSummary;
  unmanaged: UnmanagedResource[];
  /** Warnings found while planning (errors prevent a plan). */
  diagnostics: Diagnostic[];
  /** Set when the plan may not be applied without --force. */
  refusal?: Refusal;
  /** Requests made to compute the plan. */
  apiCalls: CallStats;
  /** Requests apply will need, per bucket, against the budget known from rate-limit headers. */
  budget: BucketNeed[];
  /** Set by `plan --attribute`: the audit log was read for these accounts. */
  attribution?: Attribution;
}

export type ResultStatus = 'done' | 'failed' | 'skipped';

export interface ChangeResult {
  key: string;
  action: Action;
  kind: string;
  account: string;
  name: string;
  status: ResultStatus;
  /** Why it failed or was skipped; for done, notes such as `found after an unknown outcome`. */
  reason?: string;
  liveId?: string;
  /** Outcome of the kind's test request (`--test-channels`). */
  test?: { ok: boolean; message?: string };
}

export interface ApplySummary extends Record<Action, number>, Record<ResultStatus, number> {}

export interface ApplyReport {
  formatVersion: typeof PLAN_FORMAT_VERSION;
  results: ChangeResult[];
  summary: ApplySummary;
  apiCalls: CallStats;
  /** Seconds spent waiting for rate-limit buckets to refill. */
  waitedSeconds: number;
}

