// The service client: token, headers, retries that are safe, rate-limit budget, bounded concurrency.
import { Agent, type Dispatcher } from 'undici';
import { bucketOf } from './buckets.js';
import { parseServiceAddress, resolveRequestPath, type ServiceAddress } from './base-url.js';
import { BudgetExhausted, RateLimitBudget, WaitStopped, readRateLimit, sleepUnless } from './budget.js';
import {
  type ClientOptions,
  DEFAULT_MAX_RECORDS,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_TOTAL_BYTES,
  DEFAULT_RETRY_BUDGET_MS,
  ENV_MAX_RECORDS,
  ENV_MAX_RESPONSE,
  ENV_MAX_TOTAL,
  FLAG_MAX_RECORDS,
  FLAG_MAX_RESPONSE,
  FLAG_MAX_TOTAL,
  sizeText,
} from './options.js';
import type { Redactor } from '../model/masking.js';
import { credentialRedactor, serviceMessage } from './redact.js';
import { RETRY_STATUSES, backoffMs, failedBeforeSending, isClientFault, isConnectionFailure, isIdempotent, isTlsFailure } from './retry.js';
import { Semaphore } from '../model/concurrency.js';
import { TokenCache, type IssuedToken } from './token.js';
import { BodyTooLarge, type ReadTotal, WireFailure, exchange, type WireResponse } from './transport.js';
import { ApiError, ClientConfigError, RequestInterrupted, ServiceUnreachable, type ApiClient, type ApiErrorKind, type ApiRequest, type ApiResponse, type BucketBudget, type HttpMethod, type RequestGate, type RequestLogEntry } from './types.js';
import { type CallStats } from '../model/plan.js';

export type { ClientOptions } from './options.js';

export const TOKEN_PATH = '/api/v2/access/tokens';

const DEFAULTS = {
  concurrency: 4,
  timeoutMs: 30_000,
  maxRetries: 100,
  tokenExpirySeconds: 3600,
  maxWaitSeconds: 900,
  unreachableAfter: 4,
  userAgent: 'postureops',
};

/** One logical request as the retry loop sees it. */
interface Call {
  method: HttpMethod;
  /** Below the base URL, starting with /api/v2: for messages and the log. */
  path: string;
  wirePath: string;
  bucket: string;
  account?: string;
  orgAccess?: boolean;
  body?: string;
  idempotent: boolean;
  /** The token exchange itself: no bearer token, and a 401/403 means the key is refused. */
  tokenExchange: boolean;
  /** The same answer from another bucket (ApiRequest.alternative): each attempt takes the one with budget. */
  alternative?: Call;
  /** Bytes of the earlier pages of the same list (ApiRequest.pagedBytes): they count against the limit. */
  pagedBytes?: number;
  gate?: RequestGate;
  /** Sent whatever the stop and abort signals say, each attempt bounded by this (ApiRequest.detached). */
  detachedMs?: number;
  reserved?: boolean;
}

/** Why an attempt did not succeed, and whether another attempt is safe. */
interface Failure {
  error: ApiError;
  retryable: boolean;
  /** Wait before the next attempt; undefined → exponential backoff. */
  delayMs?: number;
  /** The attempt may have changed something (relevant to a repeated DELETE). */
  mayHaveApplied: boolean;
}

export function createClient(options: ClientOptions): ApiClient {
  return new ServiceClient(options);
}

class ServiceClient implements ApiClient {
  private readonly address: ServiceAddress;
  private readonly dispatcher: Dispatcher;
  private readonly ownAgent: Agent | undefined;
  private readonly keyId: string;
  private readonly secret: string;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly maxRecords: number;
  /** Bytes of the reads' bodies so far (and in flight), against maxTotalBytes. */
  private readonly readTotal: ReadTotal;
  /** Records the reads have returned so far, against maxRecords. */
  private records = 0;
  /** The run limit a read passed (which, and how to raise it): later reads are not sent. */
  private spent: string | undefined;
  private readonly maxRetries: number;
  private readonly retryBudgetMs: number;
  private readonly tokenExpirySeconds: number;
  private readonly userAgent: string;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly log: ((entry: RequestLogEntry) => void) | undefined;
  private readonly slots: Semaphore;
  private readonly budgets: RateLimitBudget;
  private readonly redactor: Redactor;
  private readonly tokens: TokenCache;
  private readonly counts: CallStats = { total: 0, byBucket: {} };
  private readonly stopSignal: AbortSignal | undefined;
  private readonly abortSignal: AbortSignal | undefined;
  private readonly unreachableAfter: number;
  /** Connection failures since the last answer of the service, and the last one's code. */
  private connectionFailures = 0;
  private unreachable: ServiceUnreachable | undefined;
  private closed = false;

