// The contract of the service client. Everything above src/api talks to the service through this.

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface ApiRequest {
  method: HttpMethod;
  /** Path starting with /api/v2, e.g. `/api/v2/AlertChannels/ABC`. Identifiers are URI-encoded by the caller. */
  path: string;
  /** Value of the Account-Name header; omitted when undefined. */
  account?: string;
  /** Sends `Org-Access: true` (organization-level data; Account-Name is then ignored by the service). */
  orgAccess?: boolean;
  /** JSON body. */
  body?: unknown;
  /**
   * Values in the path that are credentials (an agent access token is its own id): the client hides
   * them, in every form, from its log and its errors, for the rest of its life.
   */
  secrets?: string[];
  /**
   * Whether sending this request twice is as good as sending it once. Default: true for GET, PUT,
   * PATCH, DELETE and POST searches (`.../search`), false for other POSTs, which are then never
   * retried once they may have reached the service.
   */
  idempotent?: boolean;
  /**
   * The same answer from another functionality (a list's `POST .../search`), with its own rate-limit
   * budget: each attempt is sent as this request or as the alternative, whichever bucket has more
   * budget left. Both must be safe to repeat; account and headers are the same.
   */
  alternative?: { method: HttpMethod; path: string; body?: unknown };
  /**
   * A further page of a list (`nextPage`): the bytes of its earlier pages (`ApiResponse.bytes`
   * summed). They count against the client's response size limit, so a list is bounded whatever
   * number of pages it comes in.
   */
  pagedBytes?: number;
  /**
   * A write under a lease (src/ops/lease): asked as each attempt leaves, after its rate-limit
   * wait, its token and its connection slot, and told how the attempt ended. `leaving` throws when
   * the attempt may not be sent (the error reaches the caller as it is; nothing was sent).
   */
  gate?: RequestGate;
  /**
   * Sent whatever the run's stop and abort signals say (a lease's release after an interruption),
   * each attempt bounded by this many milliseconds (at most the client's own bound).
   */
  detached?: { timeoutMs: number };
  /** May take budget the client holds back for reserved requests (ApiClient.reserve). */
  reserved?: boolean;
}

/** See ApiRequest.gate. */
export interface RequestGate {
  leaving(): void;
  /** After each attempt that left: `answered` when the service's answer (any status) arrived. */
  landed(answered: boolean): void;
}

export interface ApiResponse<T = unknown> {
  status: number;
  /** Parsed JSON body; `undefined` for 204 or an empty body. Not unwrapped: see `unwrapData`. */
  body: T;
  /** Size of the body on the wire, in bytes (for `pagedBytes`). */
  bytes?: number;
  /** The service's time when it answered (its `Date` header, epoch ms; 1 s resolution), when it sent one. */
  date?: number;
}

export interface BucketBudget {
  /** `bucketOf(method, path)`, e.g. `GET AlertChannels`. */
  bucket: string;
  /** RateLimit-Limit: requests per hour. */
  limit: number;
  /** RateLimit-Remaining as last seen, minus requests sent since. */
  remaining: number;
  /** RateLimit-Reset: seconds until another request can be made, as last seen. */
  resetSeconds: number;
  /** Epoch ms when these headers were read. */
  observedAt: number;
}

export interface CallStats {
  /** Requests sent to the service, token exchange and retries included. */
  total: number;
  /** Per bucket. */
  byBucket: Record<string, number>;
}

/** A single entry of the verbose log. Never holds a header, a body or a credential. */
export interface RequestLogEntry {
  method: HttpMethod;
  path: string;
  account?: string;
  status: number | 'network-error';
  ms: number;
  bucket: string;
  remaining?: number;
  attempt: number;
}

export interface ApiClient {
  /** Sends one logical request (retrying what is safe to retry). Throws `ApiError`. */
  request<T = unknown>(req: ApiRequest): Promise<ApiResponse<T>>;
  /** Budget per bucket as known from the rate-limit headers seen so far. */
  budget(): BucketBudget[];
  stats(): CallStats;
  close(): Promise<void>;
  /** The longest one attempt may take (ms): every attempt is aborted at this bound. */
  requestBoundMs?(): number;
  /** How long a request safe to repeat is tried again (ms, ClientOptions.retryBudgetMs): the pre-flight reserves it. */
  retryBudget?(): number;
  /**
   * Holds `n` requests of `bucket` back for requests marked `reserved` (a lease's renewals and
   * release): the others wait as if they were spent. Called again, it sets the number held back.
   */
  reserve?(bucket: string, n: number): void;
}

