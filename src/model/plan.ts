// A Plan is data: computed by the engine, rendered by src/render, executed by apply() without
// diffing again. A leaf: the plan, its changes and the results of applying it, nothing else.

import type { AccountConfig } from './account.js';
import type { Diagnostic, SourcePosition } from './diagnostics.js';
import type { JsonObject } from './json.js';
import type { LastChange } from './resource.js';
import type { PlanRouting } from './routing.js';
import type { ChangeReasonCode, ResultReasonCode } from './reasons.js';

export type { LastChange };

/** Requests sent to the service. */
export interface CallStats {
  /** Requests sent to the service, token exchange and retries included. */
  total: number;
  /** Per rate-limit bucket. */
  byBucket: Record<string, number>;
}

/** 2: changes and results carry `reasonCode` beside `reason` (a version 1 plan file is refused). */
export const PLAN_FORMAT_VERSION = 2;

export type Action = 'create' | 'update' | 'replace' | 'delete';
export const ACTIONS: readonly Action[] = ['create', 'update', 'replace', 'delete'];

/** One JSON Patch operation (RFC 6902) between the masked before and after. */
export interface DiffOp {
  op: 'add' | 'remove' | 'replace';
  path: string;
  value?: unknown;
}

/**
 * Codes a person reads by name (an alert rule's severity 1 is `critical`): the value at `pointer`, or
 * each item of a list there, is shown as `names[String(value)]`. Display only: the specs keep the codes.
 */
export interface ValueNames {
  pointer: string;
  names: Record<string, string>;
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
  /** How renderings name coded values of before/after (from the kind); compared and sent as codes. */
  valueNames?: ValueNames[];
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
  /** The kind's word on a credential the service issues for this change (a token's value): where it goes, how to read it later. */
  issued?: string;
  /** An update: live members the service shows masked or empty that the file does not set, which it leaves out (see ResourceDiff.withheld). */
  withheld?: string[];
  /** An update that renames the live resource (same id): its name before (`previousNames`). */
  renamedFrom?: string;
  /** A create and a delete of one resource moving between accounts: the key of the other change. */
  movedFrom?: string;
  movedTo?: string;
  /** A create and a delete in one account with equal specs (a rename without `previousNames`?): the other change. */
  sameSpecAs?: string;
  /** Why this change exists when not obvious, e.g. `not declared; prune is on for AlertRule`: set with `reasonCode`. */
  reason?: string;
  /** The reason as a code (src/model/reasons.ts): what counts and renderings key on. */
  reasonCode?: ChangeReasonCode;
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
  /** Matched by the root file's `protect`: prune would delete it, but never does. */
  protected?: boolean;
  /** The key of a create of this plan in the same account with an equal spec: renamed outside the files? */
  sameSpecAs?: string;
  /** Who last changed the live record and when, from the record. */
  lastChange?: LastChange;
  /** Audit log entries naming it, newest first (`plan --attribute`). */
  audit?: AuditEntry[];
}

export interface Refusal {
  /** `prevent-destroy` and `rehearsal` are those --force does not override (`--no-rehearse` skips the rehearsal). */
  code: 'safety-threshold' | 'in-use' | 'stale' | 'prevent-destroy' | 'routing-requirement' | 'rehearsal';
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
  /** Requests beyond what is left, which wait for the refill (set when waitSeconds > 0). */
  short?: number;
  /** Seconds between two requests as the bucket refills: 3600 / limit (set when waitSeconds > 0). */
  refillSeconds?: number;
  /** Estimated buckets: the wait if the bucket is empty (another run has just drained it). */
  drainedWaitSeconds?: number;
}

/**
 * Time a faulty apply may add, which a fault-free one never spends: reserved against --max-duration
 * and shown as a bound beside the estimate, never added to the requests.
 */