  constructor(options: ClientOptions) {
    this.address = parseServiceAddress(options.baseUrl, 'baseUrl');
    if (typeof options.keyId !== 'string' || options.keyId === '') throw new ClientConfigError('the API key id is empty');
    if (typeof options.secret !== 'string' || options.secret === '') throw new ClientConfigError('the API secret is empty');
    this.keyId = options.keyId;
    this.secret = options.secret;
    const concurrency = integerOption('concurrency', options.concurrency, DEFAULTS.concurrency, 1, 256);
    this.timeoutMs = numberOption('timeoutMs', options.timeoutMs, DEFAULTS.timeoutMs, 1, 3_600_000);
    this.maxResponseBytes = integerOption('maxResponseBytes', options.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES, 1, Number.MAX_SAFE_INTEGER);
    this.maxRecords = integerOption('maxRecords', options.maxRecords, DEFAULT_MAX_RECORDS, 1, Number.MAX_SAFE_INTEGER);
    this.readTotal = { used: 0, max: integerOption('maxTotalBytes', options.maxTotalBytes, DEFAULT_MAX_TOTAL_BYTES, 1, Number.MAX_SAFE_INTEGER) };
    this.maxRetries = integerOption('maxRetries', options.maxRetries, DEFAULTS.maxRetries, 0, 100);
    this.retryBudgetMs = numberOption('retryBudgetMs', options.retryBudgetMs, DEFAULT_RETRY_BUDGET_MS, 0, 3_600_000);
    this.tokenExpirySeconds = integerOption('tokenExpirySeconds', options.tokenExpirySeconds, DEFAULTS.tokenExpirySeconds, 1, 86_400);
    const maxWaitSeconds = numberOption('maxWaitSeconds', options.maxWaitSeconds, DEFAULTS.maxWaitSeconds, 0, 86_400);
    this.userAgent = options.userAgent ?? DEFAULTS.userAgent;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = options.random ?? Math.random;
    this.log = options.log;
    this.ownAgent = options.dispatcher
      ? undefined
      : new Agent({ connections: concurrency, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs });
    this.dispatcher = options.dispatcher ?? (this.ownAgent as Agent);
    this.slots = new Semaphore(concurrency);
    this.stopSignal = options.stopSignal;
    this.abortSignal = options.abortSignal;
    this.unreachableAfter = integerOption('unreachableAfter', options.unreachableAfter, DEFAULTS.unreachableAfter, 1, 1000);
    this.budgets = new RateLimitBudget({ now: this.now, sleep: this.sleep, maxWaitSeconds, onWait: options.onWait, stop: options.stopSignal });
    this.redactor = credentialRedactor([this.secret, this.keyId]);
    this.tokens = new TokenCache(() => this.fetchToken(), this.now, this.tokenExpirySeconds);
  }

  async request<T = unknown>(req: ApiRequest): Promise<ApiResponse<T>> {
    if (this.closed) throw new ClientConfigError('the service client is closed');
    if (this.unreachable) throw this.unreachable;
    if (req.alternative && !(isIdempotent(req) && isIdempotent({ ...req, ...req.alternative }))) {
      throw new ClientConfigError(`${req.method} ${req.path} and its alternative must both be safe to repeat`);
    }
    const wirePath = resolveRequestPath(req.path, this.address);
    const apiPath = wirePath.slice(this.address.prefix.length);
    if (req.account !== undefined && !/^[\x20-\x7e]*$/.test(req.account)) {
      throw new ClientConfigError(`account name ${JSON.stringify(req.account)} has characters that cannot be sent in the Account-Name header`);
    }
    // An id that is itself a credential (an agent token) never reaches a log line or an error.
    for (const secret of req.secrets ?? []) this.redactor.add(secret);
    const response = await this.run({
      ...this.call(req, apiPath, wirePath),
      ...(req.alternative ? { alternative: this.call({ ...req, ...req.alternative }) } : {}),
    });
    return response as ApiResponse<T>;
  }

