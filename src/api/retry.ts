// What may be repeated, and how long to wait before repeating it.
import type { ApiRequest } from './types.js';

export const BACKOFF_BASE_MS = 250;
export const BACKOFF_CAP_MS = 8000;

/** Statuses that say "try again later"; 429 is rejected before processing, so even a POST may repeat it. */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/** Exponential backoff with full jitter: a random wait in [0, min(cap, base·2^retry)). */
export function backoffMs(retry: number, random: () => number): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retry);
  return Math.floor(Math.min(1, Math.max(0, random())) * ceiling);
}

/**
 * Whether sending the request twice has the same effect as sending it once. GET, PUT, DELETE by
 * definition; PATCH too, because our PATCH bodies set absolute values (never increments or
 * appends), so a repeated PATCH lands on the same state. A POST is not, unless the caller says so
 * (`idempotent: true`) or it is a search, which only reads.
 */
export function isIdempotent(req: Pick<ApiRequest, 'method' | 'path'> & { idempotent?: boolean }): boolean {
  if (req.idempotent !== undefined) return req.idempotent;
  if (req.method !== 'POST') return true;
  return req.path.split('?')[0].endsWith('/search');
}

/** Error codes of a connection that never carried the request: repeating cannot do anything twice. */
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Codes that say the service itself cannot be reached (refused, reset, no such host): several in a
 * row, with no answer in between, and the client gives up on the service (ServiceUnreachable).
 */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set([...NOT_SENT_CODES, 'ECONNRESET']);

export function isConnectionFailure(code: string | undefined): boolean {
  return code !== undefined && UNREACHABLE_CODES.has(code);
}

export function failedBeforeSending(code: string | undefined): boolean {
  return code !== undefined && NOT_SENT_CODES.has(code);
}

/**
 * Failures inside the client before anything was sent (a header value undici refuses, a closed
 * dispatcher, a MockAgent without a matching interceptor): repeating cannot help.
 */
const CLIENT_FAULT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_INVALID_ARG',
  'UND_ERR_NOT_SUPPORTED',
  'UND_ERR_DESTROYED',
  'UND_ERR_CLOSED',
  'UND_MOCK_ERR_MOCK_NOT_MATCHED',
]);

export function isClientFault(code: string | undefined): boolean {
  return code !== undefined && CLIENT_FAULT_CODES.has(code);
}

/** TLS failures do not heal by themselves; retrying only delays the message. */
export function isTlsFailure(code: string | undefined): boolean {
  return (
    code !== undefined &&
    (code.startsWith('ERR_TLS') ||
      code.startsWith('CERT_') ||
      code.includes('SELF_SIGNED') ||
      code.startsWith('UNABLE_TO_') ||
      code === 'HOSTNAME_MISMATCH' ||
      code === 'ERR_SSL_WRONG_VERSION_NUMBER')
  );
}
