// Options of the service client and how the CLI derives them from the environment.
import type { Dispatcher } from 'undici';
import { normalizeBaseUrl } from './base-url.js';
import { ClientConfigError, type RequestLogEntry } from './types.js';

export interface ClientOptions {
  /** Service address, e.g. `https://acme.example.net`; a path prefix is fine. HTTPS unless loopback. */
  baseUrl: string;
  keyId: string;
  secret: string;
  /** An undici dispatcher to use instead of the client's own Agent (tests: MockAgent). Not closed by `close()`. */
  dispatcher?: Dispatcher;
  /** Requests in flight at once. Default 4. */
  concurrency?: number;
  /** Per attempt, headers and body together. Default 30000. */
  timeoutMs?: number;
  /**
   * How long a request safe to repeat (a read, an idempotent write, a write refused before it was
   * processed) is tried again after its first failure, by the client's clock: the backoffs and the
   * failed attempts count, waits for a rate-limit bucket do not. A retry starts only while it and its
   * backoff fit in what is left. Default DEFAULT_RETRY_BUDGET_MS (2 min).
   */
  retryBudgetMs?: number;
  /** At most this many retries within the budget too: a bound when the clock does not move. Default 100. */
  maxRetries?: number;
  /** `expiryTime` asked for in the token exchange, 1..86400. Default 3600. */
  tokenExpirySeconds?: number;
  /** Longest wait for a rate-limit bucket to refill before giving up with a transient error. Default 900. */
  maxWaitSeconds?: number;
  /**
   * Called about once a second while waiting for a bucket, with the seconds left, and with 0 when the
   * wait ends; `info` gives the client's clock and the refill rate the service announced.
   */
  onWait?: (bucket: string, secondsLeft: number, info: WaitInfo) => void;
  /**
   * First step of an interruption: every wait (rate-limit bucket, backoff before a retry) ends at
   * once, and its request fails with RequestInterrupted without being sent. Requests in flight go on.
   */
  stopSignal?: AbortSignal;
  /** Second step: requests in flight are cut off, and nothing more is sent. */
  abortSignal?: AbortSignal;
  /** Consecutive connection failures (refused, reset, DNS) after which the service counts as unreachable. Default 4. */
  unreachableAfter?: number;
  /** Verbose log, one entry per request sent. Entries never hold headers, bodies or credentials. */
  log?: (entry: RequestLogEntry) => void;
  /** Clock in epoch ms. Default Date.now. */
  now?: () => number;
  /** Default: a timer. Tests inject one that only advances their clock. */
  sleep?: (ms: number) => Promise<void>;
  /** Jitter source in [0, 1). Default Math.random. */
  random?: () => number;
  /** Default `postureops`. */
  userAgent?: string;
  /**
   * Largest response body read, in bytes, and the most the pages of one list may hold together
   * (ApiRequest.pagedBytes). Default DEFAULT_MAX_RESPONSE_BYTES (32 MiB).
   */
  maxResponseBytes?: number;
  /**
   * The most records the reads of one client (one run) may return together: every list, page and
   * account, counted as each answer is parsed. What a record costs in memory does not depend on its
   * size, so tiny records are bounded by their number. Default DEFAULT_MAX_RECORDS.
   */
  maxRecords?: number;
  /**
   * The most bytes the reads of one client may return together, counted as they arrive (answers in
   * flight at once included). Default DEFAULT_MAX_TOTAL_BYTES.
   */
  maxTotalBytes?: number;
}

export interface WaitInfo {
  /** The client's clock, epoch ms. */
  now: number;
  /** RateLimit-Limit of the bucket: requests per hour, one every 3600/limit seconds. */
  limit: number;
}

export const ENV_BASE_URL = 'SVC_BASE_URL';
export const ENV_KEY_ID = 'SVC_API_KEY_ID';
export const ENV_SECRET = 'SVC_API_SECRET';
/** The response size limit, as `--max-response-size` takes it. */
export const ENV_MAX_RESPONSE = 'POSTUREOPS_MAX_RESPONSE_BYTES';
export const FLAG_MAX_RESPONSE = '--max-response-size';
/**
 * How long a request safe to repeat is tried again (ClientOptions.retryBudgetMs): at 50 % faults a
 * read fails about 30 times in a row (2^-30) before it runs out. The pre-flight reserves it.
 */
export const DEFAULT_RETRY_BUDGET_MS = 2 * 60_000;

export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/** The records limit of a run, as `--max-records` takes it. */
export const ENV_MAX_RECORDS = 'POSTUREOPS_MAX_RECORDS';
export const FLAG_MAX_RECORDS = '--max-records';
/**
 * Ten pages of 5,000 rows, several times a large real account (a few thousand records per collection):
 * about 2 KB of memory each once read and planned, so a run stays under 300 MB (README, Performance).
 */