  private call(req: ApiRequest, apiPath?: string, wirePath?: string): Call {
    const wire = wirePath ?? resolveRequestPath(req.path, this.address);
    const api = apiPath ?? wire.slice(this.address.prefix.length);
    return {
      method: req.method,
      path: req.secrets?.length ? this.redactor.redact(api) : api,
      wirePath: wire,
      bucket: bucketOf(req.method, api),
      account: req.account === '' ? undefined : req.account,
      orgAccess: req.orgAccess,
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      idempotent: isIdempotent(req),
      tokenExchange: false,
      ...(req.pagedBytes !== undefined && req.pagedBytes > 0 ? { pagedBytes: req.pagedBytes } : {}),
      ...(req.gate ? { gate: req.gate } : {}),
      ...(req.detached ? { detachedMs: Math.max(1, Math.min(this.timeoutMs, req.detached.timeoutMs)) } : {}),
      ...(req.reserved ? { reserved: true } : {}),
    };
  }

  requestBoundMs(): number {
    return this.timeoutMs;
  }

  retryBudget(): number {
    return this.retryBudgetMs;
  }

  reserve(bucket: string, n: number): void {
    this.budgets.reserve(bucket, n);
  }

  budget(): BucketBudget[] {
    return this.budgets.snapshot();
  }

