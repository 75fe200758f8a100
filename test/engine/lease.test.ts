// The apply lease in process, against an in-memory service of lease records (lease-service.ts), all on
// one virtual time: the service dates its answers by it (cut to the second, as a Date header), each
// run has its own monotonic and wall clocks over it (an hour apart when a test says so), and sleeps
// move it. Each test names the rule of lease.ts it protects: the fence by time (judged as a write
// leaves), the renewal's rules, the pause, release and the waits of the next holder, and the safety
// property itself: no write of one holder is processed after another holder has started.

import { describe, expect, it } from 'vitest';
import { ApiError, type ApiRequest, type ApiResponse } from '../../src/api/types.js';
import {
  defaultHolder,
  LEASE_LIFETIME_MS,
  type LeaseClock,
  LeaseHeldError,
  leaseHome,
  LeaseLostError,
  leaseMarginMs,
  type LeaseOptions,
  Leases,
  type LeaseWait,
  LeaseWaitStopped,
  RENEW_LEAD_MS,
} from '../../src/ops/lease/lease.js';
import type { LeaseData } from '../../src/ops/lease/lease-record.js';
import { gate, LeaseService } from './lease-service.js';

const START = Date.UTC(2026, 10, 26, 5, 0, 0);
const MARGIN = leaseMarginMs(30_000);
const SPAN = LEASE_LIFETIME_MS - MARGIN;
const prod = { name: 'prod', orgAccess: false };
const staging = { name: 'staging', orgAccess: false };
const write: ApiRequest = { method: 'POST', path: '/api/v2/AlertChannels', body: { name: 'x' } };

/** The true time of a test: the service dates by it (to the second); every clock reads it. */
class World {
  t = START + 500;
  readonly service = new LeaseService(START);
  /** Writes the service processed, with the true time they were processed at. */
  readonly processed: { req: ApiRequest; at: number }[] = [];
  constructor() {
    this.service.clock = () => Math.floor(this.t / 1000) * 1000;
    this.service.limit = 1000;
    const original = this.service.client.request.bind(this.service.client);
    this.service.client.request = async <T,>(req: ApiRequest) => {
      const res = await original<T>(req);
      if (req.path.startsWith('/api/v2/AlertChannels')) this.processed.push({ req, at: this.t });
      return res;
    };
    // Only lease records are the service's concern here; a channel write is answered as created.
    const answer = this.service['answer'].bind(this.service) as (req: ApiRequest) => ApiResponse;
    this.service['answer'] = (req: ApiRequest): ApiResponse => (req.path.startsWith('/api/v2/AlertChannels') ? { status: 201, body: {}, date: this.service.clock() } : answer(req));
  }

  /** A run's clocks: monotonic from its own origin, wall `skewMs` away from the service's. */
  clock(skewMs = 0, monoOrigin = 1_000_000, turn = false): LeaseClock & { pause(ms: number): void } {
    let paused = 0;
    const born = this.t;
    return {
      mono: () => monoOrigin + (this.t - born) - paused,
      wall: () => this.t + skewMs,
      // `turn`: a sleep lets the event loop turn first (what else is pending runs meanwhile).
      sleep: async (ms) => {
        if (turn) await new Promise((r) => setImmediate(r));
        this.t += ms;
      },
      // A suspended laptop: the wall clock moves, the monotonic one does not.
      pause: (ms) => {
        this.t += ms;
        paused += ms;
      },
    };
  }
}

function options(world: World, extra: LeaseOptions & { clock?: LeaseClock } = {}): LeaseOptions & { beat: () => Promise<void> } {
  const out: LeaseOptions & { beat: () => Promise<void> } = {
    holder: 'run A',
    owner: 'owner-a',
    clock: world.clock(),
    heartbeat: (b: () => Promise<void>) => {
      out.beat = b;
      return () => undefined;
    },
    beat: async () => {},
    ...extra,
  };
  return out;
}

const failure = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => new Error('resolved'),
    (e: unknown) => e,
  );

const released = (owner = 'owner-old', stamp = START - 60_000): LeaseData => ({ owner, holder: 'old run', stamp, state: 'released' });

/** A world whose home account holds a released lease of generation 1 (an earlier run ended cleanly). */
function worldReleased(): World {
  const world = new World();
  world.service.put('prod', 1, released());
  return world;
}