export interface PlanRetryReserve {
  /** The two below together. */
  seconds: number;
  /** One request safe to repeat, tried again for the client's retry budget. */
  requestSeconds: number;
  /** With creates: one whose outcome stays unknown, looked up and repeated for its own budget. */
  createSeconds?: number;
  /** At most this many look-ups for it, each but the last followed by a repeat of the create. */
  lookUps?: number;
}

/** An account a scoped plan leaves out (`--changed-since`, `--shard`), and why, in a sentence. */
export interface SkippedAccount {
  account: string;
  /** e.g. `no document of it changed since origin/main (3f2a1c9)`, `in shard 2 of 4`. */
  reason: string;
}

/**
 * What a plan covers when `--changed-since` or `--shard` narrowed it. Skipped accounts are neither
 * planned nor pruned (as with `--account`); the plan says which and why.
 */
export interface PlanScope {
  /** `--changed-since REF`: the ref as given and the commit it resolved to. */
  changedSince?: { ref: string; commit: string };
  /** `--shard I/N` (1-based). */
  shard?: { index: number; count: number };
  /** In the root file's order. */
  skipped: SkippedAccount[];
  /**
   * Set on shard plans, for merging them: every account of the root file in its order (the merged
   * plan's account order), and a digest of the configuration the shard was planned from.
   */
  rootAccounts?: string[];
  configDigest?: string;
}

export interface PlanSummary {
  create: number;
  update: number;
  replace: number;
  delete: number;
  unmanaged: number;
}

/** What plan() gives: a plan, or none when an error diagnostic was found. */
export interface PlanResult {
  /** Absent when an error diagnostic was found. */
  plan?: Plan;
  /** Errors and warnings, sorted. */
  diagnostics: Diagnostic[];
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
  /** `--target` selectors: the plan holds only their changes and what those depend on (a partial plan). */
  targets?: string[];
  /**
   * The root file's kind settings the plan was read with (e.g. predefinedProfilePrefix), so that
   * `apply --plan` reads the live state the same way.
   */
  settings?: JsonObject;
  /** Set when `--changed-since` or `--shard` narrowed the accounts: which were skipped and why. */
  scope?: PlanScope;
  /** Set when the plan may not be applied without --force. */
  refusal?: Refusal;
  /** Routing before and after (accounts whose channels and rules were read): the cells that change. */
  routing?: PlanRouting;
  /** Requests made to compute the plan. */
  apiCalls: CallStats;
  /** Requests apply will need, per bucket, against the budget known from rate-limit headers. */
  budget: BucketNeed[];
  /**
   * Of the budget's requests, those of the apply lease (taking it unless the plan was read under it,
   * a renewal for each period the writes take, its release); absent when the apply takes none.
   */
  leaseRequests?: number;
  /** What a faulty apply of this plan may add to the estimate (set with a budget, when there are changes). */
  retryReserve?: PlanRetryReserve;
  /** Set by `plan --attribute`: the audit log was read for these accounts. */
  attribution?: Attribution;
  /**
   * Kinds not read in an account: nothing of them is declared there, prune leaves them alone and
   * nothing declared refers to them, so the plan can neither change nor list them (no list spent).
   */
  unread?: UnreadKinds[];
  /** What the rehearsal found: the plan applied to an emulator seeded with the live lists, then planned again. Absent: not rehearsed. */
  rehearsal?: Rehearsal;
}

/**
 * `clean`: every change accepted and the result plans no change; `unsettled`: every change accepted,
 * but the result still plans changes; `refused`: the emulator refused a change (apply stops before
 * its first write); `failed`: the rehearsal could not run to its end (apply stops too).
 */
export type RehearsalOutcome = 'clean' | 'unsettled' | 'refused' | 'failed';
export const REHEARSAL_OUTCOMES: readonly RehearsalOutcome[] = ['clean', 'unsettled', 'refused', 'failed'];

