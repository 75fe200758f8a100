// Executes one change of a plan through its Kind: builds the requests (secrets resolved only here),
// sends them, and settles unknown create outcomes by looking before repeating.

import { ApiError, type ApiClient, type ApiRequest, type ApiResponse, type RequestGate, RequestInterrupted, ServiceUnreachable, unwrapData } from '../../api/types.js';
import { type AccountConfig, requestTarget } from '../../model/account.js';
import type { DesiredResource, LiveResource } from '../../model/resource.js';
import type { FetchContext, Kind, RequestContext } from '../../kinds/types.js';
import type { JsonObject } from '../../model/json.js';
import type { Env } from '../../model/env.js';
import { parsePointer } from '../../model/json-pointer.js';
import type { Redactor } from '../../model/masking.js';
import { type LiteralSource, MissingEnvError, MissingLiteralError, PlaceholderEnvError, resolveEnv } from '../../model/env-markers.js';
import type { Change, ChangeResult } from '../../model/plan.js';
import { because, type ResultReasonCode } from '../../model/reasons.js';
import { MalformedBodyError } from '../../model/service-body.js';
import { LeaseLostError } from '../lease/lease.js';

/**
 * How long a create whose outcome stays unknown is tried again, each time after a look that found
 * it not created (so repeating it is safe): a budget in time, counted in the pre-flight, not a count
 * of attempts.
 */
export const RETRY_BUDGET_MS = 5 * 60_000;
/** The longest pause between two attempts of such a create. */
const RETRY_PAUSE_MAX_MS = 30_000;

/** The pause before the attempt after `attempt` (1, 2, 4... s, at most RETRY_PAUSE_MAX_MS). */
function retryPauseMs(attempt: number): number {
  return Math.min(RETRY_PAUSE_MAX_MS, 1000 * 2 ** (attempt - 1));
}

/**
 * At most how many look-ups one create whose outcome stays unknown sends within `budgetMs` (each
 * but the last followed by a repeat of the create): its pauses alone bound them, whatever the answers take.
 */
export function retryLookUps(budgetMs = RETRY_BUDGET_MS): number {
  let n = 1;
  for (let paused = 0; paused < budgetMs; n++) paused += retryPauseMs(n);
  return n;
}
export const CONFIRMED_REASON = 'created (confirmed after an unknown outcome)';
export const ALREADY_GONE_REASON = 'already gone';

/** Ids of resources created during this run, by (account, kind, name). */
export class CreatedIds {
  private readonly ids = new Map<string, string>();
  private static key(account: string, kind: string, name: string): string {
    return JSON.stringify([account, kind, name]);
  }
  set(account: string, kind: string, name: string, id: string): void {
    this.ids.set(CreatedIds.key(account, kind, name), id);
  }
  get(account: string, kind: string, name: string): string | undefined {
    return this.ids.get(CreatedIds.key(account, kind, name));
  }
}

export interface ChangeRunner {
  /**
   * The values apply sends that must never be shown: the client hides them from a service message
   * before it shortens it (a cut first would leave a piece of a secret no redactor recognises).
   */
  secretValues?: readonly string[];
  /** Receives credentials the service issues on create (see EngineHooks.onCredential). */
  onCredential?: (change: Change, value: string) => void;
  client: ApiClient;
  kinds: readonly Kind[];
  env: Env;
  literals?: LiteralSource;
  accounts: readonly AccountConfig[];
  testResources: boolean;
  created: CreatedIds;
  redactor: Redactor;
  /** Told when the client gives up on the service, so that no further change starts. */
  onUnreachable?: (err: ServiceUnreachable) => void;
  /** Told when the lease's fence refused a write, so that no further change starts. */
  onLeaseLost?: (err: LeaseLostError) => void;
  /** Why the run stopped, once it has (an interruption, an unreachable service). */
  stopReason?: () => string | undefined;
  /** With an apply lease: every write leaves through it (the client judges the fence as it leaves). */
  gate?: RequestGate;
  /** The run's clock and sleep: the retry budget of a create is measured in time. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  retryBudgetMs?: number;
  /** The longest a request may take: a write whose outcome is unknown is looked up only after it. */
  requestBoundMs?: number;
}

