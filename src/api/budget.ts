// Rate-limit budget per bucket, learnt from the RateLimit-* headers. Waiting for a bucket to refill
// before sending is what lets a large apply finish without a single 429.
import type { BucketBudget } from './types.js';

export interface RateLimitHeaders {
  limit?: number;
  remaining?: number;
  reset?: number;
}

type HeaderValue = string | string[] | undefined;

/** The seed's window is one rolling hour: no wait for the next token is longer. */
export const MAX_RESET_SECONDS = 3600;

/**
 * Reads `RateLimit-Limit`, `-Remaining`, `-Reset`; a draft-style value like `120, 120;w=3600` gives
 * 120. A figure the seed's rules cannot produce is read as absent (a proxy's or a broken header,
 * never a budget): a limit of 0, a Reset beyond the one-hour window. A remaining above the limit is
 * the limit.
 */
export function readRateLimit(headers: Record<string, HeaderValue>): RateLimitHeaders {
  const limit = leadingInt(headers['ratelimit-limit']);
  const remaining = leadingInt(headers['ratelimit-remaining']);
  const reset = leadingInt(headers['ratelimit-reset']);
  const plausibleLimit = limit !== undefined && limit > 0 ? limit : undefined;
  return {
    limit: plausibleLimit,
    remaining: remaining !== undefined && plausibleLimit !== undefined ? Math.min(remaining, plausibleLimit) : remaining,
    reset: reset !== undefined && reset <= MAX_RESET_SECONDS ? reset : undefined,
  };
}

function leadingInt(value: HeaderValue): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  const m = /^\s*(\d{1,15})(?!\d)/.exec(text);
  return m ? Number(m[1]) : undefined;
}

/** Thrown by `take` when a bucket would not refill within the allowed wait. */
export class BudgetExhausted extends Error {
  constructor(
    readonly bucket: string,
    readonly secondsLeft: number,
    readonly resetsAt: number,
  ) {
    super(`rate-limit budget of ${bucket} exhausted; it refills in ${secondsLeft} s (at ${new Date(resetsAt).toISOString()})`);
    this.name = 'BudgetExhausted';
  }
}

interface BucketState {
  limit: number;
  /** As last seen, minus requests sent since. */
  remaining: number;
  resetSeconds: number;
  observedAt: number;
  /** Epoch ms from which another request may be sent when `remaining` is 0. */
  refillAt: number;
}

/** Thrown by `take` when the stop signal ends a wait: nothing was sent. */
export class WaitStopped extends Error {
  constructor(readonly bucket: string) {
    super(`the wait for ${bucket} was ended by the stop signal`);
    this.name = 'WaitStopped';
  }
}

export interface BudgetOptions {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  maxWaitSeconds: number;
  onWait?: (bucket: string, secondsLeft: number, info: { now: number; limit: number }) => void;
  /** Ends every wait at once (WaitStopped). */
  stop?: AbortSignal;
}

/**
 * `sleep(ms)`, ended early when `signal` aborts: resolves true when the sleep ran its course, false
 * when the signal ended it. The injected sleep cannot be cancelled, so it is raced, not stopped.
 */
