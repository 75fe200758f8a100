import { describe, expect, it } from 'vitest';
import { RateLimitBudget } from '../../src/api/budget.js';
import { fakeClock } from './helpers.js';

const LIST = 'GET AlertChannels';
const SEARCH = 'POST AlertChannels/search';

function budgetWith() {
  const clock = fakeClock();
  const waits: Array<[string, number]> = [];
  const budget = new RateLimitBudget({ now: clock.now, sleep: clock.sleep, maxWaitSeconds: 7200, onWait: (b, s) => waits.push([b, s]) });
  return { clock, waits, budget };
}

describe('RateLimitBudget.takeAny', () => {
  it('probes each unknown bucket once, then waits for a first answer rather than guessing', async () => {
    const { budget } = budgetWith();
    const first = await budget.takeAny([LIST, SEARCH]);
    const second = await budget.takeAny([LIST, SEARCH]);
    expect([first.bucket, second.bucket]).toEqual([LIST, SEARCH]);
    let third: { bucket: string } | undefined;
    const pending = budget.takeAny([LIST, SEARCH]).then((t) => (third = t));
    await new Promise((r) => setImmediate(r));
    expect(third).toBeUndefined();
    budget.settle(SEARCH, second.ticket, { limit: 120, remaining: 119, reset: 0 });
    await pending;
    expect(third?.bucket).toBe(SEARCH);
  });

  it('takes from the bucket with the most budget left, so a run spreads over both', async () => {
    const { budget } = budgetWith();
    budget.settle(LIST, (await budget.take(LIST)), { limit: 120, remaining: 3, reset: 0 });
    budget.settle(SEARCH, (await budget.take(SEARCH)), { limit: 120, remaining: 5, reset: 0 });
    const chosen: string[] = [];
    for (let i = 0; i < 8; i++) chosen.push((await budget.takeAny([LIST, SEARCH])).bucket);
    // 5 > 3: two from the search first, then alternately (ties go to the first named).
    expect(chosen).toEqual([SEARCH, SEARCH, LIST, SEARCH, LIST, SEARCH, LIST, SEARCH]);
    expect(budget.remainingOf(LIST)).toBe(0);
    expect(budget.remainingOf(SEARCH)).toBe(0);
  });

  it('concurrent takers never choose the same last token', async () => {
    const { budget, waits } = budgetWith();
    budget.settle(LIST, (await budget.take(LIST)), { limit: 120, remaining: 2, reset: 0 });
    budget.settle(SEARCH, (await budget.take(SEARCH)), { limit: 120, remaining: 2, reset: 0 });
    const taken = await Promise.all([0, 1, 2, 3].map(() => budget.takeAny([LIST, SEARCH])));
    expect(taken.map((t) => t.bucket).sort()).toEqual([LIST, LIST, SEARCH, SEARCH]);
    expect(waits).toEqual([]);
  });

  it('with both empty, waits for the one that refills first', async () => {
    const { budget, clock } = budgetWith();
    budget.settle(LIST, (await budget.take(LIST)), { limit: 120, remaining: 0, reset: 300 });
    budget.settle(SEARCH, (await budget.take(SEARCH)), { limit: 120, remaining: 0, reset: 60 });
    const start = clock.now();
    const taken = await budget.takeAny([LIST, SEARCH]);
    expect(taken.bucket).toBe(SEARCH);
    expect(clock.now() - start).toBe(60_000);
  });
});

describe('RateLimitBudget.takeAny, more', () => {
  it('takes a bucket that has refilled by now rather than waiting for the other one\'s first answer', async () => {
    const { budget, clock } = budgetWith();
    budget.settle(LIST, await budget.take(LIST), { limit: 120, remaining: 0, reset: 30 });
    clock.t += 31_000;
    // The search is being probed (its first answer is out): the list has a token again, take it.
    await budget.take(SEARCH);
    const taken = await budget.takeAny([LIST, SEARCH]);
    expect(taken.bucket).toBe(LIST);
  });

  it('the stop signal ends a wait for a first answer: nothing is taken', async () => {
    const clock = fakeClock();
    const stop = new AbortController();
    const budget = new RateLimitBudget({ now: clock.now, sleep: clock.sleep, maxWaitSeconds: 900, stop: stop.signal });
    await budget.take(LIST);
    await budget.take(SEARCH);
    const waiting = budget.takeAny([LIST, SEARCH]);
    stop.abort();
    await expect(waiting).rejects.toThrow(/ended by the stop signal/);
  });
});
