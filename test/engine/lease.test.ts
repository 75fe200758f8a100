// The apply lease in process, against an in-memory service of lease records (lease-service.ts): the
// service's time is a virtual clock read from each answer's Date, the client's clock and the sleeps
// are injected, the heartbeat is called by hand. Each test names the rule of the lease it protects:
// take by compare-and-set (409), ages by service time, the 60 s renewal at a fence, 120 s to expiry,
// the heartbeat, release on error, and what a lost lease does to the next write.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, type ApiRequest } from '../../src/api/types.js';
import {
  defaultHolder,
  LEASE_HEARTBEAT_MS,
  LEASE_RENEW_MS,
  LEASE_STALE_MS,
  LeaseHeldError,
  LeaseLostError,
  Leases,
  leaseAge,
  lookAt,
  removeLease,
  type LeaseOptions,
} from '../../src/ops/lease/lease.js';
import { KINDS } from '../../src/kinds/index.js';
import { profileLease } from '../../src/kinds/lease-record.js';
import type { LeaseData } from '../../src/kinds/types.js';
import { gate, LeaseService, ORG, serviceError } from './lease-service.js';

const START = Date.UTC(2026, 10, 26, 5, 0, 0);
const prod = { name: 'prod', orgAccess: false };
const staging = { name: 'staging', orgAccess: false };
const org = { name: 'org', orgAccess: true };
const OTHER: LeaseData = { owner: 'owner-other', holder: 'other run', stamp: START };
const FIRST = 'POSTUREOPS_LEASE_1';

const isLook = (r: ApiRequest) => r.method === 'GET';
const isRenewal = (r: ApiRequest) => r.method === 'PATCH';
const write: ApiRequest = { method: 'POST', path: '/api/v2/AlertProfiles', body: { alertProfileId: 'MY_PROFILE', extends: 'SVC_BASE', alerts: [] } };

/** The client's clock: far from the service's, which it never judges. */
let local = 0;
function options(extra: LeaseOptions = {}): LeaseOptions {
  return {
    holder: 'run A',
    owner: 'owner-a',
    heartbeat: () => () => undefined,
    sleep: () => Promise.reject(new Error('slept, but this run was not asked to wait')),
    now: () => local,
    ...extra,
  };
}

async function take(service: LeaseService, accounts = [prod], extra: LeaseOptions = {}): Promise<Leases> {
  const leases = await Leases.acquire(service.client, KINDS, accounts, options(extra));
  expect(leases).toBeDefined();
  return leases!;
}

/** The lease taken, with the heartbeat's beat at hand. */
async function beating(service: LeaseService, accounts = [prod]) {
  let beat!: () => Promise<void>;
  const stops: number[] = [];
  const periods: number[] = [];
  const leases = await take(service, accounts, {
    heartbeat: (b, ms) => {
      beat = b;
      periods.push(ms);
      return () => void stops.push(1);
    },
  });
  return { leases, beat, stops, periods };
}

const failure = (p: Promise<unknown>): Promise<unknown> => p.then(
  () => new Error('resolved'),
  (e: unknown) => e,
);

/** 'pending' once every promise chain that needs no timer has run (a real macrotask later). */
const settled = () => new Promise<string>((r) => setImmediate(() => r('pending')));

afterEach(() => {
  local = 0;
  vi.useRealTimers();
});

