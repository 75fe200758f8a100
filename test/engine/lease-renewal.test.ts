// The apply lease once taken: the fence each write is judged by, its renewals (one at a time, paced
// and reserved in their buckets), what a renewal that fails or comes late leaves in force, what the
// heartbeat does, and how release ends it. All on a virtual clock against lease-service.ts; the
// companion of lease.test.ts for the mutants the 'lease' group's run left (docs/mutation.md).

import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/api/types.js';
import { LEASE_LIFETIME_MS, type LeaseClock, LeaseHeldError, leaseMarginMs, Leases, LeaseWaitStopped, RENEW_LEAD_MS } from '../../src/ops/lease/lease.js';
import type { LeaseData } from '../../src/ops/lease/lease-record.js';
import { LeaseService } from './lease-service.js';

const START = Date.UTC(2026, 10, 26, 5, 0, 0);
const prod = { name: 'prod', orgAccess: false };
const SPAN = LEASE_LIFETIME_MS - leaseMarginMs(30_000);
const released = (): LeaseData => ({ owner: 'old', holder: 'old run', stamp: START - 60_000, state: 'released' });

interface World {
  service: LeaseService;
  clock: LeaseClock & { advance(ms: number): void; pause(ms: number): void };
  reserved: Map<string, number>;
  beat: () => Promise<void>;
  stopped: number;
}

function world(): World {
  let t = START + 500;
  let paused = 0;
  const service = new LeaseService(START);
  service.clock = () => Math.floor(t / 1000) * 1000;
  service.limit = 1000;
  const reserved = new Map<string, number>();
  service.client.reserve = (bucket, n) => reserved.set(bucket, n);
  const w: World = {
    service,
    reserved,
    stopped: 0,
    beat: async () => undefined,
    clock: {
      mono: () => t - paused,
      wall: () => t,
      sleep: async (ms) => {
        t += ms;
      },
      advance: (ms) => {
        t += ms;
      },
      pause: (ms) => {
        t += ms;
        paused += ms;
      },
    },
  };
  return w;
}

async function taken(w: World, extra: object = {}): Promise<Leases> {
  w.service.put('prod', 1, released());
  return Leases.acquire(w.service.client, prod, [prod], {
    holder: 'run A',
    owner: 'owner-a',
    clock: w.clock,
    heartbeat: (beat) => {
      w.beat = beat;
      return () => void w.stopped++;
    },
    ...extra,
  });
}

