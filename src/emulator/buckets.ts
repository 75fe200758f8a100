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

/** Credit in integer units (one token = HOUR_MS units) so that refills add up exactly. */
interface Bucket {
  units: number;
  updatedAt: number;
}

const HOUR_MS = 3_600_000;

/**
 * The functionality of a routed request: the method plus the literal segments of the route pattern
 * that matched (`AgentAccessTokens/:id` → `GET AgentAccessTokens`). Identifiers are known from the
 * pattern, not guessed from the path, so reading one record and listing share a bucket, as the seed
 * says ("the path id is disregarded"), while writes have their own.
 */
export function bucketOf(method: string, pattern: string): string {
  const literal = pattern.split('/').filter((s) => s !== '' && !s.startsWith(':'));
  return `${method.toUpperCase()} ${literal.join('/')}`;
}

/** A path no route knows gets a bucket of its own: it neither drains nor hides behind a real functionality. */
export function unroutedBucketOf(method: string, pathname: string): string {
  return `${method.toUpperCase()} unrouted:${pathname}`;
}

export class Buckets {
  private readonly buckets = new Map<string, Bucket>();
  private capacity: number;
  private readonly clock: Clock;

  constructor(capacity: number, clock: Clock) {
    this.capacity = capacity;
    this.clock = clock;
  }

  /** A new size for every bucket from now on; what a bucket holds beyond it is cut at its next use. */
  setCapacity(capacity: number): void {
    this.capacity = capacity;
  }

  private refilled(name: string): Bucket {
    const now = this.clock.now();
    let b = this.buckets.get(name);
    if (b === undefined) {
      b = { units: this.capacity * HOUR_MS, updatedAt: now };
      this.buckets.set(name, b);
      return b;
    }
    // Each elapsed millisecond adds `capacity` units: capacity tokens per hour.
    const elapsed = Math.max(0, Math.round(now - b.updatedAt));
    b.units = Math.min(this.capacity * HOUR_MS, b.units + elapsed * this.capacity);
    b.updatedAt = now;
    return b;
  }

  private stateOf(b: Bucket): RateState {
    const remaining = Math.floor(b.units / HOUR_MS);
    const waitMs = b.units >= HOUR_MS ? 0 : Math.ceil((HOUR_MS - b.units) / this.capacity);
    return { limit: this.capacity, remaining, resetSeconds: Math.ceil(waitMs / 1000) };
  }

  /** Takes one token when there is one. */
  take(name: string): { allowed: boolean; state: RateState } {
    const b = this.refilled(name);
    if (b.units < HOUR_MS) return { allowed: false, state: this.stateOf(b) };
    b.units -= HOUR_MS;
    return { allowed: true, state: this.stateOf(b) };
  }

  /** The state without taking a token (for answers given before a request counts). */
  peek(name: string): RateState {
    return this.stateOf(this.refilled(name));
  }
}
