import { describe, expect, it } from 'vitest';
import { BudgetExhausted, RateLimitBudget, readRateLimit } from '../../src/api/budget.js';
import { fakeClock } from './helpers.js';

function budgetWith(maxWaitSeconds = 900) {
  const clock = fakeClock();
  const waits: Array<[string, number]> = [];
  const budget = new RateLimitBudget({ now: clock.now, sleep: clock.sleep, maxWaitSeconds, onWait: (b, s) => waits.push([b, s]) });
  return { clock, waits, budget };
}

describe('readRateLimit', () => {
  it('reads the three headers, draft-style values and repeated headers', () => {
    expect(readRateLimit({ 'ratelimit-limit': '120', 'ratelimit-remaining': '7', 'ratelimit-reset': '30' })).toEqual({ limit: 120, remaining: 7, reset: 30 });
    expect(readRateLimit({ 'ratelimit-limit': '120, 120;w=3600', 'ratelimit-remaining': ['5', '9'] })).toEqual({ limit: 120, remaining: 5, reset: undefined });
    expect(readRateLimit({ 'ratelimit-remaining': 'soon' })).toEqual({ limit: undefined, remaining: undefined, reset: undefined });
  });

  it('reads a figure the seed\'s rules cannot produce as absent: a limit of 0, a Reset beyond the hour, digits beyond any count', () => {
    expect(readRateLimit({ 'ratelimit-limit': '0', 'ratelimit-remaining': '0', 'ratelimit-reset': '999999' })).toEqual({ limit: undefined, remaining: 0, reset: undefined });
    expect(readRateLimit({ 'ratelimit-reset': '3600' }).reset).toBe(3600);
    expect(readRateLimit({ 'ratelimit-reset': '3601' }).reset).toBeUndefined();
    expect(readRateLimit({ 'ratelimit-limit': '1' }).limit).toBe(1);
    // A remaining above the limit is the limit.
    expect(readRateLimit({ 'ratelimit-limit': '120', 'ratelimit-remaining': '500' }).remaining).toBe(120);
    expect(readRateLimit({ 'ratelimit-limit': '120', 'ratelimit-remaining': '120' }).remaining).toBe(120);
    expect(readRateLimit({ 'ratelimit-limit': '9'.repeat(400) })).toEqual({ limit: undefined, remaining: undefined, reset: undefined });
  });
});

describe('a 429 without figures (a proxy\'s)', () => {
  it('is learnt from not at all: no bucket of limit 0, and a known bucket keeps what it knew', async () => {
    const { budget } = budgetWith();
    budget.settle('GET AlertChannels', await budget.take('GET AlertChannels'), readRateLimit({}), true);
    expect(budget.snapshot()).toEqual([]);
    // Not taken for a bucket without headers either: the next request asks again, alone.
    const probe = await budget.take('GET AlertChannels');
    let second = false;
    void budget.take('GET AlertChannels').then(() => (second = true));
    await Promise.resolve();
    expect(second).toBe(false);
    budget.settle('GET AlertChannels', probe, { limit: 120, remaining: 50, reset: 0 });
    const known = budget.snapshot();
    budget.settle('GET AlertChannels', await budget.take('GET AlertChannels'), readRateLimit({ 'ratelimit-reset': '999999' }), true);
    expect(budget.snapshot().map((b) => b.limit)).toEqual(known.map((b) => b.limit));
    // An answer whose only figures are a limit of 0 and none left teaches nothing either.
    budget.settle('GET Policies', await budget.take('GET Policies'), readRateLimit({ 'ratelimit-limit': '0', 'ratelimit-remaining': '0' }));
    expect(budget.snapshot().map((b) => b.bucket)).toEqual(['GET AlertChannels']);
    // A 429 with figures still empties the bucket.
    budget.settle('GET AlertChannels', await budget.take('GET AlertChannels'), readRateLimit({ 'ratelimit-limit': '120', 'ratelimit-reset': '30' }), true);
    expect(budget.remainingOf('GET AlertChannels')).toBe(0);
  });
});

