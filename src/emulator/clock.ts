// Time as the emulator sees it. Token expiry and rate-limit buckets read this clock, so tests can
// move time forward instead of waiting for it.

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}

export interface ManualClock extends Clock {
  /** Moves time forward (or back, with a negative value). */
  advance(ms: number): void;
  /** Jumps to an absolute time. */
  set(ms: number): void;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to. */
export function manualClock(startMs: number = Date.UTC(2024, 0, 1)): ManualClock {
  let current = startMs;
  return {
    now: () => current,
    advance(ms: number) {
      current += ms;
    },
    set(ms: number) {
      current = ms;
    },
  };
}

/** Time that runs `factor` times faster than real time, starting at the real time of creation. */
export function scaledClock(factor: number, startMs: number = Date.now()): Clock {
  if (!(factor > 0) || !Number.isFinite(factor)) throw new Error(`scaledClock: factor must be a positive number, got ${factor}`);
  const realStart = Date.now();
  return { now: () => startMs + Math.floor((Date.now() - realStart) * factor) };
}
