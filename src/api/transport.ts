// One HTTP exchange over an undici dispatcher, with a deadline on headers and body together.
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

export async function exchange(dispatcher: Dispatcher, origin: string, req: WireRequest, timeoutMs: number, signal?: AbortSignal): Promise<WireResponse> {
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
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, text };
  } catch (err) {
    if (!timedOut && signal?.aborted) throw new WireFailure(undefined, false, true);
    throw new WireFailure(timedOut ? undefined : errorCode(err), timedOut);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', cutOff);
  }
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