/**
 * The updates of one account to a kind updated in bulk (Kind.bulkUpdate: the predefined policies'
 * PATCH with a bare array), sent as one request: one outcome for all of them. A bulk kind's updates
 * carry no secrets (its specs are states and severities), so they are sent as the plan holds them.
 */
export async function runBulk(changes: readonly Change[], runner: ChangeRunner): Promise<ChangeOutcome> {
  const first = changes[0];
  const kind = runner.kinds.find((k) => k.kind === first.kind);
  try {
    if (!kind?.bulkUpdate) throw new ChangeError('invalid-change', `${first.kind} has no bulk update`);
    const updates = changes.map((c) => {
      if (c.liveId === undefined || c.after === undefined) throw new ChangeError('invalid-change', `${c.key}: an update without a live id or a spec`);
      return { id: c.liveId, desired: { kind: c.kind, account: c.account, name: c.name, spec: c.after, envRefs: {} }, changed: c.changed ?? [] };
    });
    const target = requestTarget(first.account, runner.accounts);
    const ctx: RequestContext = { account: first.account, orgAccess: target.orgAccess === true, resolve: (_kind, name) => name };
    // The lease judges the write as it leaves, as for every other write.
    await runner.client.request({ ...kind.bulkUpdate.request(updates, ctx), ...target, ...(runner.gate ? { gate: runner.gate } : {}) });
    return { status: 'done', liveId: undefined };
  } catch (err) {
    return { status: 'failed', ...because(failureCode(err), runner.redactor.redact(describe(err))) };
  }
}

/** The reason of a change the run stopped before it could start. */
export function notStarted(why: string): { status: 'skipped'; reasonCode: 'not-started'; reason: string } {
  return { status: 'skipped', ...because('not-started', `not started: ${why}`) };
}

export type ChangeOutcome = Pick<ChangeResult, 'status' | 'reason' | 'reasonCode' | 'liveId' | 'test'>;

/** A change that cannot be carried out, for a reason worth showing as it is, with its code. */
class ChangeError extends Error {
  constructor(
    readonly code: ResultReasonCode,
    message: string,
  ) {
    super(message);
  }
}

/** The code of what made a change fail: by the error's type, never by its message. */
function failureCode(err: unknown): ResultReasonCode {
  if (err instanceof ChangeError) return err.code;
  if (err instanceof ApiError) return err.kind === 'outcome-unknown' ? 'outcome-unknown' : 'request-failed';
  if (err instanceof MalformedBodyError) return err.mayHaveApplied ? 'outcome-unknown' : 'request-failed';
  // The run stopped under this change after one of its requests may have landed.
  if (err instanceof RequestInterrupted || err instanceof ServiceUnreachable || err instanceof LeaseLostError) return 'interrupted';
  if (err instanceof MissingEnvError || err instanceof MissingLiteralError || err instanceof PlaceholderEnvError) return 'missing-value';
  return 'change-failed';
}

/** Whether any request of a change may have reached the service, and what stopped it, if anything did. */
interface Track {
  reached: boolean;
  stopped: boolean;
}

export async function runChange(change: Change, runner: ChangeRunner): Promise<ChangeOutcome> {
  const track: Track = { reached: false, stopped: false };
  try {
    return await execute(change, runner, track);
  } catch (err) {
    // Stopped before any of its requests reached the service: as if it had never started.
    const why = runner.stopReason?.();
    if (track.stopped && !track.reached && why !== undefined) return notStarted(why);
    return { status: 'failed', ...because(failureCode(err), runner.redactor.redact(describe(err))) };
  }
}