export async function sleepUnless(sleep: (ms: number) => Promise<void>, ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal === undefined) {
    await sleep(ms);
    return true;
  }
  if (signal.aborted) return false;
  let onAbort: () => void = () => undefined;
  const stopped = new Promise<false>((resolve) => {
    onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([sleep(ms).then(() => true as const), stopped]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

export class RateLimitBudget {
  private readonly buckets = new Map<string, BucketState>();
  /** Requests sent and not yet settled, per bucket: ticket → requests settled before it was sent. */
  private readonly inFlight = new Map<string, Map<number, number>>();
  /** Requests settled so far, per bucket. */
  private readonly settled = new Map<string, number>();
  /** Buckets not known yet: the one request finding out, and a promise of its answer. */
  private readonly probes = new Map<string, { ticket: number; answered: Promise<void>; resolve: () => void }>();
  /** Buckets whose answers carry no RateLimit headers: nothing to track, so nothing to hold back. */
  private readonly untracked = new Set<string>();
  private tickets = 0;
  /** Requests held back per bucket for reserved requests (`reserve`). */
  private readonly held = new Map<string, number>();

  constructor(private readonly opts: BudgetOptions) {}

  /** Holds `n` requests of `bucket` back for reserved requests; 0 lets them all go. */
  reserve(bucket: string, n: number): void {
    if (n > 0) this.held.set(bucket, n);
    else this.held.delete(bucket);
  }

  /**
   * Waits until `bucket` may take one more request, takes it and returns a ticket for `settle`.
   * The first request of a bucket goes alone: a burst must not spend a budget nobody knows yet.
   * A single wait for a refill longer than `maxWaitSeconds` throws BudgetExhausted.
   */
  async take(bucket: string, reserved = false): Promise<number> {
    const start = this.opts.now();
    let slept = 0;
    let waited = false;
    for (;;) {
      const state = this.buckets.get(bucket);
      if (state === undefined) {
        if (this.untracked.has(bucket)) break;
        const probe = this.probes.get(bucket);
        if (probe) {
          await probe.answered;
          continue;
        }
        const ticket = this.issue(bucket);
        let resolve: () => void = () => undefined;
        const answered = new Promise<void>((r) => (resolve = r));
        this.probes.set(bucket, { ticket, answered, resolve });
        return ticket;
      }
      // Requests held back for reserved ones (a lease's renewals and release): the others leave
      // them in place and go at the refill rate, as from an empty bucket.
      const held = reserved ? 0 : (this.held.get(bucket) ?? 0);
      if (state.remaining > held) {
        state.remaining--;
        if (reserved) this.held.set(bucket, Math.max(0, (this.held.get(bucket) ?? 0) - 1));
        break;
      }
      // A sleep that does not move the injected clock must still let time pass here.
      const t = Math.max(this.opts.now(), start + slept);
      if (t >= state.refillAt) {
        // Refilled by at least one request. Take it; until the next answer tells the truth, assume
        // the following one comes a token interval later (the bucket refills `limit` per hour).
        state.refillAt = t + tokenIntervalMs(state.limit);
        break;
      }
      const leftMs = state.refillAt - t;
      if (leftMs > this.opts.maxWaitSeconds * 1000) {
        throw new BudgetExhausted(bucket, Math.ceil(leftMs / 1000), state.refillAt);
      }
      if (this.opts.stop?.aborted) throw this.stopped(bucket, waited);
      this.opts.onWait?.(bucket, Math.ceil(leftMs / 1000), { now: this.opts.now(), limit: state.limit });
      waited = true;
      const step = Math.min(1000, leftMs);
      if (!(await sleepUnless(this.opts.sleep, step, this.opts.stop))) throw this.stopped(bucket, waited);
      slept += step;
    }
    // 0 closes the countdown (a terminal line can end there).
    if (waited) this.closeCountdown(bucket);
    return this.issue(bucket);
  }

  /**
   * Like `take`, for a request that any of `buckets` can carry (a list and its search): takes from
   * the bucket with the most budget left now, so the reads of a run spread over the functionalities
   * that have budget instead of waiting for one. A bucket never used counts as full; one whose
   * first answer is awaited is not chosen until it is known, unless the others are empty. Ties go to
   * the earlier bucket. With every bucket empty, the one that refills first is waited for.
   */
  async takeAny(buckets: readonly string[]): Promise<{ bucket: string; ticket: number }> {
    if (buckets.length === 0) throw new Error('takeAny needs at least one bucket');
    for (;;) {
      const probing = buckets.map((b) => this.probes.get(b)?.answered).filter((p): p is Promise<void> => p !== undefined);
      const bucket = this.pick(buckets, probing.length > 0);
      // Chosen and taken in the same turn of the event loop: concurrent reads cannot choose the same last token.
      if (bucket !== undefined) return { bucket, ticket: await this.take(bucket) };
      // The stop signal ends this wait as it ends a refill wait: nothing was sent.
      if (this.opts.stop?.aborted) throw new WaitStopped(buckets[0]);
      const stop = this.opts.stop;
      let onAbort: () => void = () => undefined;
      const stopped = new Promise<void>((resolve) => (onAbort = resolve));
      stop?.addEventListener('abort', onAbort, { once: true });
      try {
        await Promise.race([...probing, stopped]);
      } finally {
        stop?.removeEventListener('abort', onAbort);
      }
      if (stop?.aborted) throw new WaitStopped(buckets[0]);
    }
  }

  /** The bucket `takeAny` takes from now; undefined to wait for a first answer still out. */
  private pick(buckets: readonly string[], someProbing: boolean): string | undefined {
    const now = this.opts.now();
    let best: string | undefined;
    let bestScore = -Infinity;
    for (const bucket of buckets) {
      if (this.probes.has(bucket)) continue;
      const state = this.buckets.get(bucket);
      // Not known (never used, or answered without RateLimit headers): as good as full.
      // Known with budget: what is left; empty but refilled by now: one. Empty: minus the
      // milliseconds until it refills.
      const score = state === undefined ? Infinity : state.remaining > 0 ? state.remaining : now >= state.refillAt ? 1 : -(state.refillAt - now);
      if (score > bestScore) {
        best = bucket;
        bestScore = score;
      }
    }
    // Every bucket known is empty: a first answer still out may show budget; wait for it.
    if (bestScore <= 0 && someProbing) return undefined;
    return best;
  }

  private closeCountdown(bucket: string): void {
    this.opts.onWait?.(bucket, 0, { now: this.opts.now(), limit: this.buckets.get(bucket)?.limit ?? 0 });
  }

  private stopped(bucket: string, waited: boolean): WaitStopped {
    if (waited) this.closeCountdown(bucket);
    return new WaitStopped(bucket);
  }

  /**
   * Records the answer to a request taken with `ticket`; call it exactly once per ticket.
   * `headers` is undefined when no answer came (network fault): the request keeps counting as
   * spent. `rateLimited` marks a 429, which empties the bucket whatever the headers say.
   */
  settle(bucket: string, ticket: number, headers: RateLimitHeaders | undefined, rateLimited = false): void {
    const out = this.inFlight.get(bucket);
    const settledAtSend = out?.get(ticket) ?? 0;
    out?.delete(ticket);
    const settledBefore = this.settled.get(bucket) ?? 0;
    this.settled.set(bucket, settledBefore + 1);
    const probe = this.probes.get(bucket);
    const answersProbe = probe !== undefined && probe.ticket === ticket;
    if (answersProbe) this.probes.delete(bucket);
    try {
      if (headers === undefined) return;
      if (headers.remaining === undefined && !rateLimited) {
        if (answersProbe) this.untracked.add(bucket);
        return;
      }
      // A 429 with no rate-limit figure at all (a proxy's, a gateway's) says "later", not "this
      // bucket holds 0 an hour": the retry's backoff waits, and nothing is learnt or remembered.
      if (rateLimited && headers.limit === undefined && headers.remaining === undefined && headers.reset === undefined) return;
      const known = this.buckets.get(bucket);
      const now = this.opts.now();
      const resetSeconds = headers.reset ?? 0;
      const limit = headers.limit ?? known?.limit ?? headers.remaining ?? 0;
      // No limit to go by (no plausible RateLimit-Limit, nothing known, nothing remaining): nothing to
      // learn, unless it is a 429, whose Reset (within the hour) is still the wait. Never remembered:
      // the memory keeps only limits of at least 1.
      if (limit < 1 && !rateLimited) return;
      // Concurrent requests reach the service in any order. Those still out may be counted after
      // this one: subtract them. If others were answered while this one was out, the service may
      // have counted them after it too, so this answer may not raise the estimate, except to what
      // it shows even with all of those subtracted (a refill).
      const pending = out?.size ?? 0;
      const overtaken = settledBefore - settledAtSend;
      const seen = rateLimited ? 0 : (headers.remaining ?? 0);
      let estimate = seen - pending;
      if (known && overtaken > 0) estimate = Math.max(Math.min(known.remaining, estimate), seen - pending - overtaken);
      const remaining = Math.max(0, estimate);
      const interval = tokenIntervalMs(limit);
      let refillMs: number;
      if (estimate > 0) {
        // Used once the estimate is spent locally. Reset 0 with requests left says nothing about
        // the next one: assume one token interval.
        refillMs = resetSeconds > 0 ? resetSeconds * 1000 : interval;
      } else if (seen === 0) {
        // The next token comes after Reset; requests still out may take it and the following ones.
        refillMs = resetSeconds * 1000 + pending * interval;
      } else {
        refillMs = (1 - estimate) * interval;
      }
      this.buckets.set(bucket, { limit, remaining, resetSeconds, observedAt: now, refillAt: now + refillMs });
    } finally {
      if (answersProbe) probe.resolve();
    }
  }

  /** A ticket whose request was never sent (its token could not be had): the budget gets it back. */
  giveBack(bucket: string, ticket: number): void {
    this.inFlight.get(bucket)?.delete(ticket);
    const probe = this.probes.get(bucket);
    if (probe !== undefined && probe.ticket === ticket) {
      this.probes.delete(bucket);
      probe.resolve();
      return;
    }
    const state = this.buckets.get(bucket);
    if (state) state.remaining++;
  }

  private issue(bucket: string): number {
    const ticket = ++this.tickets;
    const out = this.inFlight.get(bucket) ?? new Map<number, number>();
    out.set(ticket, this.settled.get(bucket) ?? 0);
    this.inFlight.set(bucket, out);
    return ticket;
  }

  remainingOf(bucket: string): number | undefined {
    const state = this.buckets.get(bucket);
    return state === undefined ? undefined : Math.max(0, state.remaining);
  }

  /** Remaining as known, per bucket, sorted by bucket name. */
  snapshot(): BucketBudget[] {
    return [...this.buckets.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([bucket, s]) => ({
        bucket,
        limit: s.limit,
        remaining: Math.max(0, s.remaining),
        resetSeconds: s.resetSeconds,
        observedAt: s.observedAt,
      }));
  }
}

function tokenIntervalMs(limitPerHour: number): number {
  return limitPerHour > 0 ? Math.ceil(3_600_000 / limitPerHour) : 1000;
}