describe('taking the lease: a create of generation n+1, which the service lets exactly one run win (409)', () => {
  it('takes generation 1 in an account without records, stamped with the service time of its look (not the client clock)', async () => {
    const service = new LeaseService(START);
    local = 5;
    const leases = await take(service);
    expect(service.records('prod')).toEqual([{ id: FIRST, generation: 1, data: { owner: 'owner-a', holder: 'run A', stamp: START } }]);
    expect(leases.report()).toEqual({ accounts: ['prod'], waitedSeconds: 0, notes: [] });
    expect(service.sent.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v2/AlertProfiles', 'POST /api/v2/AlertProfiles']);
  });

  it('takes the accounts in name order, whatever order they come in', async () => {
    const service = new LeaseService(START);
    const leases = await take(service, [staging, prod]);
    expect(service.requests('POST').map((r) => r.account)).toEqual(['prod', 'staging']);
    expect(leases.report().accounts).toEqual(['prod', 'staging']);
  });

  it('asks by account name, or with Org-Access and no name for an organization-level account', async () => {
    const service = new LeaseService(START);
    const leases = await take(service, [prod, org]);
    await leases.request('org', write);
    await leases.request('prod', write);
    for (const r of service.sent) {
      if (r.account === undefined) expect(r.orgAccess).toBe(true);
      else expect([r.account, r.orgAccess]).toEqual(['prod', undefined]);
    }
    expect(service.sent.filter((r) => r.orgAccess).map((r) => r.method)).toEqual(['GET', 'POST', 'GET', 'POST']);
  });

  it('is no lease at all, and no request, when no kind of the registry offers one', async () => {
    const service = new LeaseService(START);
    expect(await Leases.acquire(service.client, [], [prod], options())).toBeUndefined();
    expect(service.sent).toEqual([]);
  });

  it('refuses an answer without a Date header: the lease judges time by the service clock only', async () => {
    const service = new LeaseService(START);
    service.undated = true;
    expect(await failure(take(service))).toEqual(
      new Error("the service's answer for account prod carries no Date header: the apply lease judges time by the service's clock only"),
    );
    expect(service.requests('POST')).toEqual([]);
  });

  it('a create refused with 409 lost the race: it looks again and stops at the winner, whose lease it is', async () => {
    const service = new LeaseService(START);
    service.before = (req) => {
      if (req.method === 'POST') service.put('prod', 1, OTHER);
    };
    const err = await failure(take(service));
    expect(err).toBeInstanceOf(LeaseHeldError);
    expect((err as LeaseHeldError).holder).toBe('other run');
    expect(service.sent.map((r) => r.method)).toEqual(['GET', 'POST', 'GET']);
  });

  it('gives up after five creates lost in a row, saying the lease changed hands', async () => {
    const service = new LeaseService(START);
    service.limit = 20;
    service.before = (req) => {
      if (req.method === 'POST') throw serviceError(req, 409);
    };
    expect(await failure(take(service))).toEqual(new Error('the lease of account prod changed hands 5 times while this run tried to take it'));
    expect(service.requests('POST')).toHaveLength(5);
  });

  it('a create whose outcome is unknown was won when the records show that generation with this run as owner', async () => {
    const service = new LeaseService(START);
    service.put('prod', 1, OTHER);
    service.advance(LEASE_STALE_MS);
    let failed = false;
    service.after = (req) => {
      if (req.method === 'POST' && !failed) {
        failed = true;
        throw serviceError(req, 502, 'outcome-unknown');
      }
    };
    const leases = await take(service);
    expect(service.requests('POST')).toHaveLength(1);
    expect(service.records('prod')).toEqual([{ id: 'POSTUREOPS_LEASE_2', generation: 2, data: { owner: 'owner-a', holder: 'run A', stamp: START + LEASE_STALE_MS } }]);
    expect(leases.report().accounts).toEqual(['prod']);
  });

  it('a create whose outcome is unknown and that did not land is tried again', async () => {
    const service = new LeaseService(START);
    let failed = false;
    service.before = (req) => {
      if (req.method === 'POST' && !failed) {
        failed = true;
        throw serviceError(req, 502, 'outcome-unknown');
      }
    };
    await take(service);
    expect(service.requests('POST').map((r) => (r.body as { alertProfileId: string }).alertProfileId)).toEqual([FIRST, FIRST]);
    expect(service.records('prod')[0].data?.owner).toBe('owner-a');
  });

  it('a create whose outcome is unknown, where another run created that generation, is lost to that run', async () => {
    const service = new LeaseService(START);
    service.before = (req) => {
      if (req.method !== 'POST') return;
      service.put('prod', 1, OTHER);
      throw serviceError(req, 502, 'outcome-unknown');
    };
    const err = await failure(take(service));
    expect(err).toBeInstanceOf(LeaseHeldError);
    expect((err as Error).message).toContain('(other run; renewed 0s ago');
    expect(service.requests('POST')).toHaveLength(1);
  });

  it('a create whose outcome is unknown, where that generation is unreadable, is lost: the record blocks until unlock', async () => {
    const service = new LeaseService(START);
    service.before = (req) => {
      if (req.method !== 'POST') return;
      service.put('prod', 1, 'edited');
      throw serviceError(req, 502, 'outcome-unknown');
    };
    const err = await failure(take(service));
    expect(err).toBeInstanceOf(LeaseHeldError);
    expect((err as LeaseHeldError).ageMs).toBeUndefined();
  });

  it('any other failure of a create stops the run, and the leases it took are freed', async () => {
    const service = new LeaseService(START);
    service.before = (req) => {
      if (req.method === 'POST' && req.account === 'staging') throw serviceError(req, 403);
    };
    const err = await failure(take(service, [prod, staging]));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(403);
    expect(service.records('prod')).toEqual([]);
  });
});

describe('a lease another run holds', () => {
  it('stops the run at once by default: no wait, no sleep, the age by the service clock in the message', async () => {
    const service = new LeaseService(START);
    service.put('prod', 1, OTHER);
    service.advance(30_000);
    const waits: string[] = [];
    const err = await failure(take(service, [prod], { onWait: (account) => waits.push(account) }));
    expect(err).toBeInstanceOf(LeaseHeldError);
    expect(err).toMatchObject({ name: 'LeaseHeldError', account: 'prod', holder: 'other run', ageMs: 30_000, waitedSeconds: 0 });
    expect((err as Error).message).toBe(
      "another apply holds the lease of account prod (other run; renewed 30s ago by the service's clock; free after 120s without renewal): nothing was changed",
    );
    expect(waits).toEqual([]);
  });

  it('waits in pauses of at most pollMs and the wait left, says so once, and stops when the wait is over', async () => {
    const service = new LeaseService(START);
    service.put('prod', 1, OTHER);
    const pauses: number[] = [];
    const waits: unknown[] = [];
    const err = await failure(
      take(service, [prod], {
        waitMs: 45_000,
        pollMs: 30_000,
        onWait: (account, other) => waits.push([account, other]),
        sleep: async (ms) => {
          pauses.push(ms);
          service.advance(ms);
        },
      }),
    );
    expect(pauses).toEqual([30_000, 15_000]);
    expect(waits).toEqual([['prod', { holder: 'other run' }]]);
    expect((err as Error).message).toBe(
      "another apply holds the lease of account prod (other run; renewed 45s ago by the service's clock; free after 120s without renewal) after waiting 45s: nothing was changed",
    );
    expect((err as LeaseHeldError).waitedSeconds).toBe(45);
  });

  it('sleeps until the lease is free by service time (a second past 120 s), then takes it over and says so', async () => {
    const service = new LeaseService(START);
    service.put('prod', 1, OTHER);
    service.advance(100_000);
    const pauses: number[] = [];
    const leases = await take(service, [prod], {
      waitMs: 600_000,
      pollMs: 30_000,
      sleep: async (ms) => {
        pauses.push(ms);
        service.advance(ms);
      },
    });
    expect(pauses).toEqual([21_000]);
    expect(leases.report()).toEqual({
      accounts: ['prod'],
      waitedSeconds: 21,
      notes: ['waited 21s for another apply in account prod', 'took over the lease of account prod from other run (not renewed for 121s)'],
    });
    expect(service.records('prod').map((r) => r.id)).toEqual(['POSTUREOPS_LEASE_2']);
  });

  it('polls an unreadable lease record at pollMs and never takes it over: unlock frees it', async () => {
    const service = new LeaseService(START);
    service.put('prod', 1, 'edited');
    service.advance(3_600_000);
    const pauses: number[] = [];
    const err = await failure(
      take(service, [prod], {
        waitMs: 70_000,
        pollMs: 30_000,
        sleep: async (ms) => {
          pauses.push(ms);
          service.advance(ms);
        },
      }),
    );
    expect(pauses).toEqual([30_000, 30_000, 10_000]);
    expect((err as Error).message).toBe(
      'another apply holds the lease of account prod (unknown holder; its lease record cannot be read (edited?): postureops unlock frees it) after waiting 70s: nothing was changed',
    );
  });

  it('is free exactly 120 s of service time after its last renewal, not a millisecond before', async () => {
    const service = new LeaseService(START);
    service.put('prod', 1, OTHER);
    service.advance(LEASE_STALE_MS - 1);
    expect(await failure(take(service))).toBeInstanceOf(LeaseHeldError);
    service.advance(1);
    await take(service);
    expect(service.records('prod').map((r) => r.data?.owner)).toEqual(['owner-a']);
  });

  it('shows the holder the service sent neutralised and cut to 200 characters; an empty one as unknown', async () => {
    const service = new LeaseService(START);
    service.put('prod', 1, { ...OTHER, holder: `${'h'.repeat(300)}` });
    service.put('staging', 1, { ...OTHER, holder: '' });
    service.put(ORG, 1, { ...OTHER, holder: 'evil\u001b[2Jrun' });
    const [long, empty, escaped] = await Promise.all([prod, staging, org].map((a) => failure(take(service, [a]))));
    expect((long as Error).message).toContain(`(${'h'.repeat(200)}; renewed`);
    expect((empty as Error).message).toContain('(unknown holder; renewed');
    expect((escaped as Error).message).not.toContain('\u001b');
    expect((escaped as Error).message).toContain('run; renewed');
  });

  it('an age is never negative, whatever the stamp (a record renewed by a service clock ahead of this answer)', () => {
    expect(leaseAge({ id: FIRST, generation: 1, data: { ...OTHER, stamp: START + 5_000 } }, START)).toBe(0);
    expect(leaseAge({ id: FIRST, generation: 1 }, START)).toBeUndefined();
  });
});

describe('the fence before each write', () => {
  it('an account without a lease: no fence, no write through the lease, no reads or contexts', async () => {
    const service = new LeaseService(START);
    const leases = await take(service);
    const before = service.sent.length;
    await leases.fence('staging');
    expect(await failure(leases.request('staging', write))).toEqual(new Error('no lease is held in account staging'));
    expect([leases.check('staging'), leases.fresh('staging'), leases.requestContextOf('staging')]).toEqual([undefined, undefined, undefined]);
    expect(service.sent).toHaveLength(before);
  });

  it('a fresh lease: one look, then the write is sent to its account', async () => {
    const service = new LeaseService(START);
    const leases = await take(service);
    service.sent.length = 0;
    await leases.request('prod', write);
    expect(service.sent.map((r) => [r.method, r.account])).toEqual([
      ['GET', 'prod'],
      ['POST', 'prod'],
    ]);
    expect(service.profiles('prod').has('MY_PROFILE')).toBe(true);
  });

  it('writes that ask together share one look', async () => {
    const service = new LeaseService(START);
    const leases = await take(service);
    service.sent.length = 0;
    await Promise.all([leases.fence('prod'), leases.fence('prod'), leases.fence('prod')]);
    expect(service.sent.map((r) => r.method)).toEqual(['GET']);
  });

  it('a write that asks while a look is in flight waits for a look of its own, which starts after it asked', async () => {
    const service = new LeaseService(START);
    const leases = await take(service);
    service.sent.length = 0;
    const held = gate(service, isLook);
    const first = leases.fence('prod');
    await Promise.race([held.reached, first]);
    const second = leases.fence('prod');
    held.open();
    await Promise.all([first, second]);
    expect(service.sent.map((r) => r.method)).toEqual(['GET', 'GET']);
  });

  it('renews a lease 60 s old by service time (and looks again); one a millisecond younger is left alone', async () => {
    const service = new LeaseService(START);
    const leases = await take(service);
    service.advance(LEASE_RENEW_MS - 1);
    await leases.fence('prod');
    expect(service.requests('PATCH')).toEqual([]);
    service.advance(1);
    service.sent.length = 0;
    await leases.fence('prod');
    expect(service.sent.map((r) => r.method)).toEqual(['GET', 'PATCH', 'GET']);
    expect(service.records('prod')[0].data).toEqual({ owner: 'owner-a', holder: 'run A', stamp: START + LEASE_RENEW_MS });
    // Renewed: the next fence has nothing to renew.
    service.advance(LEASE_RENEW_MS - 1);
    await leases.fence('prod');
    expect(service.requests('PATCH')).toHaveLength(1);
  });

  it("renews at the heartbeat's 30 s when asked, also when a write's fence shares that look", async () => {
    const service = new LeaseService(START);
    const leases = await take(service);
    service.advance(40_000);
    await leases.fence('prod', 30_000);
    expect(service.requests('PATCH')).toHaveLength(1);
    service.advance(40_000);
    await Promise.all([leases.fence('prod', 30_000), leases.fence('prod')]);
    expect(service.requests('PATCH')).toHaveLength(2);
    expect(service.requests('GET')).toHaveLength(5);
  });

  it('a record deleted by someone: the lease is lost, and stays lost without another look', async () => {
    const service = new LeaseService(START);
    const leases = await take(service);
    service.profiles('prod').delete(FIRST);
    const err = await failure(leases.request('prod', write));
    expect(err).toBeInstanceOf(LeaseLostError);
    expect(err).toMatchObject({ name: 'LeaseLostError', account: 'prod', why: 'its lease record was deleted' });
    expect((err as Error).message).toBe("the apply lease of account prod is no longer this run's (its lease record was deleted): stopped before the next write");
    const sent = service.sent.length;
    expect(await failure(leases.fence('prod'))).toEqual(err);
    expect(service.sent).toHaveLength(sent);
    expect(service.profiles('prod').has('MY_PROFILE')).toBe(false);
  });

  it.each([
    ['a newer generation by another run', (s: LeaseService) => s.put('prod', 2, OTHER), 'another apply took it over (other run)'],
    ['a newer generation nobody can read', (s: LeaseService) => s.put('prod', 2, 'edited'), 'another apply took it over (unknown holder)'],
    ['its record edited by hand', (s: LeaseService) => s.put('prod', 1, 'edited'), 'its lease record was changed by someone else'],
    ['its record with another owner', (s: LeaseService) => s.put('prod', 1, { owner: 'owner-b', holder: 'run A', stamp: START }), 'its lease record was changed by someone else'],
    ['its record with another stamp', (s: LeaseService) => s.put('prod', 1, { owner: 'owner-a', holder: 'run A', stamp: START + 1 }), 'its lease record was changed by someone else'],
    ['its record with another holder', (s: LeaseService) => s.put('prod', 1, { owner: 'owner-a', holder: 'run B', stamp: START }), 'its lease record was changed by someone else'],
    ['its record not renewed for 120 s of service time', (s: LeaseService) => s.advance(LEASE_STALE_MS), "it was not renewed for 120s of the service's time, so another apply may take it"],
  ])('the lease is lost to %s: the write is not sent', async (_, change, why) => {
    const service = new LeaseService(START);
    const leases = await take(service);
    change(service);
    const err = await failure(leases.request('prod', write));
    expect(err).toBeInstanceOf(LeaseLostError);
    expect((err as LeaseLostError).why).toBe(why);
    expect(service.requests('PATCH')).toEqual([]);
    expect(service.profiles('prod').has('MY_PROFILE')).toBe(false);
  });

  it('a takeover names the holder of the stale lease it took over, not of older records left over', async () => {
    const service = new LeaseService(START);
    service.put('prod', 1, { ...OTHER, holder: 'older run' });
    service.put('prod', 2, OTHER);
    service.advance(LEASE_STALE_MS);
    const leases = await take(service);
    expect(leases.report().notes).toEqual(['took over the lease of account prod from other run (not renewed for 120s)']);
    expect(service.records('prod').map((r) => r.id)).toEqual(['POSTUREOPS_LEASE_3']);
  });

  it('an older record left over (its deletion failed at the takeover) does not make the lease look lost', async () => {
    const service = new LeaseService(START);
    service.put('prod', 1, OTHER);
    service.advance(LEASE_STALE_MS);
    service.before = (req) => {
      if (req.method === 'DELETE') throw serviceError(req, 500);
    };
    const leases = await take(service);
    expect(leases.report().notes).toEqual([
      'took over the lease of account prod from other run (not renewed for 120s)',
      'an old lease record of account prod (POSTUREOPS_LEASE_1) could not be deleted: DELETE /api/v2/AlertProfiles/POSTUREOPS_LEASE_1 failed (transient): 500',
    ]);
    await leases.request('prod', write);
    expect(service.profiles('prod').has('MY_PROFILE')).toBe(true);
  });

  it('a renewal answered 404 (the record deleted after the look) loses the lease', async () => {
    const service = new LeaseService(START);
    const leases = await take(service);
    service.advance(LEASE_RENEW_MS);
    service.before = (req) => {
      if (isRenewal(req)) service.profiles('prod').delete(FIRST);
    };
    const err = await failure(leases.fence('prod'));
    expect(err).toEqual(new LeaseLostError('prod', 'its lease record was deleted'));
    const sent = service.sent.length;
    expect(await failure(leases.fence('prod'))).toBeInstanceOf(LeaseLostError);
    expect(service.sent).toHaveLength(sent);
  });

  it('a renewal that fails otherwise is an error, not a loss: the next fence renews', async () => {
    const service = new LeaseService(START);
    const leases = await take(service);
    service.advance(LEASE_RENEW_MS);
    let failed = false;
    service.before = (req) => {
      if (isRenewal(req) && !failed) {
        failed = true;
        throw serviceError(req, 500);
      }
    };
    const err = await failure(leases.fence('prod'));
    expect(err).toBeInstanceOf(ApiError);
    await leases.fence('prod');
    expect(service.requests('PATCH')).toHaveLength(2);
    expect(service.records('prod')[0].data?.stamp).toBe(START + LEASE_RENEW_MS);
  });

  it('a fence queued behind the look that found the loss fails without a look of its own', async () => {
    const service = new LeaseService(START);
    const leases = await take(service);
    service.profiles('prod').delete(FIRST);
    service.sent.length = 0;
    const held = gate(service, isLook);
    const first = failure(leases.fence('prod'));
    await Promise.race([held.reached, first]);
    const second = failure(leases.fence('prod'));
    held.open();
    expect(await first).toBeInstanceOf(LeaseLostError);
    expect(await second).toEqual(new LeaseLostError('prod', 'its lease record was deleted'));
    expect(service.sent.map((r) => r.method)).toEqual(['GET']);
  });
});

describe('the heartbeat, and the timers behind it and the waits', () => {
  it('starts with the first lease, every 60 s, and stops at release', async () => {
    const service = new LeaseService(START);
    const { leases, periods, stops } = await beating(service);
    expect(periods).toEqual([LEASE_HEARTBEAT_MS]);
    expect(stops).toEqual([]);
    await leases.release();
    expect(stops).toEqual([1]);
  });

  it('skips a lease confirmed less than 45 s ago by the client clock; then confirms it, renewing it at 30 s of service time', async () => {
    local = 1_000_000;
    const service = new LeaseService(START);
    const { beat } = await beating(service);
    service.sent.length = 0;
    service.advance(30_000);
    local += (LEASE_HEARTBEAT_MS * 3) / 4 - 1;
    await beat();
    expect(service.sent).toEqual([]);
    local += 1;
    await beat();
    expect(service.sent.map((r) => r.method)).toEqual(['GET', 'PATCH', 'GET']);
    expect(service.records('prod')[0].data?.stamp).toBe(START + 30_000);
    // Confirmed now: the next beat waits another 45 s.
    await beat();
    expect(service.sent).toHaveLength(3);
  });

  it('a beat while another runs does nothing', async () => {
    local = 1_000_000;
    const service = new LeaseService(START);
    const { beat } = await beating(service);
    service.sent.length = 0;
    local += LEASE_HEARTBEAT_MS;
    const held = gate(service, isLook);
    const first = beat();
    await Promise.race([held.reached, first]);
    const second = beat().then(() => 'returned');
    expect(await Promise.race([second, settled()])).toBe('returned');
    held.open();
    await first;
    expect(service.sent.map((r) => r.method)).toEqual(['GET']);
  });

  it('a renewal that fails is a note (tried again at the next beat); a loss is not: the next write stops', async () => {
    local = 1_000_000;
    const service = new LeaseService(START);
    const { leases, beat } = await beating(service);
    service.advance(LEASE_RENEW_MS);
    service.before = (req) => {
      if (isRenewal(req)) throw serviceError(req, 500);
    };
    local += LEASE_HEARTBEAT_MS;
    await beat();
    expect(leases.report().notes).toEqual(['a renewal of the lease of account prod failed: PATCH /api/v2/AlertProfiles/POSTUREOPS_LEASE_1 failed (transient): 500']);
    service.profiles('prod').delete(FIRST);
    await beat();
    expect(leases.report().notes).toHaveLength(1);
    expect(await failure(leases.request('prod', write))).toEqual(new LeaseLostError('prod', 'its lease record was deleted'));
  });

  it('waits through the injected sleep only, never a timer of its own', async () => {
    vi.useFakeTimers({ now: START, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    const service = new LeaseService(START);
    service.put('prod', 1, OTHER);
    const pauses: number[] = [];
    const taking = take(service, [prod], {
      waitMs: 600_000,
      sleep: async (ms) => {
        pauses.push(ms);
        service.advance(ms);
      },
    }).then(() => 'taken');
    expect(await Promise.race([taking, settled()])).toBe('taken');
    expect(pauses).toEqual([30_000, 30_000, 30_000, 30_000]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("without injected timers: the default sleep waits on the clock's timer, the default heartbeat is an interval release clears", async () => {
    vi.useFakeTimers({ now: START });
    const service = new LeaseService(START);
    service.clock = () => Date.now();
    // Free in 1 s by service time: the run sleeps 2 s (a second past it).
    service.put('prod', 1, { ...OTHER, stamp: START - LEASE_STALE_MS + 1_000 });
    let taken: Leases | undefined;
    const taking = Leases.acquire(service.client, KINDS, [prod], { holder: 'run A', owner: 'owner-a', waitMs: 30_000 }).then((l) => (taken = l));
    await vi.advanceTimersByTimeAsync(1_999);
    expect(taken).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(taken?.report().accounts).toEqual(['prod']);
    await taking;
    service.sent.length = 0;
    await vi.advanceTimersByTimeAsync(LEASE_HEARTBEAT_MS);
    expect(service.sent.map((r) => r.method)).toEqual(['GET', 'PATCH', 'GET']);
    await taken!.release();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('release', () => {
  it('deletes the record of every lease held; a second release does nothing', async () => {
    const service = new LeaseService(START);
    const leases = await take(service, [prod, staging]);
    await leases.release();
    expect([service.records('prod'), service.records('staging')]).toEqual([[], []]);
    const sent = service.sent.length;
    await leases.release();
    expect(service.sent).toHaveLength(sent);
    expect(leases.report().notes).toEqual([]);
  });

  it('deletes its own record, not an older one left over before it', async () => {
    const service = new LeaseService(START);
    service.put('prod', 1, OTHER);
    service.advance(LEASE_STALE_MS);
    let refuse = true;
    service.before = (req) => {
      if (req.method === 'DELETE' && refuse) throw serviceError(req, 500);
    };
    const leases = await take(service);
    refuse = false;
    await leases.release();
    expect(service.records('prod').map((r) => r.id)).toEqual([FIRST]);
  });

  it('leaves a record someone changed in place, and says unlock frees it', async () => {
    const service = new LeaseService(START);
    const leases = await take(service);
    service.put('prod', 1, 'edited');
    await leases.release();
    expect(service.records('prod').map((r) => r.id)).toEqual([FIRST]);
    expect(leases.report().notes).toEqual(['the lease record of account prod (POSTUREOPS_LEASE_1) was changed by someone else: left in place, postureops unlock frees it']);
  });

  it('says nothing when its record is gone, or when a newer generation shows the record is another run’s now', async () => {
    const service = new LeaseService(START);
    const leases = await take(service, [prod, staging]);
    service.profiles('prod').delete(FIRST);
    // After an unlock, the next run took generation 1 of staging and then 2.
    service.put('staging', 1, OTHER);
    service.put('staging', 2, OTHER);
    await leases.release();
    expect(leases.report().notes).toEqual([]);
    expect(service.records('staging').map((r) => r.id)).toEqual([FIRST, 'POSTUREOPS_LEASE_2']);
  });

  it('a record that cannot be deleted is left with a note: free 120 s after its last renewal, or by unlock; release never throws', async () => {
    const service = new LeaseService(START);
    const leases = await take(service);
    service.before = (req) => {
      if (req.method === 'DELETE') throw serviceError(req, 500);
    };
    await leases.release();
    expect(leases.report().notes).toEqual([
      'the lease record of account prod (POSTUREOPS_LEASE_1) could not be deleted (DELETE /api/v2/AlertProfiles/POSTUREOPS_LEASE_1 failed (transient): 500): it is free 120s after its last renewal, or run postureops unlock',
    ]);
  });

  it('removeLease: a record gone already is fine; another failure is thrown', async () => {
    const service = new LeaseService(START);
    await removeLease(service.client, profileLease, prod, FIRST);
    expect(service.requests('DELETE')).toHaveLength(1);
    service.before = (req) => {
      throw serviceError(req, 403);
    };
    expect(await failure(removeLease(service.client, profileLease, prod, FIRST))).toMatchObject({ status: 403 });
  });
});

describe('what the engine asks of a lease', () => {
  it('owns the lease records and nothing of the user', async () => {
    const leases = await take(new LeaseService(START));
    expect(leases.owns({ kind: 'AlertProfile', account: 'prod', name: FIRST, id: FIRST, spec: {} })).toBe(true);
    expect(leases.owns({ kind: 'AlertProfile', account: 'prod', name: 'MY_PROFILE', id: 'MY_PROFILE', spec: {} })).toBe(false);
  });

  it('gives fresh reads of a held account, the reads taken under it, and a request context that resolves nothing', async () => {
    const service = new LeaseService(START);
    const leases = await take(service);
    const fresh = leases.fresh('prod')!;
    expect(fresh.account).toBe('prod');
    expect(await fresh.get('/api/v2/AlertProfiles')).toMatchObject([{ alertProfileId: 'SVC_BASE' }, { alertProfileId: FIRST }]);
    expect(leases.check('prod')?.account).toBe('prod');
    const ctx = leases.requestContextOf('prod')!;
    expect([ctx.account, ctx.orgAccess]).toEqual(['prod', false]);
    expect(() => ctx.resolve('AlertChannel', 'x')).toThrow('a lease record refers to nothing');
  });

  it('keeps the notes the engine adds', async () => {
    const leases = await take(new LeaseService(START));
    leases.note('a note of the engine');
    expect(leases.report().notes).toEqual(['a note of the engine']);
  });

  it('reads one look with its records, the newest as the lease, and the service time', async () => {
    const service = new LeaseService(START);
    service.put('prod', 2, OTHER);
    service.put('prod', 1, OTHER);
    const look = await lookAt(service.client, profileLease, prod);
    expect([look.records.map((r) => r.id), look.top?.id, look.date]).toEqual([[FIRST, 'POSTUREOPS_LEASE_2'], 'POSTUREOPS_LEASE_2', START]);
  });
});

describe('the default holder shown to other runs', () => {
  it('names the GitHub run, with its repository when known', () => {
    expect(defaultHolder({ GITHUB_RUN_ID: '42', GITHUB_REPOSITORY: 'acme/posture' })).toBe('GitHub run acme/posture #42');
    expect(defaultHolder({ GITHUB_RUN_ID: '42' })).toBe('GitHub run #42');
  });

  it('names user, host and process otherwise; "unknown" when the system has no user name', async () => {
    const { hostname, userInfo } = await import('node:os');
    expect(defaultHolder({})).toBe(`${userInfo().username}@${hostname()} pid ${process.pid}`);
    expect(
      defaultHolder({}, () => {
        throw new Error('no user name');
      }),
    ).toBe(`unknown@${hostname()} pid ${process.pid}`);
  });
});