async function execute(change: Change, runner: ChangeRunner, track: Track): Promise<ChangeOutcome> {
  const kind = runner.kinds.find((k) => k.kind === change.kind);
  if (!kind) throw new ChangeError('invalid-change', `no resource kind named ${change.kind} is registered`);
  const orgAccess = runner.accounts.find((a) => a.name === change.account)?.orgAccess ?? false;
  const secrets = runner.secretValues ?? [];
  const send = async <T>(req: ApiRequest): Promise<ApiResponse<T>> => {
    try {
      const res = await runner.client.request<T>({
        ...req,
        // The lease guards every write, not only the first, as it leaves.
        ...(runner.gate && !isRead(req) ? { gate: runner.gate } : {}),
        account: orgAccess ? undefined : change.account,
        orgAccess: orgAccess || undefined,
        ...(req.body !== undefined && secrets.length > 0 ? { secrets: [...(req.secrets ?? []), ...secrets] } : {}),
      });
      track.reached = true;
      return res;
    } catch (err) {
      if (err instanceof LeaseLostError) {
        // Not sent: the fence refused it as it left.
        track.stopped = true;
        runner.onLeaseLost?.(err);
      } else if (err instanceof RequestInterrupted) {
        track.stopped = true;
        if (err.mayHaveLanded) track.reached = true;
      } else if (err instanceof ServiceUnreachable) {
        track.stopped = true;
        runner.onUnreachable?.(err);
      } else {
        track.reached = true;
      }
      throw err;
    }
  };
  const ctx: RequestContext = {
    account: change.account,
    orgAccess,
    resolve(refKind, name) {
      // A resource created in this run is the current one, even when the plan knew an older id (replace).
      const id = runner.created.get(change.account, refKind, name) ?? change.refs?.find((r) => r.kind === refKind && r.name === name)?.id;
      if (id === undefined) {
        throw new ChangeError('missing-value', `${refKind} "${name}" in account ${change.account} has no live id: it is neither live nor created in this run`);
      }
      return id;
    },
  };
  const step: Step = { change, kind, runner, ctx, send, orgAccess };

  let outcome: ChangeOutcome;
  switch (change.action) {
    case 'create': {
      const { desired, request } = buildCreate(step);
      outcome = await createConfirmed(step, desired, request);
      break;
    }
    case 'update': {
      const liveId = requireLiveId(change);
      const desired = buildDesired(step, kind.kind, change.name, change.parent, change.after);
      const changed = change.changed ?? [...new Set((change.diff ?? []).map((op) => parsePointer(op.path)[0]).filter((m) => m !== undefined))];
      const serviceId = await serviceIdOf(step, liveId);
      if (serviceId === undefined) throw new ChangeError('no-longer-live', `${kind.kind} ${change.name} is no longer live`);
      const options = change.renamedFrom !== undefined ? { rename: true } : undefined;
      for (const req of kind.updateRequests(serviceId, desired, changed, ctx, options)) await send(withSecretId(step, req, serviceId));
      outcome = { status: 'done', liveId };
      break;
    }
    case 'delete': {
      outcome = await deleteLive(step, requireLiveId(change));
      break;
    }
    case 'replace': {
      const liveId = requireLiveId(change);
      // Everything that can fail before a request (env, references) fails before the delete.
      const { desired, request } = buildCreate(step);
      await deleteLive(step, liveId);
      try {
        outcome = await createConfirmed(step, desired, request);
      } catch (err) {
        throw new ChangeError('replacement-failed', `deleted ${liveId}, but creating its replacement failed: ${describe(err)}`);
      }
      break;
    }
  }
  if (runner.testResources && kind.lifecycle?.testRequest && outcome.liveId !== undefined && change.action !== 'delete') {
    outcome.test = await testResource(step, outcome.liveId);
  }
  return outcome;
}

interface Step {
  change: Change;
  kind: Kind;
  runner: ChangeRunner;
  ctx: RequestContext;
  send<T>(req: ApiRequest): Promise<ApiResponse<T>>;
  orgAccess: boolean;
}