describe('taking the lease: one record for the run, in the home account', () => {
  it('takes over a released lease at once: a list, the create of the next generation, the delete of the one it replaced', async () => {
    const world = worldReleased();
    const opts = options(world);
    const leases = await Leases.acquire(world.service.client, prod, [staging, prod], opts);
    expect(world.service.sent.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/v2/AlertProfiles',
      'POST /api/v2/AlertProfiles',
      'DELETE /api/v2/AlertProfiles/POSTUREOPS_LEASE_1',
    ]);
    expect(world.service.records('prod')).toEqual([
      { id: 'POSTUREOPS_LEASE_2', generation: 2, data: { owner: 'owner-a', holder: 'run A', stamp: START, state: 'held' } },
    ]);
    expect(leases.report()).toEqual({ accounts: ['prod', 'staging'], home: 'prod', waitedSeconds: 0, notes: [] });
    expect(leases.fenceLeftMs()).toBe(SPAN);
  });

  it('the home is the first account of the configuration by name, whatever the run narrows to', () => {
    expect(leaseHome([staging, prod, { name: 'Alpha', orgAccess: false }])?.name).toBe('Alpha');
    expect(leaseHome([])).toBeUndefined();
  });

  it.each([
    ['no record', (w: World) => void w],
    ['a record freed with unlock', (w: World) => w.service.put('prod', 3, { ...released(), state: 'freed' })],
    ['an edited record', (w: World) => w.service.put('prod', 3, 'edited')],
  ])('finding %s, waits the lifetime and the margin before the read it takes the lease from, counting down each second', async (_what, seed) => {
    const world = new World();
    seed(world);
    const waits: LeaseWait[] = [];
    const start = world.t;
    const leases = await Leases.acquire(world.service.client, prod, [prod], options(world, { onWait: (w) => waits.push(w) }));
    const looks = world.service.requests('GET');
    expect(looks).toHaveLength(2);
    expect(world.t - start).toBe(LEASE_LIFETIME_MS + MARGIN);
    // Each second, then 0 when the wait is over (a countdown clears its line).
    expect(waits).toHaveLength((LEASE_LIFETIME_MS + MARGIN) / 1000 + 1);
    expect(waits[0]).toEqual({ why: 'unknown', secondsLeft: 151 });
    expect(waits.at(-2)).toEqual({ why: 'unknown', secondsLeft: 1 });
    expect(waits.at(-1)).toEqual({ why: 'unknown', secondsLeft: 0 });
    expect(leases.report().notes[0]).toMatch(/^waited 151s before taking the lease: /);
    expect(leases.report().waitedSeconds).toBe(151);
  });

  it('another apply holding it stops the run at once by default, with the holder and its age by the service clock', async () => {
    const world = new World();
    world.service.put('prod', 4, { owner: 'o', holder: 'mallory\u001b[2J', stamp: START - 30_000, state: 'held' });
    const err = await failure(Leases.acquire(world.service.client, prod, [prod], options(world)));
    expect(err).toBeInstanceOf(LeaseHeldError);
    expect((err as Error).message).toBe(
      "another apply holds the lease (in account prod; mallory\\x1b[2J; renewed 30s ago by the service's clock; free after 120s without renewal): nothing was changed",
    );
    expect(world.service.requests('GET')).toHaveLength(1);
    expect(world.service.requests('POST')).toHaveLength(0);
  });

  it('--lease-wait waits with a countdown and takes a lease over once not renewed for the lifetime, by the service clock', async () => {
    const world = new World();
    world.service.put('prod', 4, { owner: 'o', holder: 'run B', stamp: START, state: 'held' });
    const waits: LeaseWait[] = [];
    const leases = await Leases.acquire(world.service.client, prod, [prod], options(world, { waitMs: 600_000, onWait: (w) => waits.push(w) }));
    expect(waits[0]).toEqual({ why: 'held', holder: 'run B', secondsLeft: 30, waitLeftSeconds: 600 });
    // The next look counts down from 30 s each time; the wait allowed counts down across the looks.
    const counting = waits.filter((w) => w.secondsLeft > 0);
    expect(counting.map((w) => w.waitLeftSeconds)).toEqual(Array.from({ length: 120 }, (_, i) => 600 - i));
    expect(waits.filter((w) => w.secondsLeft === 0)).toHaveLength(4);
    expect(world.service.records('prod').map((r) => r.generation)).toEqual([5]);
    expect(leases.report().notes).toEqual(['took over the lease from run B (not renewed for 120s)', 'waited 120s for another apply']);
  });

  it('a signal ends a wait at once: nothing taken', async () => {
    const world = new World();
    const stop = new AbortController();
    const err = await failure(Leases.acquire(world.service.client, prod, [prod], options(world, { signal: stop.signal, onWait: (w) => w.secondsLeft === 140 && stop.abort('SIGINT') })));
    expect(err).toBeInstanceOf(LeaseWaitStopped);
    expect(world.service.requests('POST')).toHaveLength(0);
  });

  it('of two runs that saw the same generation, one wins the create (409 for the other, which then finds it held)', async () => {
    const world = worldReleased();
    // B creates generation 2 between A's look and A's create.
    const held = gate(world.service, (r) => r.method === 'POST');
    const a = failure(Leases.acquire(world.service.client, prod, [prod], options(world)));
    await held.reached;
    world.service.put('prod', 2, { owner: 'owner-b', holder: 'run B', stamp: START, state: 'held' });
    held.open();
    expect(await a).toBeInstanceOf(LeaseHeldError);
    expect(world.service.records('prod').at(-1)?.data?.owner).toBe('owner-b');
  });

  it('a create whose outcome is unknown was won when the records show its generation with this run as owner', async () => {
    const world = worldReleased();
    world.service.after = (req) => {
      if (req.method === 'POST') throw new ApiError({ kind: 'outcome-unknown', status: 502, method: 'POST', path: req.path });
    };
    const leases = await Leases.acquire(world.service.client, prod, [prod], options(world));
    world.service.after = undefined;
    expect(leases.fenceLeftMs()).toBeGreaterThan(0);
    expect(world.service.records('prod').map((r) => r.data?.owner)).toEqual(['owner-a']);
  });

  it('the default holder is the CI run, or user@host and pid', () => {
    expect(defaultHolder({ GITHUB_RUN_ID: '7', GITHUB_REPOSITORY: 'acme/posture' })).toBe('GitHub run acme/posture #7');
    expect(defaultHolder({}, () => 'ann')).toMatch(/^ann@.+ pid \d+$/);
    expect(
      defaultHolder({}, () => {
        throw new Error('no user');
      }),
    ).toMatch(/^unknown@/);
  });
});

