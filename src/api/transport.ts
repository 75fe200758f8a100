// One HTTP exchange over an undici dispatcher, with a deadline on headers and body together, and a
// size limit on the body: counted as the bytes arrive, the stream destroyed past it, so that what the
// service sends never grows memory beyond it (a Content-Length over it is refused before reading).
import type { Dispatcher } from 'undici';
import type { HttpMethod } from './types.js';

export interface WireRequest {
  method: HttpMethod;
  /** Path on the wire, prefix included. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Size of the body on the wire. */
  bytes: number;
}

/**
 * Bytes read by all exchanges sharing it (one client: one run), counted as they arrive, so that
 * bodies in flight at once are bounded together. A body not kept (a failure, but for a refusal)
 * gives its bytes back.
 */
export interface ReadTotal {
  used: number;
  readonly max: number;
}

/** An answer whose body is larger than the limit: not read beyond it. */
export class BodyTooLarge extends Error {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string | string[] | undefined>,
    /** The limit this body had (what is left of the limit after earlier pages). */
    readonly limit: number,
    /** The Content-Length it announced, when that alone refused it. */
    readonly declared?: number,
    /** The run's total (ReadTotal) refused it, not the limit of one response. */
    readonly overTotal = false,
  ) {
    super(`response body larger than ${limit} bytes`);
    this.name = 'BodyTooLarge';
  }
}

/** No HTTP answer: a refused or dropped connection, or the deadline passed. */
export class WireFailure extends Error {
  constructor(
    readonly code: string | undefined,
    readonly timedOut: boolean,
    /** Cut off by the caller's abort signal. */
    readonly aborted = false,
  ) {
    super(aborted ? 'aborted' : timedOut ? 'timed out' : `network error${code ? ` (${code})` : ''}`);
    this.name = 'WireFailure';
  }
}

export async function exchange(
  dispatcher: Dispatcher,
  origin: string,
  req: WireRequest,
  timeoutMs: number,
  signal?: AbortSignal,
  maxBytes = Number.POSITIVE_INFINITY,
  total?: ReadTotal,
): Promise<WireResponse> {
  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, timeoutMs);
  const cutOff = () => abort.abort();
  if (signal?.aborted) abort.abort();
  else signal?.addEventListener('abort', cutOff, { once: true });
  try {
    const res = await dispatcher.request({
      origin,
      path: req.path,
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal: abort.signal,
    });
    const { text, bytes } = await readLimited(res, maxBytes, total);
    return { status: res.statusCode, headers: res.headers, text, bytes };
  } catch (err) {
    if (err instanceof BodyTooLarge) throw err;
    if (!timedOut && signal?.aborted) throw new WireFailure(undefined, false, true);
    throw new WireFailure(timedOut ? undefined : errorCode(err), timedOut);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', cutOff);
  }
}

/** The body as text (UTF-8, a BOM dropped, as undici's `text()`), refused past `maxBytes` or past `total`. */
async function readLimited(res: Dispatcher.ResponseData, maxBytes: number, total?: ReadTotal): Promise<{ text: string; bytes: number }> {
  const header = res.headers['content-length'];
  const declared = typeof header === 'string' && /^\d+$/.test(header) ? Number(header) : undefined;
  if (declared !== undefined && declared > maxBytes) {
    discard(res);
    throw new BodyTooLarge(res.statusCode, res.headers, maxBytes, declared);
  }
  if (declared !== undefined && total && total.used + declared > total.max) {
    discard(res);
    throw new BodyTooLarge(res.statusCode, res.headers, total.max, declared, true);
  }
  // Each piece is decoded as it arrives and its bytes let go at once: no buffer of the whole body
  // beside its text (the bytes, a copy joining them, then the text had cost three times the body).
  const decoder = new TextDecoder();
  const pieces: string[] = [];
  let bytes = 0;
  try {
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (total) total.used += chunk.length;
      if (bytes > maxBytes || (total && total.used > total.max)) {
        discard(res);
        throw new BodyTooLarge(res.statusCode, res.headers, bytes > maxBytes ? maxBytes : (total as ReadTotal).max, undefined, bytes <= maxBytes);
      }
      pieces.push(decoder.decode(chunk, { stream: true }));
    }
  } catch (err) {
    // A failed read (dropped, timed out) may be repeated: its bytes are not kept. A refused one stays
    // counted, so that the run's other reads stop too instead of taking its room.
    if (total && !(err instanceof BodyTooLarge)) total.used -= bytes;
    throw err;
  }
  pieces.push(decoder.decode());
  return { text: pieces.join(''), bytes };
}

/** Closes the body's connection; undici reports the cut as an error on the stream, expected here. */
function discard(res: Dispatcher.ResponseData): void {
  res.body.on('error', () => undefined);
  res.body.destroy();
}

/** Node and undici put the code on the error, on its cause, or (several addresses tried) on the first of `errors`. */
function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e !== null && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    const errors = (e as { errors?: unknown }).errors;
    e = Array.isArray(errors) && errors.length > 0 ? errors[0] : (e as { cause?: unknown }).cause;
  }
  return undefined;
}