function requireLiveId(change: Change): string {
  if (change.liveId === undefined || change.liveId === '') throw new ChangeError('invalid-change', `the plan gives no live id for this ${change.action}`);
  return change.liveId;
}

function buildDesired(step: Step, kind: string, name: string, parent: string | undefined, after: JsonObject | undefined): DesiredResource {
  const { change } = step;
  if (after === undefined) throw new ChangeError('invalid-change', `the plan gives no desired spec for this ${change.action}`);
  const desired: DesiredResource = { kind, account: change.account, name, spec: resolveEnv(after, step.runner.env, step.runner.literals), envRefs: {} };
  if (parent !== undefined) desired.parent = parent;
  return desired;
}

function buildCreate(step: Step): { desired: DesiredResource; request: ApiRequest } {
  const { change, kind, runner } = step;
  const desired = buildDesired(step, kind.kind, change.name, change.parent, change.after);
  const children = (change.children ?? []).map((child) => {
    const childKind = runner.kinds.find((k) => k.hierarchy?.parentKind === kind.kind);
    if (!childKind) throw new ChangeError('invalid-change', `the plan gives children, but no kind is owned by ${kind.kind}`);
    return buildDesired(step, childKind.kind, child.name, change.name, child.after);
  });
  return { desired, request: step.kind.createRequest(desired, children, step.ctx) };
}

async function createConfirmed(step: Step, desired: DesiredResource, request: ApiRequest): Promise<ChangeOutcome> {
  const { change, kind, runner } = step;
  const now = runner.now ?? Date.now;
  const sleep = runner.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const until = now() + (runner.retryBudgetMs ?? RETRY_BUDGET_MS);
  for (let attempt = 1; ; attempt++) {
    let outcome: ChangeOutcome;
    try {
      const res = await step.send(request);
      const credential = kind.credentials?.issuedCredential?.(res.body);
      if (credential !== undefined) {
        runner.redactor.add(credential);
        runner.onCredential?.(change, credential);
      }
      outcome = { status: 'done', liveId: kind.createdId(res.body, desired, step.ctx) };
    } catch (err) {
      if (!isUnknownOutcome(err)) throw err;
      // The run stopped (interrupted, the service unreachable): no look, the outcome stays unknown.
      if (runner.stopReason?.() !== undefined) throw err;
      // No answer at all: the request may still be on its way until the client's bound has passed.
      if (err instanceof ApiError && err.status === undefined && (err.networkCode !== undefined || err.timedOut === true || err.address !== undefined)) await sleep(runner.requestBoundMs ?? 0);
      // Repeating blindly could create a duplicate (names are not unique in the service): look first.
      const found = await lookUp(step, desired);
      if (found.length > 1) {
        throw new ChangeError('outcome-unknown', `duplicate names after unknown outcome: ids ${found.map((r) => r.id).sort().join(', ')}`);
      }
      if (found.length === 1) {
        outcome = { status: 'done', liveId: found[0].id, ...because('created-after-unknown-outcome', CONFIRMED_REASON) };
        // The answer that carried an issued credential was lost; a kind whose id is that credential
        // still has it in the record found.
        const id = found[0].serviceId;
        if (kind.credentials?.issuedCredential && kind.credentials?.secretIds && id !== undefined) {
          runner.redactor.add(id);
          runner.onCredential?.(change, id);
        }
      } else if (now() >= until || runner.stopReason?.() !== undefined) {
        throw new ChangeError('outcome-unknown', `create outcome unknown ${attempt} times in ${Math.round((runner.retryBudgetMs ?? RETRY_BUDGET_MS) / 1000)}s and not found by name: ${describe(err)}`);
      } else {
        // Not created: repeating it is safe. A pause that grows, within the budget.
        await sleep(Math.min(retryPauseMs(attempt), Math.max(0, until - now())));
        continue;
      }
    }
    runner.created.set(change.account, kind.kind, change.name, outcome.liveId as string);
    return outcome;
  }
}