/**
 * - `transient`: 429, 5xx, network fault; retrying later may succeed (already retried where safe).
 *   For a non-idempotent request it means the request was not processed: a 429, a connection that
 *   never carried it, or a rate-limit wait longer than allowed (nothing was sent).
 * - `permanent`: 4xx other than 429; the request is wrong or refused, do not repeat it unchanged.
 * - `outcome-unknown`: a non-idempotent write (POST) whose outcome cannot be known (network fault
 *   after sending, 5xx); the caller must look before repeating it.
 */
export type ApiErrorKind = 'transient' | 'permanent' | 'outcome-unknown';

export class ApiError extends Error {
  readonly kind: ApiErrorKind;
  readonly status?: number;
  /** The service's `message`, when it sent one. */
  readonly serviceMessage?: string;
  readonly method: HttpMethod;
  readonly path: string;
  /** The service address the request went to (origin and prefix), for messages that say where. */
  readonly address?: string;
  /** The Account-Name the request carried, when it carried one. */
  readonly account?: string;
  /** No HTTP answer: the system's code (`ECONNREFUSED`, `ENOTFOUND`, `CERT_HAS_EXPIRED`...), when there was one. */
  readonly networkCode?: string;
  /** No HTTP answer within the client's time limit. */
  readonly timedOut?: boolean;

  constructor(init: {
    kind: ApiErrorKind;
    status?: number;
    serviceMessage?: string;
    method: HttpMethod;
    path: string;
    detail?: string;
    address?: string;
    account?: string;
    networkCode?: string;
    timedOut?: boolean;
  }) {
    const where = `${init.method} ${init.path}`;
    const what = init.status !== undefined ? `${init.status}` : (init.detail ?? 'network error');
    const msg = init.serviceMessage ? `${what}: ${init.serviceMessage}` : what;
    super(`${where} failed (${init.kind}): ${msg}`);
    this.name = 'ApiError';
    this.kind = init.kind;
    this.status = init.status;
    this.serviceMessage = init.serviceMessage;
    this.method = init.method;
    this.path = init.path;
    if (init.address !== undefined) this.address = init.address;
    if (init.account !== undefined) this.account = init.account;
    if (init.networkCode !== undefined) this.networkCode = init.networkCode;
    if (init.timedOut) this.timedOut = true;
  }
}

/**
 * A request that ended because the run is being interrupted: a wait for a rate-limit bucket or
 * before a retry ended at the stop signal, or the abort signal cut the request off in flight.
 * `mayHaveLanded` is false when nothing of it can have changed the service (never sent, or every
 * attempt refused before processing).
 */
export class RequestInterrupted extends Error {
  constructor(
    readonly method: HttpMethod,
    readonly path: string,
    readonly mayHaveLanded: boolean,
  ) {
    super(
      mayHaveLanded
        ? `${method} ${path} was interrupted; whether it reached the service is unknown (the next plan shows it)`
        : `${method} ${path} was not sent: the run was interrupted`,
    );
    this.name = 'RequestInterrupted';
  }
}

/**
 * The service did not accept a connection several times in a row (refused, reset, no such host):
 * the client sends nothing more and every request fails at once with this error.
 */
export class ServiceUnreachable extends Error {
  constructor(
    /** The service's origin, e.g. `http://127.0.0.1:4010`. */
    readonly address: string,
    /** The last connection error code, e.g. `ECONNREFUSED`. */
    readonly code: string,
    /** Consecutive connection failures that led to giving up. */
    readonly failures: number,
  ) {
    super(`the service at ${address} is unreachable (${code}, ${failures} connection attempts in a row failed)`);
    this.name = 'ServiceUnreachable';
  }
}

/** Configuration problems of the client itself (missing credentials, plain HTTP to a remote host). */
export class ClientConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientConfigError';
  }
}

/** `{data: X}` → X; a bare body (alert profiles) is returned as it is. */
export function unwrapData<T = unknown>(body: unknown): T {
  if (body !== null && typeof body === 'object' && !Array.isArray(body) && 'data' in body) {
    return (body as { data: T }).data;
  }
  return body as T;
}
