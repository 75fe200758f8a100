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
    const r = mulberry32(1);
    expect(r()).toBeGreaterThanOrEqual(0);
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