describe('the fence: by time, judged as a write leaves, never a read per write', () => {
  it('writes leave without a read of the lease while the fence is open; one leaving after it closed is refused, not sent', async () => {
    const world = worldReleased();
    const leases = await Leases.acquire(world.service.client, prod, [prod], options(world));
    const before = world.service.sent.length;
    for (let i = 0; i < 10; i++) await leases.request(prod, write);
    expect(world.service.sent.slice(before).every((r) => r.method === 'POST' && r.path === write.path)).toBe(true);
    world.t += SPAN - 10 * 0 - 1;
    await leases.request(prod, write);
    world.t += 1;
    const err = await failure(leases.request(prod, write));
    expect(err).toBeInstanceOf(LeaseLostError);
    expect((err as Error).message).toBe("the apply lease (in account prod) is no longer this run's (its fence closed 0s ago without a renewal): stopped before the next write");
    expect(world.service.refused).toHaveLength(1);
    expect(world.processed).toHaveLength(11);
  });

  it('a write queued behind a long rate-limit wait is judged when it leaves, not when it was queued', async () => {
    const world = worldReleased();
    const leases = await Leases.acquire(world.service.client, prod, [prod], options(world));
    // Queued now (fence open), it waits 95 s for its bucket: the gate is asked only as it leaves.
    expect(leases.fenceLeftMs()).toBe(SPAN);
    world.t += 95_000;
    expect(() => leases.gate.leaving()).toThrow(LeaseLostError);
  });

  it('a pause of the process (the wall clock moved further than the monotonic one) closes the fence', async () => {
    const world = worldReleased();
    const clock = world.clock();
    const leases = await Leases.acquire(world.service.client, prod, [prod], options(world, { clock }));
    clock.pause(40_000);
    // By its monotonic clock the fence is still open for a long time: the pause closes it anyway.
    expect(leases.fenceLeftMs()).toBe(SPAN);
    const err = await failure(leases.request(prod, write));
    expect((err as Error).message).toContain('the process was paused (its wall clock moved 40s further than its monotonic clock)');
    expect(world.processed).toHaveLength(0);
  });

  it('clocks an hour apart decide nothing: ages are the service\'s, the fence is the monotonic clock\'s', async () => {
    const world = worldReleased();
    const leases = await Leases.acquire(world.service.client, prod, [prod], options(world, { clock: world.clock(3_600_000, 5) }));
    expect(world.service.records('prod')[0].data?.stamp).toBe(START);
    expect(leases.fenceLeftMs()).toBe(SPAN);
  });
});

