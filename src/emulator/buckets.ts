// Rate limits: one token bucket per functionality (bucketOf) of the single API key, refilling
// continuously at capacity per hour, read from the injected clock.

import type { Clock } from './clock.js';

export interface RateState {
  /** RateLimit-Limit: requests per hour. */
  limit: number;
  /** RateLimit-Remaining. */
  remaining: number;
  /** RateLimit-Reset: seconds until one more request is possible; 0 while tokens remain. */
  resetSeconds: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

const HOUR_MS = 3_600_000;

export class Buckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly capacity: number;
  private readonly clock: Clock;

  constructor(capacity: number, clock: Clock) {
    this.capacity = capacity;
    this.clock = clock;
  }

  private refilled(name: string): Bucket {
    const now = this.clock.now();
    let b = this.buckets.get(name);
    if (b === undefined) {
      b = { tokens: this.capacity, updatedAt: now };
      this.buckets.set(name, b);
      return b;
    }
    const elapsed = Math.max(0, now - b.updatedAt);
    b.tokens = Math.min(this.capacity, b.tokens + (elapsed * this.capacity) / HOUR_MS);
    b.updatedAt = now;
    return b;
  }

  private stateOf(b: Bucket): RateState {
    const remaining = Math.floor(b.tokens);
    const resetSeconds = b.tokens >= 1 ? 0 : Math.ceil(((1 - b.tokens) * HOUR_MS) / this.capacity / 1000);
    return { limit: this.capacity, remaining, resetSeconds };
  }

  /** Takes one token when there is one. */
  take(name: string): { allowed: boolean; state: RateState } {
    const b = this.refilled(name);
    if (b.tokens < 1) return { allowed: false, state: this.stateOf(b) };
    b.tokens -= 1;
    return { allowed: true, state: this.stateOf(b) };
  }

  /** The state without taking a token (for answers given before a request counts). */
  peek(name: string): RateState {
    return this.stateOf(this.refilled(name));
  }
}