/** One fresh list of the kind in the change's account (never the plan's cached live state). */
async function lookUp(step: Step, desired: DesiredResource): Promise<LiveResource[]> {
  const live = await listFresh(step, 'create outcome unknown, and looking it up', 'outcome-unknown');
  return live.filter((r) => r.kind === step.kind.kind && r.name === desired.name && (desired.parent === undefined || r.parent === desired.parent));
}

async function listFresh(step: Step, what: string, code: ResultReasonCode): Promise<LiveResource[]> {
  const { change, kind } = step;
  // Memoised only within this one lookup, so a kind that reads a path twice costs one request.
  const seen = new Map<string, Promise<unknown>>();
  // A kind listed per parent (a policy's exceptions) reads the change's parent only.
  const parentKind = kind.perParent?.parentKind;
  const fetch: FetchContext = {
    account: change.account,
    orgAccess: step.orgAccess,
    ...(parentKind !== undefined && change.parent !== undefined ? { parents: [{ id: step.ctx.resolve(parentKind, change.parent), name: change.parent }] } : {}),
    get(path) {
      let p = seen.get(path);
      if (!p) {
        p = step.send({ method: 'GET', path }).then((res) => unwrapData(res.body));
        seen.set(path, p);
      }
      return p;
    },
  };
  try {
    return await kind.list(fetch);
  } catch (err) {
    throw new ChangeError(code, `${what} failed: ${describe(err)}`);
  }
}

/**
 * The id to put in paths: the plan's own, or, for a kind whose ids are credentials, the real one
 * behind the plan's stand-in, read afresh (undefined when no live resource has it any more).
 */
async function serviceIdOf(step: Step, liveId: string): Promise<string | undefined> {
  if (!step.kind.credentials?.secretIds) return liveId;
  const live = await listFresh(step, 'finding the resource', 'request-failed');
  const found = live.find((r) => r.kind === step.kind.kind && r.id === liveId)?.serviceId;
  if (found !== undefined) step.runner.redactor.add(found);
  return found;
}

function withSecretId(step: Step, req: ApiRequest, serviceId: string): ApiRequest {
  return step.kind.credentials?.secretIds ? { ...req, secrets: [...(req.secrets ?? []), serviceId] } : req;
}

async function deleteLive(step: Step, liveId: string): Promise<ChangeOutcome> {
  const serviceId = await serviceIdOf(step, liveId);
  if (serviceId === undefined) return { status: 'done', liveId, ...because('already-gone', ALREADY_GONE_REASON) };
  try {
    await step.send(withSecretId(step, step.kind.deleteRequest(serviceId, step.ctx), serviceId));
    return { status: 'done', liveId };
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return { status: 'done', liveId, ...because('already-gone', ALREADY_GONE_REASON) };
    throw err;
  }
}

async function testResource(step: Step, liveId: string): Promise<{ ok: boolean; message?: string }> {
  const test = step.kind.lifecycle?.testRequest;
  if (!test) return { ok: true };
  try {
    await step.send(test(liveId, step.ctx));
    return { ok: true };
  } catch (err) {
    const message = err instanceof ApiError && err.serviceMessage ? err.serviceMessage : describe(err);
    return { ok: false, message: step.runner.redactor.redact(message) };
  }
}

/** A request that changes nothing: a list, a read, a search. */
function isRead(req: ApiRequest): boolean {
  return req.method === 'GET' || (req.method === 'POST' && /\/search$/.test(req.path.split('?')[0]));
}

/** The client answers `transient` for a POST only when it was not processed (see ApiErrorKind). */
function isUnknownOutcome(err: unknown): boolean {
  return (err instanceof ApiError && err.kind === 'outcome-unknown') || (err instanceof MalformedBodyError && err.mayHaveApplied);
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