describe('renewals', () => {
  it('the heartbeat renews once the fence has the lead left: a read, then a PATCH stamped with that read\'s Date; the fence moves to the read\'s send time', async () => {
    const world = worldReleased();
    const opts = options(world);
    const leases = await Leases.acquire(world.service.client, prod, [prod], opts);
    world.t += SPAN - RENEW_LEAD_MS - 1;
    await opts.beat();
    expect(world.service.requests('PATCH')).toHaveLength(0);
    world.t += 1;
    const sent = world.t;
    await opts.beat();
    expect(world.service.requests('PATCH')).toHaveLength(1);
    expect(world.service.records('prod')[0].data?.stamp).toBe(Math.floor(sent / 1000) * 1000);
    expect(leases.fenceLeftMs()).toBe(SPAN);
  });

  it('a renewal whose answer comes after the old fence closed revives nothing', async () => {
    const world = worldReleased();
    const opts = options(world);
    const leases = await Leases.acquire(world.service.client, prod, [prod], opts);
    world.t += SPAN - RENEW_LEAD_MS;
    world.service.before = (req) => {
      if (req.method === 'PATCH') world.t += RENEW_LEAD_MS;
    };
    await opts.beat();
    expect(leases.fenceLeftMs()).toBe(0);
    expect(await failure(leases.request(prod, write))).toBeInstanceOf(LeaseLostError);
  });

  it('a renewal whose outcome is unknown leaves the old fence; the record holding either stamp is still this run\'s', async () => {
    const world = worldReleased();
    const opts = options(world);
    const leases = await Leases.acquire(world.service.client, prod, [prod], opts);
    world.t += SPAN - RENEW_LEAD_MS;
    world.service.after = (req) => {
      if (req.method === 'PATCH') throw new ApiError({ kind: 'transient', method: 'PATCH', path: req.path, detail: 'timed out' });
    };
    await opts.beat();
    world.service.after = undefined;
    expect(leases.fenceLeftMs()).toBe(RENEW_LEAD_MS);
    // The next renewal finds the stamp the unknown one wrote, takes it as its own, and moves the fence.
    world.t += 1000;
    await opts.beat();
    expect(leases.fenceLeftMs()).toBe(SPAN);
  });

  it.each([
    ['deleted', (w: World) => w.service.profiles('prod').delete('POSTUREOPS_LEASE_2'), 'its lease record was deleted'],
    ['edited', (w: World) => w.service.put('prod', 2, 'edited'), 'its lease record was changed by someone else'],
    ['freed', (w: World) => w.service.put('prod', 2, { owner: 'owner-a', holder: 'run A', stamp: START, state: 'freed' }), 'it was freed with postureops unlock'],
    ['taken over', (w: World) => w.service.put('prod', 3, { owner: 'b', holder: 'run B', stamp: START, state: 'held' }), 'another apply took it over (run B)'],
  ])('a record %s under the run: its renewal finds it, the fence is not moved, and the next write is refused', async (_what, change, why) => {
    const world = worldReleased();
    const opts = options(world);
    const leases = await Leases.acquire(world.service.client, prod, [prod], opts);
    change(world);
    world.t += SPAN - RENEW_LEAD_MS;
    await opts.beat();
    expect(world.service.requests('PATCH')).toHaveLength(0);
    const err = await failure(leases.request(prod, write));
    expect((err as Error).message).toContain(why);
  });
});

