// The one bounded-concurrency helper: a counting semaphore, first come first served. The client
// bounds its requests in flight with it, the fetch its accounts, apply its changes.

export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new Error(`concurrency must be a positive integer, got ${max}`);
  }

  /** Resolves with a release function once a slot is free. Call it exactly once. */
  async acquire(): Promise<() => void> {
    if (this.active >= this.max) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.active++;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so `active` stays as it is.
      if (next) next();
      else this.active--;
    };
  }

  /** Runs `fn` in a slot. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await fn();
    } finally {
      release();
    }
  }
}

/** Runs `fn` over `items` with at most `limit` in flight; results in input order. */
export function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const slots = new Semaphore(limit);
  return Promise.all(items.map((item) => slots.run(() => fn(item))));
}
