// Rate-limit budget per bucket, learnt from the RateLimit-* headers. Waiting for a bucket to refill
// before sending is what lets a large apply finish without a single 429.
import type { BucketBudget } from './types.js';

export interface RateLimitHeaders {
  limit?: number;
  remaining?: number;
  reset?: number;
}

type HeaderValue = string | string[] | undefined;

/** Reads `RateLimit-Limit`, `-Remaining`, `-Reset`; a draft-style value like `120, 120;w=3600` gives 120. */
export function readRateLimit(headers: Record<string, HeaderValue>): RateLimitHeaders {
  return {
    limit: leadingInt(headers['ratelimit-limit']),
    remaining: leadingInt(headers['ratelimit-remaining']),
    reset: leadingInt(headers['ratelimit-reset']),
  };
}

function leadingInt(value: HeaderValue): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined) return undefined;
  const m = /^\s*(\d+)/.exec(text);
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
  /** Ticket of the request whose headers were applied last; older answers are stale. */
  appliedTicket: number;
}

export interface BudgetOptions {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  maxWaitSeconds: number;
  onWait?: (bucket: string, secondsLeft: number) => void;
}

export class RateLimitBudget {
  private readonly buckets = new Map<string, BucketState>();
  /** Tickets of requests sent and not yet answered, per bucket. */
  private readonly inFlight = new Map<string, Set<number>>();
  private tickets = 0;

  constructor(private readonly opts: BudgetOptions) {}

  /**
   * Waits until `bucket` may take one more request, takes it and returns a ticket for `settle`.
   * Unknown buckets (no headers seen yet) never wait.
   */
  async take(bucket: string): Promise<number> {
    const start = this.opts.now();
    let slept = 0;
    for (;;) {
      // A sleep that does not move the injected clock must still let time pass here.
      const t = Math.max(this.opts.now(), start + slept);
      const state = this.buckets.get(bucket);
      if (state === undefined || state.remaining > 0) {
        if (state) state.remaining--;
        break;
      }
      if (t >= state.refillAt) {
        // Refilled by at least one request. Take it; until the next answer tells the truth, assume
        // the following one comes a token interval later (the bucket refills `limit` per hour).
        state.refillAt = t + tokenIntervalMs(state.limit);
        break;
      }
      const leftMs = state.refillAt - t;
      if (slept + leftMs > this.opts.maxWaitSeconds * 1000) {
        throw new BudgetExhausted(bucket, Math.ceil(leftMs / 1000), state.refillAt);
      }
      this.opts.onWait?.(bucket, Math.ceil(leftMs / 1000));
      const step = Math.min(1000, leftMs);
      await this.opts.sleep(step);
      slept += step;
    }
    const ticket = ++this.tickets;
    const out = this.inFlight.get(bucket) ?? new Set<number>();
    out.add(ticket);
    this.inFlight.set(bucket, out);
    return ticket;
  }

  /**
   * Records the answer to a request taken with `ticket`. `headers` is undefined when no answer came
   * (network fault): the request keeps counting as spent. `rateLimited` marks a 429, which empties
   * the bucket whatever the headers say.
   */
  settle(bucket: string, ticket: number, headers: RateLimitHeaders | undefined, rateLimited = false): void {
    const out = this.inFlight.get(bucket);
    out?.delete(ticket);
    if (headers === undefined) return;
    // Requests sent after this one and still unanswered are not in the service's count yet.
    let pending = 0;
    for (const t of out ?? []) if (t > ticket) pending++;
    const now = this.opts.now();
    const known = this.buckets.get(bucket);
    if (headers.remaining === undefined && !rateLimited) return;
    if (known && ticket < known.appliedTicket) return;
    const resetSeconds = headers.reset ?? 0;
    const remaining = rateLimited ? 0 : Math.max(0, (headers.remaining ?? 0) - pending);
    this.buckets.set(bucket, {
      limit: headers.limit ?? known?.limit ?? headers.remaining ?? 0,
      remaining,
      resetSeconds,
      observedAt: now,
      refillAt: now + resetSeconds * 1000,
      appliedTicket: ticket,
    });
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