/** A rehearsal's result (`plan`, `apply`; `--no-rehearse` skips it, a plan without changes needs none). */
export interface Rehearsal {
  outcome: RehearsalOutcome;
  /** Changes the emulator accepted. */
  accepted: number;
  /** Changes the emulator refused, in plan order, each with its message (masked); `refused` only. */
  refused?: RehearsedChange[];
  /** Changes not sent because one they depend on was refused. */
  notTried?: number;
  /** Changes the plan of the result still holds (`unsettled`), in plan order: the first few, and how many in all. */
  remaining?: RehearsedChange[];
  remainingCount?: number;
  /** Why the rehearsal could not run to its end (`failed`), or could not plan its result (`unsettled`). */
  message?: string;
}

export interface RehearsedChange {
  key: string;
  action: Action;
  /** The emulator's answer (refused) or why the change remains (remaining). */
  message?: string;
}

/** The kinds of an account a plan did not read. */
export interface UnreadKinds {
  account: string;
  kinds: string[];
}

export type ResultStatus = 'done' | 'failed' | 'skipped';

export interface ChangeResult {
  key: string;
  action: Action;
  kind: string;
  account: string;
  name: string;
  status: ResultStatus;
  /** Why it failed or was skipped; for done, notes such as `already gone`: set with `reasonCode`. */
  reason?: string;
  /** The reason as a code (src/model/reasons.ts): what counts and renderings key on. */
  reasonCode?: ResultReasonCode;
  liveId?: string;
  /** Outcome of the kind's test request (`--test-channels`). */
  test?: { ok: boolean; message?: string };
}

export interface ApplySummary extends Record<Action, number>, Record<ResultStatus, number> {}

/** Why an apply stopped starting changes before the end of its plan. */
export interface ApplyStop {
  /**
   * `interrupted`: SIGINT / SIGTERM; `unreachable`: the service refused connections several times in a
   * row; `lease-lost`: the apply lease of an account was no longer this run's at a write's fence.
   */
  cause: 'interrupted' | 'unreachable' | 'lease-lost';
  /** For people: what happened, naming the signal or the service's address. */
  message: string;
  /** Changes never started because of it (status `skipped`, reasonCode `not-started`). */
  notStarted: number;
}

/** The apply lease (one apply at a time per account, held in the service): what this run did with it. */
export interface LeaseReport {
  /** Accounts this run's lease covered (one lease for all of them). */
  accounts: string[];
  /** The account whose lease record it was (the first account of the configuration by name). */
  home?: string;
  /** Seconds spent waiting for another apply's lease. */
  waitedSeconds: number;
  /** What happened beyond taking and releasing it (waited for, expired records removed, ...). */
  notes: string[];
}

export interface ApplyReport {
  formatVersion: typeof PLAN_FORMAT_VERSION;
  /** The plan's accounts in the root file's order: renderings group results by it, as the plan's do. */
  accounts?: string[];
  results: ChangeResult[];
  /** Set when the run stopped early; the results still cover every change of the plan. */
  stopped?: ApplyStop;
  summary: ApplySummary;
  apiCalls: CallStats;
  /** Seconds spent waiting for rate-limit buckets to refill. */
  waitedSeconds: number;
  /** Present when the apply took leases (the CLI and the Action do). */
  lease?: LeaseReport;
  /** Present when the apply recorded its commit as each account's last applied one (the Action does). */
  recorded?: AppliedRecordReport;
  /** Channels whose test failed (`--test-channels`) while a routing requirement relies on them: the apply fails. */
  failedTests?: FailedTest[];
}

/** A channel the service's test found failing, and the routing requirements that rely on it. */
export interface FailedTest {
  account: string;
  kind: string;
  name: string;
  message?: string;
  requirements: string[];
}

/** The accounts whose last applied commit is now `commit`, and those left as they were (the next apply covers them). */
export interface AppliedRecordReport {
  commit: string;
  accounts: string[];
  notRecorded: { account: string; reason: string }[];
}

