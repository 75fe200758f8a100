// The apply lease's smaller parts, each with what it must say or send (killing the mutants the
// 'lease' group's run left, docs/mutation.md): the errors' names and messages, the holder's name,
// the system clock, a record's age, how a lease request is addressed, the client's request bound in
// the fence, what taking it does when a create's outcome is unknown or an old record will not go,
// and the release's waits for writes in flight. All on a virtual clock (lease-service.ts).

import { hostname, userInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/types.js';
import {
  defaultHolder,
  LEASE_LIFETIME_MS,
  leaseAge,
  type LeaseClock,
  LeaseHeldError,
  LeaseLostError,
  leaseMarginMs,
  Leases,
  LeaseWaitStopped,
  lookAt,
  requestContext,
  systemLeaseClock,
} from '../../src/ops/lease/lease.js';
import type { LeaseData } from '../../src/ops/lease/lease-record.js';
import { LeaseService, ORG } from './lease-service.js';

const START = Date.UTC(2026, 10, 26, 5, 0, 0);
const prod = { name: 'prod', orgAccess: false };
const org = { name: 'org', orgAccess: true };
const released = (stamp = START - 60_000): LeaseData => ({ owner: 'old', holder: 'old run', stamp, state: 'released' });

/** One virtual time for the service (cut to the second) and the run's clocks. */
function world(): { service: LeaseService; clock: LeaseClock; t: () => number } {
  let t = START + 500;
  const service = new LeaseService(START);
  service.clock = () => Math.floor(t / 1000) * 1000;
  service.limit = 1000;
  const clock: LeaseClock = {
    mono: () => t,
    wall: () => t,
    sleep: async (ms) => {
      t += ms;
    },
  };
  return { service, clock, t: () => t };
}

const opts = (clock: LeaseClock) => ({ holder: 'run A', owner: 'owner-a', clock, heartbeat: () => () => undefined });
const failure = (p: Promise<unknown>): Promise<unknown> => p.then(() => new Error('resolved'), (e: unknown) => e);

describe('what the lease says', () => {
  it('names its errors and says what happened in each', () => {
    const held = new LeaseHeldError('prod', '', 31_400, 0);
    expect(held.name).toBe('LeaseHeldError');
    expect(held.message).toBe("another apply holds the lease (in account prod; unknown holder; renewed 31s ago by the service's clock; free after 120s without renewal): nothing was changed");
    expect(new LeaseHeldError('prod', 'bob', 0, 12).message).toContain('; bob; renewed 0s ago');
    expect(new LeaseHeldError('prod', 'bob', 0, 12).message).toContain('without renewal) after waiting 12s: nothing was changed');
    // A holder's name comes from the service: at most 200 characters of it reach a message.
    const long = new LeaseHeldError('prod', 'b'.repeat(300), 0, 0).message;
    expect(long).toContain(`; ${'b'.repeat(200)}; renewed`);
    expect(long).not.toContain('b'.repeat(201));
    const lost = new LeaseLostError('prod', 'why');
    expect(lost.name).toBe('LeaseLostError');
    expect(lost.message).toBe("the apply lease (in account prod) is no longer this run's (why): stopped before the next write");
    const stopped = new LeaseWaitStopped(7);
    expect(stopped.name).toBe('LeaseWaitStopped');
    expect(stopped.message).toBe('the wait for the apply lease was ended after 7s: nothing was changed');
  });

  it('names its holder: the GitHub run, or the user, host and process (unknown user when the system has none)', () => {
    expect(defaultHolder({ GITHUB_RUN_ID: '42', GITHUB_REPOSITORY: 'o/r' })).toBe('GitHub run o/r #42');
    expect(defaultHolder({ GITHUB_RUN_ID: '42' })).toBe('GitHub run #42');
    expect(defaultHolder({}, () => 'ann')).toMatch(new RegExp(`^ann@.+ pid ${process.pid}$`));
    expect(defaultHolder({})).toBe(`${userInfo().username}@${hostname()} pid ${process.pid}`);
    expect(
      defaultHolder({}, () => {
        throw new Error('no user');
      }),
    ).toMatch(/^unknown@.+ pid \d+$/);
  });

  it("the system clock: monotonic on the wall clock's scale, the wall clock itself, a sleep that resolves", async () => {
    const clock = systemLeaseClock();
    expect(Math.abs(clock.mono() - Date.now())).toBeLessThan(60_000);
    expect(clock.wall).toBe(Date.now);
    // Monotonic: after a sleep it has moved forward, whatever the machine's speed.
    const before = clock.mono();
    await expect(clock.sleep(5)).resolves.toBeUndefined();
    expect(clock.mono()).toBeGreaterThan(before);
  });

  it("a record's age by the service's clock, never below zero, unknown for an edited record", () => {
    const record = { id: 'POSTUREOPS_LEASE_1', generation: 1, data: released(START) };
    expect(leaseAge(record, START + 5_000)).toBe(5_000);
    expect(leaseAge(record, START - 5_000)).toBe(0);
    expect(leaseAge({ id: 'POSTUREOPS_LEASE_1', generation: 1 }, START)).toBeUndefined();
  });

  it('a lease request refers to nothing else', () => {
    expect(() => requestContext(prod).resolve('AlertChannel', 'x')).toThrow('a lease record refers to nothing');
    expect(requestContext(org)).toMatchObject({ account: 'org', orgAccess: true });
  });

  it('a taken lease addresses each account as requestContext does, and keeps the notes it is given', async () => {
    const { service, clock } = world();
    service.put('prod', 1, { owner: 'o', holder: 'o', stamp: START - 60_000, state: 'released' });
    const leases = await Leases.acquire(service.client, prod, [prod, org], opts(clock));
    expect(leases.requestContextOf(org)).toMatchObject({ account: 'org', orgAccess: true });
    expect(() => leases.requestContextOf(prod).resolve('AlertChannel', 'x')).toThrow('a lease record refers to nothing');
    leases.note('apply stopped: interrupted');
    expect(leases.report().notes).toEqual(['apply stopped: interrupted']);
  });
});

describe('how the lease reads and writes', () => {
  it('an answer without a Date header is refused: time is the service clock only', async () => {
    const { service } = world();
    service.undated = true;
    await expect(lookAt(service.client, prod)).rejects.toThrow("the service's answer for account prod carries no Date header: the apply lease judges time by the service's clock only");
  });

  it('an organization-level home is addressed with Org-Access and no account; an account-level one by name', async () => {
    const { service } = world();
    service.put(ORG, 1, released());
    await lookAt(service.client, org);
    await lookAt(service.client, prod);
    expect(service.sent.map((r) => [r.account, r.orgAccess])).toEqual([
      [undefined, true],
      ['prod', undefined],
    ]);
  });

  it('the fence is the lifetime less the margin of the bound given, else the client\u2019s, else 30 s', async () => {
    const { service, clock } = world();
    service.put('prod', 1, released());
    const given = await Leases.acquire(service.client, prod, [prod], { ...opts(clock), requestBoundMs: 5_000 });
    expect(given.fenceSpanMs).toBe(LEASE_LIFETIME_MS - leaseMarginMs(5_000));
    await given.release();
    const a = world();
    a.service.put('prod', 1, released());
    a.service.client.requestBoundMs = () => 12_000;
    expect((await Leases.acquire(a.service.client, prod, [prod], opts(a.clock))).fenceSpanMs).toBe(LEASE_LIFETIME_MS - leaseMarginMs(12_000));
    const b = world();
    b.service.put('prod', 1, released());
    delete (b.service.client as { requestBoundMs?: unknown }).requestBoundMs;
    expect((await Leases.acquire(b.service.client, prod, [prod], opts(b.clock))).fenceSpanMs).toBe(LEASE_LIFETIME_MS - leaseMarginMs(30_000));
  });

  it('covers the accounts it was taken for, and only those', async () => {
    const { service, clock } = world();
    service.put('prod', 1, released());
    const leases = await Leases.acquire(service.client, prod, [prod, { name: 'staging', orgAccess: false }], opts(clock));
    expect(leases.covers('staging')).toBe(true);
    expect(leases.covers('prod')).toBe(true);
    expect(leases.covers('dev')).toBe(false);
  });
});

describe('taking it when the service misbehaves', () => {
  it('a create whose outcome is unknown is judged by the records: created by this run, the lease is taken', async () => {
    const { service, clock } = world();
    service.put('prod', 1, released());
    service.after = (req) => {
      if (req.method === 'POST') throw new ApiError({ kind: 'outcome-unknown', status: 500, method: req.method, path: req.path });
    };
    const leases = await Leases.acquire(service.client, prod, [prod], opts(clock));
    expect(service.sent.map((r) => r.method)).toEqual(['GET', 'POST', 'GET', 'DELETE']);
    expect(leases.fenceLeftMs()).toBeGreaterThan(0);
  });

  it('a create whose outcome is unknown and not found is tried again from a new look; another error is not swallowed', async () => {
    const { service, clock } = world();
    service.put('prod', 1, released());
    let failed = false;
    service.before = (req) => {
      if (req.method === 'POST' && !failed) {
        failed = true;
        throw new ApiError({ kind: 'outcome-unknown', method: req.method, path: req.path });
      }
    };
    await Leases.acquire(service.client, prod, [prod], opts(clock));
    expect(service.sent.map((r) => r.method)).toEqual(['GET', 'POST', 'GET', 'GET', 'POST', 'DELETE']);

    const other = world();
    other.service.put('prod', 1, released());
    other.service.before = (req) => {
      if (req.method === 'POST') throw new ApiError({ kind: 'permanent', status: 400, method: req.method, path: req.path });
    };
    const err = await failure(Leases.acquire(other.service.client, prod, [prod], opts(other.clock)));
    expect(err).toBeInstanceOf(ApiError);
    expect(other.service.sent.map((r) => r.method)).toEqual(['GET', 'POST']);
  });

  it('an old record already gone is no note; one that will not go is', async () => {
    const gone = world();
    gone.service.put('prod', 1, released());
    gone.service.before = (req) => {
      if (req.method === 'DELETE') throw new ApiError({ kind: 'permanent', status: 404, method: req.method, path: req.path });
    };
    expect((await Leases.acquire(gone.service.client, prod, [prod], opts(gone.clock))).report().notes).toEqual([]);
    const stuck = world();
    stuck.service.put('prod', 1, released());
    stuck.service.before = (req) => {
      if (req.method === 'DELETE') throw new ApiError({ kind: 'permanent', status: 403, method: req.method, path: req.path });
    };
    const notes = (await Leases.acquire(stuck.service.client, prod, [prod], opts(stuck.clock))).report().notes;
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^an old lease record \(POSTUREOPS_LEASE_1\) could not be removed: /);
  });
});