describe('release', () => {
  it('marks the record released (a PATCH, never a delete); the next run takes it over at once', async () => {
    const world = worldReleased();
    const a = await Leases.acquire(world.service.client, prod, [prod], options(world));
    await a.request(prod, write);
    await a.release();
    expect(world.service.records('prod')).toEqual([{ id: 'POSTUREOPS_LEASE_2', generation: 2, data: { owner: 'owner-a', holder: 'run A', stamp: START, state: 'released' } }]);
    expect(a.report().notes).toEqual(['released the lease']);
    const before = world.t;
    await Leases.acquire(world.service.client, prod, [prod], options(world, { owner: 'owner-b', holder: 'run B' }));
    expect(world.t).toBe(before);
    expect(world.service.records('prod').map((r) => r.generation)).toEqual([3]);
  });

  it('waits for every write in flight to be answered first', async () => {
    const world = worldReleased();
    const a = await Leases.acquire(world.service.client, prod, [prod], options(world, { clock: world.clock(0, 0, true) }));
    const held = gate(world.service, (r) => r.path === write.path);
    const writing = a.request(prod, write);
    await held.reached;
    const releasing = a.release();
    await new Promise((r) => setImmediate(r));
    expect(world.service.requests('PATCH')).toHaveLength(0);
    held.open();
    await writing;
    await releasing;
    expect(world.service.records('prod')[0].data?.state).toBe('released');
    expect(a.report().notes).toEqual(['released the lease']);
  });

  it('after a write given up on (no answer), waits the margin since; past the fence, leaves the record to expire and says so', async () => {
    const world = worldReleased();
    const a = await Leases.acquire(world.service.client, prod, [prod], options(world));
    world.service.after = (req) => {
      if (req.path === write.path) throw new ApiError({ kind: 'outcome-unknown', method: 'POST', path: req.path, detail: 'timed out', timedOut: true });
    };
    await failure(a.request(prod, write));
    const gaveUp = world.t;
    await a.release();
    expect(world.t - gaveUp).toBe(MARGIN);
    expect(world.service.records('prod')[0].data?.state).toBe('released');

    // Given up on too late for the fence: no release.
    const world2 = worldReleased();
    const b = await Leases.acquire(world2.service.client, prod, [prod], options(world2));
    world2.t += SPAN - 10_000;
    world2.service.after = world.service.after;
    await failure(b.request(prod, write));
    await b.release();
    expect(world2.service.records('prod')[0].data?.state).toBe('held');
    expect(b.report().notes.at(-1)).toBe('the lease was not released: its fence had closed; it is free 120s after its last renewal, or run postureops unlock');
  });
});

describe('the safety property: no write of one holder is processed after another has started', () => {
  // Six holders at once on one virtual time, seeded: each takes the lease (waiting as long as it
  // must), writes at random times with random latencies up to the request bound, renews now and then,
  // pauses now and then (a suspended laptop), and dies (never releases) or releases. Every write a
  // holder had processed must precede the read every later holder took the lease from.
  it.each([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])('seed %i', async (seed) => {
    let x = seed * 7919;
    const rnd = () => (x = (x * 48271) % 2147483647) / 2147483647;
    const world = new World();
    world.service.put('prod', 1, released());
    world.service.before = (req) => {
      const latency = (req.body as { latency?: number } | undefined)?.latency;
      if (req.path === write.path && latency !== undefined) world.t += latency;
    };
    const taken: { at: number; writes: number[] }[] = [];
    const holder = async (h: number) => {
      for (let i = Math.floor(rnd() * 50); i > 0; i--) await Promise.resolve();
      const clock = world.clock(Math.floor(rnd() * 7_200_000) - 3_600_000, Math.floor(rnd() * 1e9));
      let lastRead = 0;
      const mine = { at: 0, writes: [] as number[] };
      const client = {
        ...world.service.client,
        request: <T,>(req: ApiRequest) => {
          if (req.method === 'GET') lastRead = world.t;
          if (req.method === 'POST' && req.path === '/api/v2/AlertProfiles') mine.at = lastRead;
          return world.service.client.request<T>(req);
        },
      };
      let leases: Leases;
      try {
        leases = await Leases.acquire(client, prod, [prod], options(world, { owner: `o${h}`, holder: `h${h}`, clock, waitMs: 3_600_000 }));
      } catch (err) {
        if (err instanceof LeaseHeldError || /changed hands/.test(String(err))) return;
        throw err;
      }
      taken.push(mine);
      for (let w = 3 + Math.floor(rnd() * 10); w > 0; w--) {
        await clock.sleep(Math.floor(rnd() * 30_000));
        if (rnd() < 0.2) clock.pause(Math.floor(rnd() * 150_000));
        try {
          await leases.request(prod, { ...write, body: { latency: Math.floor(rnd() * 30_000) } });
          mine.writes.push(world.processed.at(-1)!.at);
        } catch (err) {
          if (!(err instanceof LeaseLostError)) throw err;
          break;
        }
        if (leases.fenceLeftMs() <= RENEW_LEAD_MS) await leases.renew();
      }
      if (rnd() < 0.6) await leases.release();
    };
    await Promise.all([0, 1, 2, 3, 4, 5].map(holder));
    expect(taken.length).toBeGreaterThan(1);
    for (const a of taken) for (const b of taken) if (b.at > a.at) for (const at of a.writes) expect(at).toBeLessThan(b.at);
    expect(taken.flatMap((t) => t.writes).length).toBeGreaterThan(5);
  });
});
