import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { FaultInjector, mulberry32 } from '../../src/emulator/faults.js';
import { slack } from './helpers.js';

let emu: RunningEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

type Outcome = number | 'dropped';

async function send(url: string, init: RequestInit): Promise<{ outcome: Outcome; body?: any }> {
  try {
    const res = await fetch(url, init);
    const text = await res.text();
    return { outcome: res.status, body: text ? JSON.parse(text) : undefined };
  } catch {
    return { outcome: 'dropped' };
  }
}

/** Token exchange through faults, as a client with retries would do it. */
async function tokenOf(e: RunningEmulator): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const r = await send(`${e.url}/api/v2/access/tokens`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-SVC-UAKS': e.secret },
      body: JSON.stringify({ keyId: e.keyId }),
    });
    if (r.outcome === 201) return r.body.token;
  }
  throw new Error('no token after 50 attempts');
}

describe('fault injection', () => {
  it('is deterministic for a seed and touches only the given share', () => {
    const seq = (seed: number) => {
      const f = new FaultInjector(0.3, seed);
      return Array.from({ length: 200 }, (_, i) => f.next(i % 2 === 0) ?? 'none');
    };
    expect(seq(7)).toEqual(seq(7));
    expect(seq(7)).not.toEqual(seq(8));
    const faults = seq(7).filter((x) => x !== 'none');
    expect(faults.length).toBeGreaterThan(30);
    expect(faults.length).toBeLessThan(90);
    expect(new Set(faults)).toEqual(new Set(['rate-limit', 'server-error', 'unavailable', 'drop', 'commit-then-500']));
    // Reads never get the committed-then-500 fault.
    expect(seq(7).filter((x, i) => i % 2 === 1 && x === 'commit-then-500')).toEqual([]);
    expect(new FaultInjector(0, 1).next(true)).toBeUndefined();
  });

  it('draws a seeded, repeatable, roughly uniform sequence in [0, 1)', () => {
    const draws = (seed: number, n: number) => {
      const r = mulberry32(seed);
      return Array.from({ length: n }, () => r());
    };
    expect(draws(1, 50)).toEqual(draws(1, 50));
    expect(draws(1, 50)).not.toEqual(draws(2, 50));
    const xs = draws(1, 20_000);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(new Set(xs).size).toBeGreaterThan(19_900);
    // Each tenth of [0, 1) gets close to a tenth of the draws.
    const deciles = Array.from({ length: 10 }, (_, d) => xs.filter((x) => Math.floor(x * 10) === d).length / xs.length);
    for (const share of deciles) {
      expect(share).toBeGreaterThan(0.09);
      expect(share).toBeLessThan(0.11);
    }
  });

  it.each([0.05, 0.2, 0.5])('faults close to the configured share %s of requests', (share) => {
    const f = new FaultInjector(share, 42);
    const n = 20_000;
    let faulted = 0;
    for (let i = 0; i < n; i++) if (f.next(i % 3 === 0) !== undefined) faulted++;
    expect(Math.abs(faulted / n - share)).toBeLessThan(0.015);
  });

  it('fails requests with 429/500/503 or a dropped connection; a committed-then-500 write shows in the next list', async () => {
    emu = await startEmulator({ faults: 0.4, faultSeed: 3, rateLimit: 10_000 });
    const token = await tokenOf(emu);
    const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` };
    const outcomes = new Map<string, Outcome>();
    const statuses = new Set<Outcome>();
    for (let i = 0; i < 40; i++) {
      const name = `w${i}`;
      const r = await send(`${emu.url}/api/v2/AlertChannels`, { method: 'POST', headers, body: JSON.stringify(slack(name)) });
      outcomes.set(name, r.outcome);
      statuses.add(r.outcome);
      if (r.outcome === 429) expect(r.body).toEqual({ message: 'Rate limit exceeded' });
    }
    expect(statuses).toEqual(new Set([201, 429, 500, 503, 'dropped']));

    let listed: string[] | undefined;
    for (let i = 0; i < 50 && listed === undefined; i++) {
      const r = await send(`${emu.url}/api/v2/AlertChannels`, { headers });
      if (r.outcome === 200) listed = r.body.data.map((c: any) => c.name);
    }
    expect(listed).toBeDefined();
    const names = new Set(listed);
    for (const [name, outcome] of outcomes) {
      if (outcome === 201) expect(names.has(name), name).toBe(true);
      if (outcome === 429 || outcome === 503 || outcome === 'dropped') expect(names.has(name), name).toBe(false);
    }
    const committedThen500 = [...outcomes].filter(([name, o]) => o === 500 && names.has(name));
    expect(committedThen500.length).toBeGreaterThan(0);
  });

  it('repeats the same outcomes for the same seed', async () => {
    const run = async () => {
      const e = await startEmulator({ faults: 0.5, faultSeed: 11, keyId: 'K', secret: 'S' });
      const out: Outcome[] = [];
      for (let i = 0; i < 30; i++) {
        out.push((await send(`${e.url}/api/v2/schemas`, { headers: { Authorization: 'Bearer none' } })).outcome);
      }
      await e.close();
      return out;
    };
    const first = await run();
    expect(first).toContain('dropped');
    expect(first).toContain(401);
    expect(await run()).toEqual(first);
  });

  it('faults the token exchange too, which stays usable with retries', async () => {
    emu = await startEmulator({ faults: 0.5, faultSeed: 5 });
    const token = await tokenOf(emu);
    expect(token.length).toBeGreaterThan(10);
  });
});