describe('RateLimitBudget', () => {
  it('knows nothing until headers arrive, then subtracts requests sent since', async () => {
    const { budget } = budgetWith();
    const t1 = await budget.take('GET AlertChannels');
    expect(budget.snapshot()).toEqual([]);
    budget.settle('GET AlertChannels', t1, { limit: 120, remaining: 10, reset: 30 });
    await budget.take('GET AlertChannels');
    await budget.take('GET AlertChannels');
    expect(budget.snapshot()).toEqual([{ bucket: 'GET AlertChannels', limit: 120, remaining: 8, resetSeconds: 30, observedAt: Date.parse('2026-03-01T12:00:00.000Z') }]);
  });

  it('subtracts requests still out; an overtaken answer cannot raise the estimate above the truth', async () => {
    const { budget } = budgetWith();
    const B = 'GET AlertRules';
    budget.settle(B, await budget.take(B), { limit: 120, remaining: 10 });
    const a = await budget.take(B);
    const b = await budget.take(B);
    budget.settle(B, a, { limit: 120, remaining: 9 });
    expect(budget.remainingOf(B)).toBe(8); // b is still out
    budget.settle(B, b, { limit: 120, remaining: 8 });
    expect(budget.remainingOf(B)).toBe(8);
    // The service takes d before c, and d's answer comes first: 6 left after both.
    const c = await budget.take(B);
    const d = await budget.take(B);
    budget.settle(B, d, { limit: 120, remaining: 7 });
    expect(budget.remainingOf(B)).toBe(6);
    budget.settle(B, c, { limit: 120, remaining: 6 });
    expect(budget.remainingOf(B)).toBe(6);
    // The service takes e before f, and f's answer comes first: e's answer is older news.
    const e = await budget.take(B);
    const f = await budget.take(B);
    budget.settle(B, f, { limit: 120, remaining: 4 });
    expect(budget.remainingOf(B)).toBe(3); // e may still be counted
    budget.settle(B, e, { limit: 120, remaining: 5 });
    expect(budget.remainingOf(B)).toBe(4);
    // A refill shows even while requests are out.
    const g = await budget.take(B);
    const h = await budget.take(B);
    budget.settle(B, h, { limit: 120, remaining: 100 });
    expect(budget.remainingOf(B)).toBe(99);
    budget.settle(B, g, { limit: 120, remaining: 101 }); // taken before h: 100 left, as h said
    expect(budget.remainingOf(B)).toBe(100);
  });

  it('an empty bucket with requests still out refills for us only after they had theirs', async () => {
    const { budget, waits } = budgetWith();
    const B = 'POST AlertRules';
    budget.settle(B, await budget.take(B), { limit: 120, remaining: 2 });
    const a = await budget.take(B);
    await budget.take(B); // b, still out
    budget.settle(B, a, { limit: 120, remaining: 0, reset: 10 }); // the service already had less than we thought
    await budget.take(B);
    // 10 s to the next token, which b may take, then one interval (30 s) for ours.
    expect(waits[0]).toEqual([B, 40]);
  });

  it('holds the requests of an unknown bucket until the first one is answered', async () => {
    const { budget } = budgetWith();
    const first = await budget.take('GET AlertRules');
    let second = false;
    const pending = budget.take('GET AlertRules').then(() => (second = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(second).toBe(false);
    budget.settle('GET AlertRules', first, { limit: 120, remaining: 50 });
    await pending;
    expect(budget.remainingOf('GET AlertRules')).toBe(49);
  });

  it('a first request without an answer hands the probing to the next one', async () => {
    const { budget } = budgetWith();
    const first = await budget.take('GET AlertRules');
    const second = budget.take('GET AlertRules');
    budget.settle('GET AlertRules', first, undefined);
    const t2 = await second;
    let third = false;
    const p3 = budget.take('GET AlertRules').then(() => (third = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(third).toBe(false);
    budget.settle('GET AlertRules', t2, { limit: 120, remaining: 3 });
    await p3;
    expect(budget.remainingOf('GET AlertRules')).toBe(2);
  });

  it('does not hold back a bucket whose answers carry no RateLimit headers', async () => {
    const { budget } = budgetWith();
    budget.settle('GET AlertRules', await budget.take('GET AlertRules'), readRateLimit({}));
    const tickets = await Promise.all([budget.take('GET AlertRules'), budget.take('GET AlertRules'), budget.take('GET AlertRules')]);
    expect(tickets).toHaveLength(3);
    expect(budget.snapshot()).toEqual([]);
  });

  it('waits for an empty bucket to refill, counting down once a second', async () => {
    const { budget, clock, waits } = budgetWith();
    const t = await budget.take('POST AlertRules');
    budget.settle('POST AlertRules', t, { limit: 120, remaining: 0, reset: 3 });
    await budget.take('POST AlertRules');
    expect(clock.sleeps).toEqual([1000, 1000, 1000]);
    expect(waits).toEqual([
      ['POST AlertRules', 3],
      ['POST AlertRules', 2],
      ['POST AlertRules', 1],
      ['POST AlertRules', 0],
    ]);
  });

  it('after a refill, the next request waits one token interval unless an answer says more', async () => {
    const { budget } = budgetWith(10);
    const t = await budget.take('GET AlertRules');
    budget.settle('GET AlertRules', t, { limit: 120, remaining: 0, reset: 0 });
    await budget.take('GET AlertRules'); // the refilled one
    const err = await budget.take('GET AlertRules').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BudgetExhausted);
    expect((err as BudgetExhausted).secondsLeft).toBe(30); // 3600 s / 120
  });

  it('gives up at once when the refill is further away than maxWaitSeconds', async () => {
    const { budget, clock, waits } = budgetWith(60);
    const t = await budget.take('GET CloudAccounts');
    budget.settle('GET CloudAccounts', t, { limit: 120, remaining: 0, reset: 61 });
    const err = await budget.take('GET CloudAccounts').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BudgetExhausted);
    expect((err as Error).message).toBe('rate-limit budget of GET CloudAccounts exhausted; it refills in 61 s (at 2026-03-01T12:01:01.000Z)');
    expect(clock.sleeps).toEqual([]);
    expect(waits).toEqual([]);
  });

  it('used up locally after an answer with requests left and Reset 0: the next waits one token interval', async () => {
    const { budget, clock, waits } = budgetWith();
    const t = await budget.take('GET AlertRules');
    budget.settle('GET AlertRules', t, { limit: 360, remaining: 1, reset: 0 });
    await budget.take('GET AlertRules'); // the last one left, still in flight
    await budget.take('GET AlertRules');
    expect(waits.map(([, s]) => s)).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]); // 3600 s / 360
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(10_000);
  });

  it('a 429 empties the bucket whatever Remaining says', async () => {
    const { budget } = budgetWith();
    const t = await budget.take('GET AlertRules');
    budget.settle('GET AlertRules', t, { limit: 120, remaining: 50, reset: 2 }, true);
    expect(budget.remainingOf('GET AlertRules')).toBe(0);
  });

  it('ends a wait even when the injected sleep does not move the clock', async () => {
    const waits: number[] = [];
    const budget = new RateLimitBudget({ now: () => 1_000_000, sleep: async () => undefined, maxWaitSeconds: 900, onWait: (_b, s) => waits.push(s) });
    const t = await budget.take('GET AlertRules');
    budget.settle('GET AlertRules', t, { limit: 120, remaining: 0, reset: 2 });
    await budget.take('GET AlertRules');
    expect(waits).toEqual([2, 1, 0]);
  });

  it('lists buckets sorted by name', async () => {
    const { budget } = budgetWith();
    for (const bucket of ['POST AlertRules', 'GET CloudAccounts', 'DELETE AlertChannels', 'GET AlertChannels']) {
      budget.settle(bucket, await budget.take(bucket), { limit: 120, remaining: 100 });
    }
    expect(budget.snapshot().map((b) => b.bucket)).toEqual(['DELETE AlertChannels', 'GET AlertChannels', 'GET CloudAccounts', 'POST AlertRules']);
  });
});