describe('releasing it', () => {
  it('waits for a write in flight (a second at a time) before marking it released', async () => {
    const { service, clock, t } = world();
    service.put('prod', 1, released());
    let landAt = Infinity;
    const sleeps: number[] = [];
    const landing: LeaseClock = {
      ...clock,
      sleep: async (ms) => {
        sleeps.push(ms);
        await clock.sleep(ms);
        // The write in flight is answered 3 s after the release began.
        if (t() >= landAt) {
          landAt = Infinity;
          leases.gate.landed(true);
        }
      },
    };
    const leases = await Leases.acquire(service.client, prod, [prod], opts(landing));
    leases.gate.leaving();
    const start = t();
    landAt = start + 3_000;
    await leases.release();
    expect(t() - start).toBe(3_000);
    expect(sleeps).toEqual([1000, 1000, 1000]);
    expect(service.requests('PATCH')).toHaveLength(1);
    expect(leases.report().notes).toEqual(['released the lease']);
  });

  it('a write given up on holds the release for the margin; past its deadline the lease is left to expire', async () => {
    const { service, clock, t } = world();
    service.put('prod', 1, released());
    const leases = await Leases.acquire(service.client, prod, [prod], { ...opts(clock), requestBoundMs: 2_000 });
    leases.gate.leaving();
    leases.gate.landed(false);
    const start = t();
    await leases.release();
    expect(t() - start).toBe(leaseMarginMs(2_000));
    expect(service.requests('PATCH')).toHaveLength(1);

    const stuck = world();
    stuck.service.put('prod', 1, released());
    const held = await Leases.acquire(stuck.service.client, prod, [prod], { ...opts(stuck.clock), requestBoundMs: 2_000 });
    held.gate.leaving();
    const from = stuck.t();
    await held.release();
    expect(stuck.t() - from).toBe(leaseMarginMs(2_000) + 5_000);
    expect(stuck.service.requests('PATCH')).toHaveLength(0);
    expect(held.report().notes).toEqual([
      'the lease was not released: writes were still in flight at the release\u2019s deadline; it is free 120s after its last renewal, or run postureops unlock'.replace('\u2019', "'"),
    ]);
    // Released (given up): no write leaves any more.
    expect(() => held.checkFence()).toThrow(LeaseLostError);
  });
});