  stats(): CallStats {
    return { total: this.counts.total, byBucket: { ...this.counts.byBucket } };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.ownAgent) await this.ownAgent.close();
  }

  /**
   * Attempts until success, a failure that must not be repeated, or the retry budget is spent: a
   * time (retryBudgetMs, on the client's clock, rate-limit waits left out) and, as a bound when the
   * clock does not move, a count (maxRetries).
   */
  private async run(call: Call): Promise<ApiResponse> {
    // A run past one of its limits is over: its other reads are refused before they are sent,
    // rather than each read (and parsed) up to the limit again while the run ends.
    if (isRead(call)) this.refuseWhenSpent(call);
    let retries = 0;
    let renewedToken = false;
    let mayHaveApplied = false;
    const started = this.now();
    let bucketWaitMs = 0;
    for (let attempt = 1; ; attempt++) {
      if (this.unreachable) throw this.unreachable;
      if (this.abortSignal?.aborted && call.detachedMs === undefined) throw new RequestInterrupted(call.method, call.path, mayHaveApplied);
      const { outcome, token, sent, waitedMs } = await this.attempt(call, attempt, mayHaveApplied);
      bucketWaitMs += waitedMs;
      if (outcome instanceof WireFailure && outcome.aborted) throw new RequestInterrupted(sent.method, sent.path, true);
      // Not repeated: the service would send the same again.
      if (outcome instanceof BodyTooLarge) throw this.tooLarge(sent, outcome);
      if (!(outcome instanceof WireFailure)) {
        const { status } = outcome;
        if (status >= 200 && status < 300) return this.success(sent, outcome);
        // An expired token is answered with 401, sometimes 403: renew once and repeat once.
        if (token !== undefined && (status === 401 || status === 403) && !renewedToken) {
          renewedToken = true;
          await this.tokens.renew(token);
          continue;
        }
        // A DELETE whose earlier attempt may have landed: "not found" now means it is gone.
        if (call.method === 'DELETE' && status === 404 && mayHaveApplied) return { status: 204, body: undefined };
      }
      const failure = outcome instanceof WireFailure ? this.networkFailure(sent, outcome) : this.statusFailure(sent, outcome);
      mayHaveApplied ||= failure.mayHaveApplied;
      // Given up on the service: no retry. A request that may have landed keeps its own error (the
      // caller must look before repeating it), the others say why nothing more is sent.
      if (this.unreachable) throw mayHaveApplied ? failure.error : this.unreachable;
      if (!failure.retryable || retries >= this.maxRetries) throw failure.error;
      // An interruption ends the wait before a retry; the retry is not sent. A detached request
      // (a lease's release) is not retried after one either: its deadline is short.
      if (this.stopSignal?.aborted) throw call.detachedMs === undefined ? new RequestInterrupted(call.method, call.path, mayHaveApplied) : failure.error;
      const delay = failure.delayMs ?? backoffMs(retries, this.random);
      // A retry starts only when it, its backoff and its own bound fit in the budget left: the
      // request is over within retryBudgetMs of its first attempt, waits for a bucket aside.
      const spentMs = Math.max(0, this.now() - started - bucketWaitMs);
      if (spentMs + delay + (call.detachedMs ?? this.timeoutMs) > this.retryBudgetMs) throw failure.error;
      if (delay > 0 && !(await sleepUnless(this.sleep, delay, this.stopSignal))) throw new RequestInterrupted(call.method, call.path, mayHaveApplied);
      retries++;
    }
  }

  /**
   * One request on the wire: budget, then the token (so a long wait does not hold an old one), a
   * concurrency slot, the exchange, bookkeeping. Returns the token it sent, if any.
   */
  private async attempt(either: Call, attempt: number, sentBefore: boolean): Promise<{ outcome: WireResponse | WireFailure | BodyTooLarge; token?: string; sent: Call; waitedMs: number }> {
    let ticket: number;
    let call = either;
    // The wait for a bucket: not the failure's time, so it does not count against the retry budget.
    const queued = this.now();
    try {
      if (either.alternative) {
        const taken = await this.budgets.takeAny([either.bucket, either.alternative.bucket]);
        ticket = taken.ticket;
        if (taken.bucket !== either.bucket) call = either.alternative;
      } else {
        ticket = await this.budgets.take(either.bucket, either.reserved === true);
      }
    } catch (err) {
      if (err instanceof BudgetExhausted) throw this.error(call, 'transient', { detail: err.message });
      if (err instanceof WaitStopped) throw new RequestInterrupted(call.method, call.path, sentBefore);
      throw err;
    }
    const waitedMs = Math.max(0, this.now() - queued);
    let token: string | undefined;
    try {
      token = call.tokenExchange ? undefined : await this.tokens.get();
    } catch (err) {
      this.budgets.giveBack(call.bucket, ticket);
      throw err;
    }
    const release = await this.slots.acquire();
    // The last moment before the attempt leaves: a lease's fence is judged here, not when it was queued.
    try {
      call.gate?.leaving();
    } catch (err) {
      release();
      this.budgets.giveBack(call.bucket, ticket);
      throw err;
    }
    const started = this.now();
    this.counts.total++;
    this.counts.byBucket[call.bucket] = (this.counts.byBucket[call.bucket] ?? 0) + 1;
    let outcome: WireResponse | WireFailure | BodyTooLarge;
    try {
      outcome = await exchange(
        this.dispatcher,
        this.address.origin,
        { method: call.method, path: call.wirePath, headers: this.headers(call, token), body: call.body },
        call.detachedMs ?? this.timeoutMs,
        call.detachedMs === undefined ? this.abortSignal : undefined,
        Math.max(0, this.maxResponseBytes - (call.pagedBytes ?? 0)),
        isRead(call) ? this.readTotal : undefined,
      );
      // Only what a read keeps counts: an error's body is not kept.
      if (!(outcome.status >= 200 && outcome.status < 300) && isRead(call)) this.readTotal.used -= outcome.bytes;
    } catch (err) {
      outcome = err instanceof WireFailure || err instanceof BodyTooLarge ? err : new WireFailure(undefined, false);
    } finally {
      release();
    }
    this.noteReachability(outcome);
    call.gate?.landed(!(outcome instanceof WireFailure));
    if (outcome instanceof WireFailure) this.budgets.settle(call.bucket, ticket, undefined);
    else this.budgets.settle(call.bucket, ticket, readRateLimit(outcome.headers), outcome.status === 429);
    if (this.log) {
      const remaining = this.budgets.remainingOf(call.bucket);
      this.log({
        method: call.method,
        path: call.path,
        ...(call.account !== undefined ? { account: call.account } : {}),
        status: outcome instanceof WireFailure ? 'network-error' : outcome.status,
        ms: Math.max(0, this.now() - started),
        bucket: call.bucket,
        ...(remaining !== undefined ? { remaining } : {}),
        attempt,
      });
    }
    return { outcome, token, sent: call, waitedMs };
  }

  /** Any answer proves the service is there; refused, reset or unresolved connections in a row prove the opposite. */
  private noteReachability(outcome: WireResponse | WireFailure | BodyTooLarge): void {
    if (!(outcome instanceof WireFailure)) {
      this.connectionFailures = 0;
      return;
    }
    if (outcome.timedOut || outcome.aborted || !isConnectionFailure(outcome.code)) return;
    this.connectionFailures++;
    if (this.connectionFailures >= this.unreachableAfter && !this.unreachable) {
      this.unreachable = new ServiceUnreachable(this.address.origin + this.address.prefix, outcome.code as string, this.connectionFailures);
    }
  }

  private headers(call: Call, token: string | undefined): Record<string, string> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': this.userAgent,
    };
    if (call.tokenExchange) headers['x-svc-uaks'] = this.secret;
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    if (call.account !== undefined) headers['account-name'] = call.account;
    if (call.orgAccess) headers['org-access'] = 'true';
    return headers;
  }

  /**
   * A body over the limit: permanent for a read (the service would send it again), outcome unknown for
   * a write (it may have been done). Says where, the limit, and how to raise it.
   */
  private tooLarge(call: Call, over: BodyTooLarge): ApiError {
    const size = over.declared !== undefined ? ` (it announced ${sizeText(over.declared)})` : '';
    if (over.overTotal) {
      this.spent = `${sizeText(over.limit)}; raise the limit with ${FLAG_MAX_TOTAL} SIZE or ${ENV_MAX_TOTAL}=SIZE if this much is expected`;
      return this.error(call, call.idempotent ? 'permanent' : 'outcome-unknown', {
        detail:
          `with this response${size}, the reads of this run pass ${sizeText(over.limit)}, the most postureops reads in one run (all lists of all accounts together); ` +
          `raise the limit with ${FLAG_MAX_TOTAL} SIZE or ${ENV_MAX_TOTAL}=SIZE (e.g. 256M) if this much is expected, or read fewer accounts in one run`,
      });
    }
    const limit = sizeText(this.maxResponseBytes);
    const paged = call.pagedBytes !== undefined ? ` with the ${sizeText(call.pagedBytes)} of the earlier pages of this list` : '';
    return this.error(call, call.idempotent ? 'permanent' : 'outcome-unknown', {
      detail: `the response${paged} is larger than ${limit}${size}, the most postureops reads; raise the limit with ${FLAG_MAX_RESPONSE} SIZE or ${ENV_MAX_RESPONSE}=SIZE (e.g. 64M) if this much is expected`,
    });
  }

  private success(call: Call, res: WireResponse): ApiResponse {
    const date = serviceDate(res.headers.date);
    const stamp = date !== undefined ? { date } : {};
    if (res.text.trim() === '') return { status: res.status, body: undefined, bytes: res.bytes, ...stamp };
    let body: unknown;
    try {
      body = JSON.parse(res.text);
    } catch {
      // The write may have happened; only a look can tell.
      const kind: ApiErrorKind = call.idempotent ? 'permanent' : 'outcome-unknown';
      throw this.error(call, kind, { status: res.status, serviceMessage: 'response body is not JSON' });
    }
    if (isRead(call)) this.countRecords(call, body);
    return { status: res.status, body, bytes: res.bytes, ...stamp };
  }

  private refuseWhenSpent(call: Call): void {
    if (this.spent !== undefined) throw this.error(call, 'permanent', { detail: `not sent: the reads of this run have passed ${this.spent}` });
  }

  /**
   * Counts the records of a read's answer (`{data: [...]}` or a bare list) against the run's limit,
   * right after parsing: an answer over it is dropped before anything else holds it.
   */
  private countRecords(call: Call, body: unknown): void {
    const data = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as { data?: unknown }).data : body;
    if (!Array.isArray(data)) return;
    this.records += data.length;
    if (this.records <= this.maxRecords) return;
    this.spent = `${this.maxRecords} records; raise the limit with ${FLAG_MAX_RECORDS} N or ${ENV_MAX_RECORDS}=N if this much is expected`;
    throw this.error(call, 'permanent', {
      detail:
        `with the ${data.length} records of this response, the reads of this run pass ${this.maxRecords} records, the most postureops holds in one run (all lists of all accounts together); ` +
        `raise the limit with ${FLAG_MAX_RECORDS} N or ${ENV_MAX_RECORDS}=N if this much is expected, or read fewer accounts in one run`,
    });
  }

  private statusFailure(call: Call, res: WireResponse): Failure {
    const { status } = res;
    const message = serviceMessage(this.redactor, res.text);
    if (call.tokenExchange && (status === 401 || status === 403)) {
      // A 403 with a reason is not a wrong key but a key that may not have a token (an account user).
      const said = status === 403 && message !== undefined ? message : 'credentials refused';
      return { error: this.error(call, 'permanent', { status, serviceMessage: said }), retryable: false, mayHaveApplied: false };
    }
    if (status >= 300 && status < 400) {
      return { error: this.error(call, 'permanent', { status, serviceMessage: 'unexpected redirect' }), retryable: false, mayHaveApplied: false };
    }
    if (status === 429) {
      // Rejected before processing. With RateLimit-Reset the budget wait in `attempt` does the waiting.
      const reset = readRateLimit(res.headers).reset;
      return {
        error: this.error(call, 'transient', { status, serviceMessage: message }),
        retryable: true,
        delayMs: reset !== undefined && reset > 0 ? 0 : undefined,
        mayHaveApplied: false,
      };
    }
    if (RETRY_STATUSES.has(status)) {
      if (!call.idempotent) {
        return { error: this.error(call, 'outcome-unknown', { status, serviceMessage: message }), retryable: false, mayHaveApplied: true };
      }
      return { error: this.error(call, 'transient', { status, serviceMessage: message }), retryable: true, mayHaveApplied: true };
    }
    return { error: this.error(call, 'permanent', { status, serviceMessage: message }), retryable: false, mayHaveApplied: false };
  }

  private networkFailure(call: Call, failure: WireFailure): Failure {
    const wire = { networkCode: failure.code, timedOut: failure.timedOut };
    if (isClientFault(failure.code)) {
      return { error: this.error(call, 'permanent', { detail: `request not sent (${failure.code})`, ...wire }), retryable: false, mayHaveApplied: false };
    }
    if (isTlsFailure(failure.code)) {
      return { error: this.error(call, 'permanent', { detail: `TLS failure (${failure.code})`, ...wire }), retryable: false, mayHaveApplied: false };
    }
    const detail = failure.timedOut ? `timed out after ${this.timeoutMs} ms` : `network error (${failure.code ?? 'connection failed'})`;
    if (failedBeforeSending(failure.code)) {
      return { error: this.error(call, 'transient', { detail, ...wire }), retryable: true, mayHaveApplied: false };
    }
    if (!call.idempotent) {
      return { error: this.error(call, 'outcome-unknown', { detail, ...wire }), retryable: false, mayHaveApplied: true };
    }
    return { error: this.error(call, 'transient', { detail, ...wire }), retryable: true, mayHaveApplied: true };
  }

  private error(
    call: Call,
    kind: ApiErrorKind,
    what: { status?: number; serviceMessage?: string; detail?: string; networkCode?: string; timedOut?: boolean },
  ): ApiError {
    return new ApiError({
      kind,
      method: call.method,
      path: call.path,
      status: what.status,
      serviceMessage: what.serviceMessage,
      detail: what.detail === undefined ? undefined : this.redactor.redact(what.detail),
      address: this.address.origin + this.address.prefix,
      ...(call.account !== undefined ? { account: call.account } : {}),
      ...(what.networkCode !== undefined ? { networkCode: what.networkCode } : {}),
      ...(what.timedOut ? { timedOut: true } : {}),
    });
  }

  /** POST /api/v2/access/tokens; safe to repeat, since an unused token harms nothing. */
  private async fetchToken(): Promise<IssuedToken> {
    const call: Call = {
      method: 'POST',
      path: TOKEN_PATH,
      wirePath: this.address.prefix + TOKEN_PATH,
      bucket: bucketOf('POST', TOKEN_PATH),
      body: JSON.stringify({ keyId: this.keyId, expiryTime: this.tokenExpirySeconds }),
      idempotent: true,
      tokenExchange: true,
    };
    const res = await this.run(call);
    const body = res.body as { token?: unknown; expiresAt?: unknown } | undefined;
    if (body === null || typeof body !== 'object' || typeof body.token !== 'string' || body.token === '') {
      throw this.error(call, 'permanent', { status: res.status, serviceMessage: 'token response without a token' });
    }
    this.redactor.add(body.token);
    return { token: body.token, expiresAt: typeof body.expiresAt === 'string' ? Date.parse(body.expiresAt) : Number.NaN };
  }
}

/** A read of the service's state (a GET, or a search): what it returns counts against the run's limits. */
function isRead(call: Call): boolean {
  return !call.tokenExchange && (call.method === 'GET' || (call.method === 'POST' && call.path.split('?')[0].endsWith('/search')));
}

function integerOption(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ClientConfigError(`client option ${name} must be an integer from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

function numberOption(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new ClientConfigError(`client option ${name} must be a number from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

/** The `Date` header as epoch ms; undefined when absent or not a date. */
function serviceDate(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}