export const DEFAULT_MAX_RECORDS = 50_000;
/** The total size limit of a run's reads, as `--max-total-size` takes it. */
export const ENV_MAX_TOTAL = 'POSTUREOPS_MAX_TOTAL_BYTES';
export const FLAG_MAX_TOTAL = '--max-total-size';
/** As much as one response may hold: a run keeps at most what its largest answer could be (read, parsed, planned: about 4 times it). */
export const DEFAULT_MAX_TOTAL_BYTES = DEFAULT_MAX_RESPONSE_BYTES;
/** What a size may look like, for messages. */
export const SIZE_EXPECTED = 'a number of bytes, or with a suffix K, M or G (1024-based), e.g. 64M';

const UNITS: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** `65536`, `64K`, `32M`, `1G` (also `32MB`, `32MiB`; case-insensitive) → bytes; undefined when not a positive size. */
export function parseByteSize(text: string): number | undefined {
  const m = /^\s*(\d+)\s*([kmg]?)(?:i?b)?\s*$/i.exec(text);
  if (!m) return undefined;
  const bytes = Number(m[1]) * UNITS[m[2].toLowerCase()];
  return Number.isSafeInteger(bytes) && bytes > 0 ? bytes : undefined;
}

/** A limit as people read it: `32 MiB`, `1.5 MiB`, `512 KiB`, `100 bytes`. */
export function sizeText(bytes: number): string {
  for (const [unit, size] of [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}

/**
 * Base URL from `--base-url` or SVC_BASE_URL, key from SVC_API_KEY_ID / SVC_API_SECRET.
 * Throws ClientConfigError naming what is missing or wrong, never echoing a value.
 */
export function clientOptionsFromEnv(
  env: Record<string, string | undefined>,
  flags: { baseUrl?: string; maxResponseSize?: string; maxRecords?: string; maxTotalSize?: string },
): ClientOptions {
  const flagUrl = present(flags.baseUrl);
  const baseUrl = flagUrl ?? present(env[ENV_BASE_URL]);
  const keyId = present(env[ENV_KEY_ID]);
  const secret = present(env[ENV_SECRET]);
  const missing: string[] = [];
  if (baseUrl === undefined) missing.push(`${ENV_BASE_URL} (or --base-url)`);
  if (keyId === undefined) missing.push(ENV_KEY_ID);
  if (secret === undefined) missing.push(ENV_SECRET);
  if (baseUrl === undefined || keyId === undefined || secret === undefined) {
    const noun = missing.length === 1 ? 'variable' : 'variables';
    throw new ClientConfigError(`missing environment ${noun} ${missing.join(', ')}: the service address and API key are needed to reach the service`);
  }
  const maxResponseBytes = limitOf(flags.maxResponseSize, FLAG_MAX_RESPONSE, env[ENV_MAX_RESPONSE], ENV_MAX_RESPONSE, parseByteSize, 'a size', SIZE_EXPECTED);
  const maxTotalBytes = limitOf(flags.maxTotalSize, FLAG_MAX_TOTAL, env[ENV_MAX_TOTAL], ENV_MAX_TOTAL, parseByteSize, 'a size', SIZE_EXPECTED);
  const maxRecords = limitOf(flags.maxRecords, FLAG_MAX_RECORDS, env[ENV_MAX_RECORDS], ENV_MAX_RECORDS, parseCount, 'a count', COUNT_EXPECTED);
  return {
    baseUrl: normalizeBaseUrl(baseUrl, flagUrl !== undefined ? '--base-url' : ENV_BASE_URL),
    keyId,
    secret,
    ...(maxResponseBytes !== undefined ? { maxResponseBytes } : {}),
    ...(maxRecords !== undefined ? { maxRecords } : {}),
    ...(maxTotalBytes !== undefined ? { maxTotalBytes } : {}),
  };
}

/** What a count may look like, for messages. */
export const COUNT_EXPECTED = 'a whole number above 0, e.g. 250000';

/** `250000` → 250000; undefined when not a positive whole number. */
export function parseCount(text: string): number | undefined {
  const m = /^\s*(\d+)\s*$/.exec(text);
  const n = m ? Number(m[1]) : Number.NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** A limit from its flag, else its variable (the flag wins); undefined when neither is given. */
function limitOf(
  flag: string | undefined,
  flagName: string,
  variable: string | undefined,
  variableName: string,
  parse: (text: string) => number | undefined,
  noun: string,
  expected: string,
): number | undefined {
  const fromFlag = present(flag);
  const given = fromFlag ?? present(variable);
  if (given === undefined) return undefined;
  const value = parse(given);
  if (value === undefined) throw new ClientConfigError(`${fromFlag !== undefined ? flagName : variableName} ${JSON.stringify(given)} is not ${noun}: expected ${expected}`);
  return value;
}

function present(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