const fail = (status: number | undefined, kind: ApiError['kind'] = 'permanent') => (req: { method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT'; path: string }) => {
  throw new ApiError({ kind, ...(status !== undefined ? { status } : {}), method: req.method, path: req.path });
};

describe('the fence', () => {
  it('lets a write leave while open, and says how long ago it closed', async () => {
    const w = await world();
    const leases = await taken(w);
    expect(() => leases.checkFence()).not.toThrow();
    await leases.request(prod, { method: 'POST', path: '/api/v2/AlertProfiles', body: { alertProfileId: 'X', alerts: [] } });
    w.clock.advance(SPAN + 5_400);
    expect(() => leases.checkFence()).toThrow("the apply lease (in account prod) is no longer this run's (its fence closed 5s ago without a renewal): stopped before the next write");
    expect(leases.fenceLeftMs()).toBe(0);
  });

  it('a drift of the wall clock up to the tolerance is no pause; beyond it is', async () => {
    const w = world();
    const leases = await taken(w);
    w.clock.pause(1_000);
    expect(() => leases.checkFence()).not.toThrow();
    w.clock.pause(1_001);
    expect(() => leases.checkFence()).toThrow('the process was paused');
  });
});

describe('renewals', () => {
  it('reserve the next renewal and the release in their buckets, and free them once released', async () => {
    const w = world();
    const leases = await taken(w);
    expect(Object.fromEntries(w.reserved)).toEqual({ 'GET AlertProfiles': 1, 'PATCH AlertProfiles': 2 });
    await leases.release();
    expect(Object.fromEntries(w.reserved)).toEqual({ 'GET AlertProfiles': 0, 'PATCH AlertProfiles': 0 });
  });

  it('one at a time: two calls share one look and one PATCH, both spending reserved budget, stamped with the look\u2019s Date', async () => {
    const w = world();
    const leases = await taken(w);
    const before = w.service.sent.length;
    w.clock.advance(30_000);
    await Promise.all([leases.renew(), leases.renew()]);
    const sent = w.service.sent.slice(before);
    expect(sent.map((r) => [r.method, r.reserved])).toEqual([
      ['GET', true],
      ['PATCH', true],
    ]);
    expect(w.service.records('prod')[0].data?.stamp).toBe(START + 30_000);
    expect(leases.fenceLeftMs()).toBe(SPAN);
  });

  it('the heartbeat renews only when the fence has the lead left, and notes a renewal that threw', async () => {
    const w = world();
    const leases = await taken(w);
    const before = w.service.sent.length;
    w.clock.advance(SPAN - RENEW_LEAD_MS - 1_000);
    await w.beat();
    expect(w.service.sent.length).toBe(before);
    w.clock.advance(1_000);
    await w.beat();
    expect(w.service.sent.length).toBe(before + 2);
    w.clock.advance(SPAN - RENEW_LEAD_MS);
    w.service.before = (req) => {
      if (req.method === 'GET') throw new Error('boom');
    };
    await w.beat();
    expect(leases.report().notes).toEqual(['a renewal of the lease failed: boom']);
  });

  it('after release nothing renews, and the heartbeat was stopped', async () => {
    const w = world();
    const leases = await taken(w);
    await leases.release();
    expect(w.stopped).toBe(1);
    const before = w.service.sent.length;
    w.clock.advance(SPAN);
    await leases.renew();
    await w.beat();
    expect(w.service.sent.length).toBe(before);
  });

  it('a renewal whose record is gone loses the lease; one refused by the service keeps the old fence and says so', async () => {
    const w = world();
    const leases = await taken(w);
    w.service.before = (req) => (req.method === 'PATCH' ? fail(404)(req) : undefined);
    await leases.renew();
    expect(() => leases.checkFence()).toThrow('its lease record was deleted');

    const v = world();
    const kept = await taken(v);
    v.clock.advance(10_000);
    v.service.before = (req) => (req.method === 'PATCH' ? fail(400)(req) : undefined);
    await kept.renew();
    expect(kept.fenceLeftMs()).toBe(SPAN - 10_000);
    expect(kept.report().notes).toHaveLength(1);
    expect(kept.report().notes[0]).toMatch(/^a renewal of the lease failed \(.+\): the next one tries again$/);
    // A permanent refusal wrote nothing: the next look finds the record as it was, still ours.
    v.service.before = undefined;
    await kept.renew();
    expect(kept.fenceLeftMs()).toBe(SPAN);
  });

  it('a renewal of unknown outcome: the record may hold either stamp, and a look showing the new one is still ours', async () => {
    const w = world();
    const leases = await taken(w);
    w.clock.advance(10_000);
    w.service.after = (req) => (req.method === 'PATCH' ? fail(500, 'outcome-unknown')(req) : undefined);
    await leases.renew();
    expect(leases.fenceLeftMs()).toBe(SPAN - 10_000);
    w.service.after = undefined;
    w.clock.advance(10_000);
    await leases.renew();
    expect(() => leases.checkFence()).not.toThrow();
    expect(leases.fenceLeftMs()).toBe(SPAN);
  });

  it('a renewal answered after the old fence closed revives nothing', async () => {
    const w = world();
    const leases = await taken(w);
    w.clock.advance(SPAN - 1_000);
    w.service.before = (req) => {
      if (req.method === 'PATCH') w.clock.advance(2_000);
    };
    await leases.renew();
    expect(leases.fenceLeftMs()).toBe(0);
    expect(() => leases.checkFence()).toThrow('its renewal was answered after its fence had closed');
  });

  it('a look showing a newer generation, or its record freed or edited, loses the lease with that reason', async () => {
    const cases: [string, (w: World) => void][] = [
      ['another apply took it over (mallory)', (w) => w.service.put('prod', 3, { owner: 'm', holder: 'mallory', stamp: START, state: 'held' })],
      ['it was freed with postureops unlock', (w) => w.service.put('prod', 2, { owner: 'owner-a', holder: 'run A', stamp: START, state: 'freed' })],
      ['its lease record was changed by someone else', (w) => w.service.put('prod', 2, { owner: 'owner-a', holder: 'run B', stamp: START, state: 'held' })],
      ['its lease record was changed by someone else', (w) => w.service.put('prod', 2, { owner: 'owner-b', holder: 'run A', stamp: START, state: 'held' })],
      ['its lease record was changed by someone else', (w) => w.service.put('prod', 2, { owner: 'owner-a', holder: 'run A', stamp: START + 1000, state: 'held' })],
    ];
    for (const [why, edit] of cases) {
      const w = world();
      const leases = await taken(w);
      edit(w);
      await leases.renew();
      expect(() => leases.checkFence(), why).toThrow(`(${why})`);
    }
  });
});

describe('release', () => {
  it('marks the record released with a detached, reserved PATCH', async () => {
    const w = world();
    const leases = await taken(w);
    await leases.release();
    const patch = w.service.requests('PATCH')[0];
    expect(patch.reserved).toBe(true);
    expect(patch.detached).toEqual({ timeoutMs: 10_000 });
    expect(w.service.records('prod')[0].data?.state).toBe('released');
    expect(() => leases.checkFence()).toThrow('(it was released)');
    await leases.release();
    expect(w.service.requests('PATCH')).toHaveLength(1);
  });

  it('after its fence closed it sends nothing and says why; a lost lease says nothing more', async () => {
    const w = world();
    const leases = await taken(w);
    w.clock.advance(SPAN);
    await leases.release();
    expect(w.service.requests('PATCH')).toHaveLength(0);
    expect(leases.report().notes).toEqual(['the lease was not released: its fence had closed; it is free 120s after its last renewal, or run postureops unlock']);
    // Over all the same: no renewal is sent after it, and a write is refused as after any release.
    const sent = w.service.sent.length;
    await leases.renew();
    expect(w.service.sent.length).toBe(sent);
    expect(() => leases.checkFence()).toThrow('(it was released)');

    const v = world();
    const lost = await taken(v);
    v.service.put('prod', 3, { owner: 'm', holder: 'm', stamp: START, state: 'held' });
    await lost.renew();
    await lost.release();
    expect(v.service.requests('PATCH')).toHaveLength(0);
    expect(lost.report().notes).toEqual([]);
  });

  it('a PATCH that fails is a note, and the lease counts as released', async () => {
    const w = world();
    const leases = await taken(w);
    w.service.before = (req) => (req.method === 'PATCH' ? fail(503, 'transient')(req) : undefined);
    await leases.release();
    expect(leases.report().notes).toHaveLength(1);
    expect(leases.report().notes[0]).toMatch(/^the lease could not be released \(.+\): it is free 120s after its last renewal, or run postureops unlock$/);
    expect(() => leases.checkFence()).toThrow('(it was released)');
  });
});

describe('waiting for it', () => {
  it('a held lease waited for: polls within the wait, then says how long it waited', async () => {
    const w = world();
    w.service.put('prod', 1, { owner: 'o', holder: 'bob', stamp: START, state: 'held' });
    const err = await Leases.acquire(w.service.client, prod, [prod], { clock: w.clock, waitMs: 25_000, pollMs: 10_000, heartbeat: () => () => undefined }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LeaseHeldError);
    expect((err as LeaseHeldError).waitedSeconds).toBe(25);
    expect(w.service.requests('GET')).toHaveLength(4);
  });

  it('a stale held lease is taken over, with a note naming the holder; a wait ended by the signal says how long it was', async () => {
    const w = world();
    w.service.put('prod', 1, { owner: 'o', holder: 'bob', stamp: START - LEASE_LIFETIME_MS, state: 'held' });
    const leases = await Leases.acquire(w.service.client, prod, [prod], { clock: w.clock, heartbeat: () => () => undefined });
    expect(leases.report().notes).toEqual(['took over the lease from bob (not renewed for 120s)']);

    const v = world();
    v.service.put('prod', 1, { owner: 'o', holder: 'bob', stamp: START, state: 'held' });
    const stop = new AbortController();
    let waits = 0;
    const err = await Leases.acquire(v.service.client, prod, [prod], {
      clock: v.clock,
      waitMs: 60_000,
      signal: stop.signal,
      onWait: () => {
        if (++waits === 4) stop.abort();
      },
      heartbeat: () => () => undefined,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LeaseWaitStopped);
    expect((err as LeaseWaitStopped).waitedSeconds).toBe(4);
  });
});



// The mutants the 'lease' group's run on 2026-11-27 left (docs/mutation.md): each test asserts what
// the run sees or sends.
/** The lease clock's sleeps from now on. */
function sleepsOf(w: World): number[] {
  const sleeps: number[] = [];
  const sleep = w.clock.sleep;
  w.clock.sleep = async (ms) => {
    sleeps.push(ms);
    await sleep(ms);
  };
  return sleeps;
}

/** Ten seconds on, a renewal without faults finds the record still the run's: the fence moves to a full span. */
async function stillHeld(w: World, leases: Leases): Promise<void> {
  w.service.before = undefined;
  w.service.after = undefined;
  w.clock.advance(10_000);
  await leases.renew();
  expect(() => leases.checkFence()).not.toThrow();
  expect(leases.fenceLeftMs()).toBe(SPAN);
}

describe('release under way', () => {
  it('two releases at once (an interruption and the run closing) send one PATCH and leave one note', async () => {
    const w = world();
    const leases = await taken(w);
    await Promise.all([leases.release(), leases.release()]);
    await leases.release();
    expect(w.service.requests('PATCH')).toHaveLength(1);
    expect(w.stopped).toBe(1);
    expect(leases.report().notes).toEqual(['released the lease']);
  });

  it('waits for a write given up on only until the margin has passed since, in steps that end then', async () => {
    const w = world();
    const leases = await taken(w);
    const sleeps = sleepsOf(w);
    leases.gate.leaving();
    leases.gate.landed(false);
    // 500 ms short of the margin since it was given up on: one step of 500 ms, then the PATCH.
    w.clock.advance(leaseMarginMs(30_000) - 500);
    await leases.release();
    expect(sleeps).toEqual([500]);
    expect(leases.report().notes).toEqual(['released the lease']);
  });

  it('a write still in flight at the deadline: not released, says so, and counts as released', async () => {
    const w = world();
    const leases = await taken(w);
    const sleeps = sleepsOf(w);
    leases.gate.leaving();
    await leases.release();
    expect(w.service.requests('PATCH')).toHaveLength(0);
    expect(new Set(sleeps)).toEqual(new Set([1000]));
    expect(leases.report().notes).toEqual(['the lease was not released: writes were still in flight at the release\u2019s deadline; it is free 120s after its last renewal, or run postureops unlock'.replace('\u2019', "'")]);
    expect(() => leases.checkFence()).toThrow('(it was released)');
  });

  it('a write given up on late in the wait: the margin since would pass the deadline, so it says that write may still arrive', async () => {
    const w = world();
    const leases = await taken(w);
    leases.gate.leaving();
    const sleep = w.clock.sleep;
    let slept = 0;
    w.clock.sleep = async (ms) => {
      await sleep(ms);
      slept += ms;
      // Given up on (no answer) 20 s into the release's wait.
      if (slept === 20_000) leases.gate.landed(false);
    };
    await leases.release();
    expect(w.service.requests('PATCH')).toHaveLength(0);
    expect(leases.report().notes).toEqual(["the lease was not released: a write given up on may still reach the service at the release's deadline; it is free 120s after its last renewal, or run postureops unlock"]);
  });
});

describe('what a renewal makes of what it finds', () => {
  it('a renewal stopped by the fence itself (it closed while the look was out) is the loss, not a failed renewal', async () => {
    const w = world();
    const leases = await taken(w);
    w.clock.advance(SPAN - 1_000);
    w.service.before = (req) => {
      if (req.method === 'GET') w.clock.advance(2_000);
    };
    await leases.renew();
    expect(w.service.refused.map((r) => r.method)).toEqual(['PATCH']);
    expect(leases.report().notes).toEqual([]);
    expect(() => leases.checkFence()).toThrow('its fence closed 1s ago without a renewal');
  });

  it('a permanent refusal wrote nothing: a record showing its stamp anyway was written by someone else', async () => {
    const w = world();
    const leases = await taken(w);
    w.clock.advance(10_000);
    // The service applies the PATCH, then answers 400: what it says is what the lease believes.
    w.service.after = (req) => (req.method === 'PATCH' ? fail(400)(req) : undefined);
    await leases.renew();
    w.service.after = undefined;
    await leases.renew();
    expect(() => leases.checkFence()).toThrow('(its lease record was changed by someone else)');
  });

  it('its own record beside an older one it could not remove is still found by generation', async () => {
    const w = world();
    w.service.before = (req) => (req.method === 'DELETE' ? fail(503, 'transient')(req) : undefined);
    const leases = await taken(w);
    w.service.before = undefined;
    expect(w.service.records('prod').map((r) => r.generation)).toEqual([1, 2]);
    expect(leases.report().notes).toHaveLength(1);
    w.clock.advance(10_000);
    await leases.renew();
    expect(leases.fenceLeftMs()).toBe(SPAN);
  });

  it('a newer generation that cannot be read is another apply whose holder is unknown', async () => {
    const w = world();
    const leases = await taken(w);
    w.service.put('prod', 3, 'edited');
    await leases.renew();
    expect(() => leases.checkFence()).toThrow('(another apply took it over (unknown holder))');
  });

  it('an unknown renewal that landed becomes the record it holds: a second unknown one that did not land keeps the lease', async () => {
    const w = world();
    const leases = await taken(w);
    w.clock.advance(10_000);
    w.service.after = (req) => (req.method === 'PATCH' ? fail(500, 'outcome-unknown')(req) : undefined);
    await leases.renew();
    w.service.after = undefined;
    w.clock.advance(10_000);
    w.service.before = (req) => (req.method === 'PATCH' ? fail(500, 'outcome-unknown')(req) : undefined);
    await leases.renew();
    await stillHeld(w, leases);
  });

  it('two unknown renewals that did not land: the record still holds what it held, and the lease is kept', async () => {
    const w = world();
    const leases = await taken(w);
    for (let i = 0; i < 2; i++) {
      w.clock.advance(10_000);
      w.service.before = (req) => (req.method === 'PATCH' ? fail(500, 'outcome-unknown')(req) : undefined);
      await leases.renew();
    }
    await stillHeld(w, leases);
  });
});

describe('the heartbeat of its own', () => {
  it('without a heartbeat option, a timer beats each second: it renews within the lead and stops at release', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const w = world();
      w.service.put('prod', 1, released());
      const leases = await Leases.acquire(w.service.client, prod, [prod], { holder: 'run A', owner: 'owner-a', clock: w.clock });
      const before = w.service.sent.length;
      w.clock.advance(SPAN - RENEW_LEAD_MS);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(w.service.sent.slice(before).map((r) => r.method)).toEqual(['GET', 'PATCH']);
      await leases.release();
      const after = w.service.sent.length;
      w.clock.advance(SPAN);
      await vi.advanceTimersByTimeAsync(5_000);
      expect(w.service.sent.length).toBe(after);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('taking it after the rule\u2019s wait', () => {
  const waitedNote = (why: string) => `waited ${Math.round((LEASE_LIFETIME_MS + leaseMarginMs(30_000)) / 1000)}s before taking the lease: ${why}`;
  const acquire = (w: World) => Leases.acquire(w.service.client, prod, [prod], { holder: 'run A', owner: 'owner-a', clock: w.clock, heartbeat: () => () => undefined });

  it('says why it waited: no record, a record freed with unlock, or an edited one', async () => {
    const none = world();
    expect((await acquire(none)).report().notes).toEqual([waitedNote('no lease record was found')]);
    const freed = world();
    freed.service.put('prod', 1, { owner: 'o', holder: 'bob', stamp: START, state: 'freed' });
    expect((await acquire(freed)).report().notes).toEqual([waitedNote('it was freed with postureops unlock')]);
    const edited = world();
    edited.service.put('prod', 1, 'edited');
    expect((await acquire(edited)).report().notes).toEqual([waitedNote('its record was edited')]);
  });

  it('waits again when what it waited for changed during the wait (another record came)', async () => {
    const w = world();
    w.service.put('prod', 1, 'edited');
    let looks = 0;
    w.service.before = (req) => {
      // During the first wait, someone frees a newer generation.
      if (req.method === 'GET' && ++looks === 2) w.service.put('prod', 2, { owner: 'o', holder: 'bob', stamp: START, state: 'freed' });
    };
    const leases = await acquire(w);
    expect(leases.report().notes).toEqual([waitedNote('its record was edited'), waitedNote('it was freed with postureops unlock')]);
    expect(leases.report().waitedSeconds).toBe(2 * Math.round((LEASE_LIFETIME_MS + leaseMarginMs(30_000)) / 1000));
  });

  it('a create of unknown outcome whose generation shows an unreadable record was not this run\u2019s: it waits and takes the next', async () => {
    const w = world();
    w.service.put('prod', 1, released());
    let creates = 0;
    w.service.after = (req) => {
      if (req.method === 'POST' && ++creates === 1) {
        w.service.put('prod', 2, 'edited');
        fail(500, 'outcome-unknown')(req);
      }
    };
    const leases = await acquire(w);
    expect(w.service.records('prod').at(-1)?.generation).toBe(3);
    expect(w.service.records('prod').at(-1)?.data?.owner).toBe('owner-a');
    expect(leases.report().notes).toEqual([waitedNote('its record was edited')]);
  });
});
