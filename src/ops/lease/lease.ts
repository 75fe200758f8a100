// The apply lease: one apply writes at a time, across machines, held in a record of the service
// itself (lease-record.ts: an alert profile of one account, the run's home). One lease covers every
// account a run holds, so what it costs grows with neither the writes nor the accounts.
//
// What must hold: no write of one holder is processed by the service after another holder has
// started to read or write. How:
// - Atomic: the lease is a chain of generations; a run takes it by creating generation n+1 where n is
//   the newest it saw. The service refuses a create of an id that exists, so of two runs that saw n,
//   one wins. The winner removes the generation it replaced (superseded, not freed).
// - Fenced by time, by the service's clock: a holder writes only while its fence is open, from the
//   send time of the read that confirmed its record (unchanged and newest; its Date is the stamp the
//   record carries) for LEASE_LIFETIME_MS minus a margin (the Date header's one-second resolution and
//   the longest a request may take: the client aborts every attempt at that bound). So every write
//   it sends is processed before stamp + lifetime by the service's clock, and another run takes the
//   lease over only from a read dated at or after that. The fence is judged as each write leaves
//   (the client's gate, after any rate-limit wait), never by a read per write.
// - Renewed before it closes: a read showing the record unchanged, then a PATCH stamped with that
//   read's Date. Only its success before the old fence closes moves the fence (to the read's send
//   time plus the same span); an unknown outcome leaves the old fence; a late one revives nothing.
//   A pause of the process (its wall clock moved further than its monotonic one) closes the fence.
// - Never deleted to free it: a finished run marks it released once every write it sent was
//   answered, or the margin passed since it gave up on one; `unlock` marks it freed. A run finding it
//   released takes over at once; finding none, a freed one or an edited one (nobody can know when its
//   holder last wrote), it waits the lifetime plus the margin before the read it takes it from.

import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { ApiError, type ApiClient, type ApiRequest, type RequestGate } from '../../api/types.js';
import type { AccountConfig } from '../../model/account.js';
import type { LeaseReport } from '../../model/plan.js';
import type { RequestContext } from '../../kinds/types.js';
import { inertText } from '../../model/inert.js';
import { compareText } from '../../model/compare.js';
import { bucketOf } from '../../api/buckets.js';
import { createLeaseRequest, LEASE_LIST_PATH, type LeaseData, type LeaseRecord, leaseId, leaseRecords, writeLeaseRequest } from './lease-record.js';

/** A lease not renewed for this long (service time) may be taken over. */
export const LEASE_LIFETIME_MS = 2 * 60_000;
/** The Date header's resolution: a date is the service's time cut to the second. */
export const DATE_RESOLUTION_MS = 1000;
/** The wall clock may run ahead of the monotonic one by this much before it counts as a pause. */
export const PAUSE_TOLERANCE_MS = 1000;
/** A renewal starts when the fence has this long left (paced: about one a minute). */
export const RENEW_LEAD_MS = 20_000;
/** Longest wait for the writes in flight and the margin before a release is given up. */
export const RELEASE_DEADLINE_EXTRA_MS = 5_000;
/** The release's own request bound (it is sent whatever stopped the run). */
export const RELEASE_REQUEST_MS = 10_000;
const DEFAULT_POLL_MS = 30_000;
/** Creates lost to another run before giving up (each loss means another run took the lease). */
const MAX_CREATE_RACES = 5;
/** The client's bound when it does not say (the default request timeout). */
const DEFAULT_REQUEST_BOUND_MS = 30_000;

/** The margin of a fence: the Date header's resolution and the longest a request may take. */
export function leaseMarginMs(requestBoundMs: number): number {
  return DATE_RESOLUTION_MS + requestBoundMs;
}

/** The clocks of a lease: monotonic for its fence, wall to find pauses, and its sleep. */
export interface LeaseClock {
  mono(): number;
  wall(): number;
  sleep(ms: number): Promise<void>;
}

export function systemLeaseClock(): LeaseClock {
  return {
    mono: () => performance.timeOrigin + performance.now(),
    wall: Date.now,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  };
}

/** What a wait for the lease is about, for its countdown. */
export interface LeaseWait {
  /** `held`: another apply holds it; `unknown`: no record, a freed or an edited one (the rule's wait). */
  why: 'held' | 'unknown';
  /** The other holder, neutralised; undefined when unknown. */
  holder?: string;
  /** Seconds until this run reads again (held) or takes it (unknown). */
  secondsLeft: number;
  /** Held: seconds until the wait allowed (LeaseOptions.waitMs) is over, the looks between included. */
  waitLeftSeconds?: number;
}

export interface LeaseOptions {
  /** Shown to other runs while this one holds the lease; default: user@host and pid, or the CI run. */
  holder?: string;
  /** Unique per run; default a random UUID. */
  owner?: string;
  /** Longest wait for a lease another apply holds; 0 (the default): stop at once. */
  waitMs?: number;
  /** Time between looks while waiting (at most); default 30 s. */
  pollMs?: number;
  clock?: LeaseClock;
  /** Ends a wait at once (LeaseWaitStopped). */
  signal?: AbortSignal;
  /** Called at least once a second while the run waits for the lease (a countdown), and with 0 seconds left when a pause ends. */
  onWait?: (wait: LeaseWait) => void;
  /** The longest one request may take; default the client's bound. */
  requestBoundMs?: number;
  /** Starts the heartbeat (calls `beat` every `ms`) and returns its stop; default a timer on the lease clock. */
  heartbeat?: (beat: () => Promise<void>, ms: number) => () => void;
}

/** Another apply holds the lease: nothing was changed (the run stopped before reading the live state). */
export class LeaseHeldError extends Error {
  constructor(
    readonly account: string,
    readonly holder: string,
    /** Service time since its last renewal. */
    readonly ageMs: number,
    readonly waitedSeconds: number,
  ) {
    super(
      `another apply holds the lease (in account ${account}; ${holderText(holder)}; renewed ${Math.round(ageMs / 1000)}s ago by the service's clock; free after ${LEASE_LIFETIME_MS / 1000}s without renewal)${waitedSeconds > 0 ? ` after waiting ${waitedSeconds}s` : ''}: nothing was changed`,
    );
    this.name = 'LeaseHeldError';
  }
}

/** The lease is no longer this run's (or its fence closed): the write it guarded was not sent. */
export class LeaseLostError extends Error {
  constructor(
    readonly account: string,
    readonly why: string,
  ) {
    super(`the apply lease (in account ${account}) is no longer this run's (${why}): stopped before the next write`);
    this.name = 'LeaseLostError';
  }
}

/** A wait for the lease ended by the stop signal: nothing was changed. */
export class LeaseWaitStopped extends Error {
  constructor(readonly waitedSeconds: number) {
    super(`the wait for the apply lease was ended after ${waitedSeconds}s: nothing was changed`);
    this.name = 'LeaseWaitStopped';
  }
}

function holderText(holder: string | undefined): string {
  return holder ? inertText(holder.slice(0, 200)) : 'unknown holder';
}

/** `userName` is the system's (a parameter so that a system without one can be tested). */
export function defaultHolder(env: Record<string, string | undefined>, userName: () => string = () => userInfo().username): string {
  if (env.GITHUB_RUN_ID) return `GitHub run ${env.GITHUB_REPOSITORY ? `${env.GITHUB_REPOSITORY} ` : ''}#${env.GITHUB_RUN_ID}`;
  let user = 'unknown';
  try {
    user = userName();
  } catch {
    // no user name on this system: keep "unknown"
  }
  return `${user}@${hostname()} pid ${process.pid}`;
}

/** The account that holds the lease of a configuration: the first of its accounts by name, whatever a run narrows to. */
export function leaseHome(accounts: readonly AccountConfig[]): AccountConfig | undefined {
  return [...accounts].sort((a, b) => compareText(a.name, b.name))[0];
}

/** One look at the lease records, with the service's time of the answer. */
export interface LeaseLook {
  records: LeaseRecord[];
  /** The newest generation: the lease. */
  top?: LeaseRecord;
  /** Service time of the answer (Date header). */
  date: number;
  body: unknown;
}

export function requestContext(account: AccountConfig): RequestContext {
  return {
    account: account.name,
    orgAccess: account.orgAccess,
    resolve: () => {
      throw new Error('a lease record refers to nothing');
    },
  };
}

function addressed(account: AccountConfig, req: ApiRequest): ApiRequest {
  return { ...req, account: account.orgAccess ? undefined : account.name, orgAccess: account.orgAccess || undefined };
}

/** Reads the lease records (one list request). */
export async function lookAt(client: ApiClient, account: AccountConfig, extra: Partial<ApiRequest> = {}): Promise<LeaseLook> {
  const res = await client.request(addressed(account, { method: 'GET', path: LEASE_LIST_PATH, ...extra }));
  if (res.date === undefined) throw new Error(`the service's answer for account ${account.name} carries no Date header: the apply lease judges time by the service's clock only`);
  const records = leaseRecords(res.body);
  return { records, top: records.at(-1), date: res.date, body: res.body };
}

/** Service time since the record's last renewal; undefined when it cannot be read. */
export function leaseAge(record: LeaseRecord, date: number): number | undefined {
  return record.data ? Math.max(0, date - record.data.stamp) : undefined;
}

/** What a look says to a run that wants the lease. */
type Verdict = { take: 'now'; over?: string } | { take: 'after-wait'; over?: undefined } | { held: LeaseRecord & { data: LeaseData }; ageMs: number };

function judgeLook(look: LeaseLook): Verdict {
  const top = look.top;
  // No record, an edited one, a freed one: nobody can tell when its holder last wrote.
  if (!top || !top.data || top.data.state === 'freed') return { take: 'after-wait' };
  if (top.data.state === 'released') {
    // Stryker disable next-line ObjectLiteral,StringLiteral: 'now' is the default that take() never reads (it waits only on 'after-wait' or 'held'), so `{}` and `take: ''` take it at once alike
    return { take: 'now' };
  }
  const age = look.date - top.data.stamp;
  if (age >= LEASE_LIFETIME_MS) {
    const over = `took over the lease from ${holderText(top.data.holder)} (not renewed for ${Math.round(age / 1000)}s)`;
    // Stryker disable next-line StringLiteral: the `take: 'now'` tag, as above
    return { take: 'now', over };
  }
  return { held: top as LeaseRecord & { data: LeaseData }, ageMs: Math.max(0, age) };
}

/** The situation a rule's wait was for: the same after the wait lets the run take it. */
function situation(look: LeaseLook): string {
  const top = look.top;
  // Stryker disable next-line StringLiteral: only compared for equality, and every situation with a record starts with `N:`, so '' tells no record apart just as well
  if (!top) return 'none';
  // Stryker disable next-line StringLiteral: a record's JSON always starts with `{`, so '' tells an unreadable one apart just as well
  const shown = top.data ? JSON.stringify(top.data) : 'unreadable';
  return `${top.generation}:${shown}`;
}

/** The lease of one run, for every account it holds. */
export class Leases {
  private generation = 0;
  private data!: LeaseData;
  /** A renewal whose outcome is unknown may have written this instead. */
  private maybe?: LeaseData;
  /** Monotonic time until which writes may leave. */
  private fenceEnd = 0;
  /** Wall and monotonic times of the last look at the clocks: their drift is a pause. */
  private lastWall = 0;
  private lastMono = 0;
  private lost?: string;
  private inFlight = 0;
  private abandonedAt?: number;
  private released = false;
  private releasing?: Promise<void>;
  private renewing?: Promise<void>;
  /** Stops the heartbeat (startHeartbeat); nothing before it starts. */
  private stopBeat: () => void = () => undefined;
  private waitedMs = 0;
  private readonly notes: string[] = [];
  private readonly clock: LeaseClock;
  private readonly marginMs: number;
  private readonly accounts: AccountConfig[];
  readonly home: AccountConfig;
  private readonly opts: LeaseOptions & { holder: string; owner: string };

  private constructor(
    private readonly client: ApiClient,
    home: AccountConfig,
    accounts: readonly AccountConfig[],
    options: LeaseOptions,
  ) {
    this.home = home;
    this.accounts = [...accounts].sort((a, b) => compareText(a.name, b.name));
    this.clock = options.clock ?? systemLeaseClock();
    this.marginMs = leaseMarginMs(options.requestBoundMs ?? client.requestBoundMs?.() ?? DEFAULT_REQUEST_BOUND_MS);
    this.opts = { ...options, holder: options.holder ?? defaultHolder(process.env), owner: options.owner ?? randomUUID() };
    this.lastWall = this.clock.wall();
    this.lastMono = this.clock.mono();
  }

  /** The span of a fence: the lifetime minus the margin. */
  get fenceSpanMs(): number {
    return LEASE_LIFETIME_MS - this.marginMs;
  }

  /**
   * Takes the lease (stored in `home`) for `accounts`: LeaseHeldError when another apply holds it
   * longer than the wait allows, LeaseWaitStopped when the signal ends a wait. Resolves once the
   * fence is open; the heartbeat then renews it until `release`.
   */
  static async acquire(client: ApiClient, home: AccountConfig, accounts: readonly AccountConfig[], options: LeaseOptions = {}): Promise<Leases> {
    const leases = new Leases(client, home, accounts, options);
    await leases.take();
    leases.startHeartbeat();
    return leases;
  }

  /** Accounts this lease covers. */
  covers(account: string): boolean {
    return this.accounts.some((a) => a.name === account);
  }

  /** The gate of every write under the lease (ApiRequest.gate): the fence is judged as each attempt leaves. */
  readonly gate: RequestGate = {
    leaving: () => {
      this.checkFence();
      this.inFlight++;
    },
    landed: (answered) => {
      this.inFlight--;
      if (!answered) this.abandonedAt = this.clock.mono();
    },
  };

  /** Throws LeaseLostError unless a write may leave now. */
  checkFence(): void {
    // A pause found here is a loss like any other (notePause sets nothing once lost).
    this.notePause();
    if (this.lost) throw new LeaseLostError(this.home.name, this.lost);
    if (this.released) throw new LeaseLostError(this.home.name, 'it was released');
    if (this.clock.mono() >= this.fenceEnd) {
      this.lost = `its fence closed ${Math.round((this.clock.mono() - this.fenceEnd) / 1000)}s ago without a renewal`;
      throw new LeaseLostError(this.home.name, this.lost);
    }
  }

  /** Milliseconds the fence stays open (0 when closed or lost). */
  fenceLeftMs(): number {
    return this.lost ? 0 : Math.max(0, this.fenceEnd - this.clock.mono());
  }

  /** Sends a write to `account` under the lease (its gate). */
  async request(account: AccountConfig, req: ApiRequest): Promise<unknown> {
    return (await this.client.request({ ...addressed(account, req), gate: this.gate })).body;
  }

  requestContextOf(account: AccountConfig): RequestContext {
    return requestContext(account);
  }

  report(): LeaseReport {
    return { accounts: this.accounts.map((a) => a.name), home: this.home.name, waitedSeconds: Math.round(this.waitedMs / 1000), notes: [...this.notes] };
  }

  note(text: string): void {
    this.notes.push(text);
  }

  /**
   * Marks the lease released once every write sent was answered, or the margin passed since the run
   * gave up on one, within a deadline of its own (the margin and a little more) whatever stopped the
   * run; the release itself leaves only while the fence is open. Never throws: what it could not do
   * is in the notes (the record is then free LEASE_LIFETIME_MS after its last renewal).
   */
  release(): Promise<void> {
    // Once: an interruption and the run's close may both release it; the second waits for the first.
    this.releasing ??= this.releaseOnce();
    return this.releasing;
  }

  private async releaseOnce(): Promise<void> {
    this.stopBeat();
    await this.renewing?.catch(() => undefined);
    const deadline = this.clock.mono() + this.marginMs + RELEASE_DEADLINE_EXTRA_MS;
    const expires = `it is free ${LEASE_LIFETIME_MS / 1000}s after its last renewal, or run postureops unlock`;
    for (;;) {
      const now = this.clock.mono();
      const settledAt = this.abandonedAt === undefined ? now : this.abandonedAt + this.marginMs;
      if (this.inFlight === 0 && now >= settledAt) break;
      if (now >= deadline) {
        this.notes.push(`the lease was not released: ${this.inFlight > 0 ? 'writes were still in flight' : 'a write given up on may still reach the service'} at the release's deadline; ${expires}`);
        this.released = true;
        return;
      }
      await this.clock.sleep(Math.min(1000, Math.max(1, (this.inFlight > 0 ? now + 1000 : settledAt) - now)));
    }
    if (this.lost || this.fenceLeftMs() === 0) {
      this.released = true;
      if (!this.lost) this.notes.push(`the lease was not released: its fence had closed; ${expires}`);
      return;
    }
    try {
      const data: LeaseData = { ...this.data, state: 'released' };
      await this.client.request({
        ...addressed(this.home, writeLeaseRequest(this.generation, data, requestContext(this.home))),
        gate: this.gate,
        detached: { timeoutMs: RELEASE_REQUEST_MS },
        reserved: true,
      });
      this.notes.push('released the lease');
    } catch (err) {
      this.notes.push(`the lease could not be released (${err instanceof Error ? err.message : String(err)}): ${expires}`);
    } finally {
      this.released = true;
      this.reserve(0);
    }
  }

  /** One renewal (the heartbeat's): a read, then a PATCH stamped with its Date. */
  renew(): Promise<void> {
    if (!this.renewing) {
      this.renewing = this.renewOnce().finally(() => (this.renewing = undefined));
    }
    return this.renewing;
  }

  private async renewOnce(): Promise<void> {
    if (this.lost || this.released) return;
    this.notePause();
    const oldEnd = this.fenceEnd;
    const sentAt = this.clock.mono();
    const look = await lookAt(this.client, this.home, { reserved: true });
    const why = this.lostReason(look);
    if (why !== undefined) {
      this.lost = why;
      return;
    }
    const next: LeaseData = { ...this.data, stamp: look.date };
    try {
      await this.client.request({ ...addressed(this.home, writeLeaseRequest(this.generation, next, requestContext(this.home))), gate: this.gate, reserved: true });
    } catch (err) {
      if (err instanceof LeaseLostError) return;
      if (err instanceof ApiError && err.status === 404) {
        this.lost = 'its lease record was deleted';
        return;
      }
      // Unknown: the record may hold either; the old fence stays.
      if (!(err instanceof ApiError && err.kind === 'permanent')) this.maybe = next;
      this.notes.push(`a renewal of the lease failed (${err instanceof Error ? err.message : String(err)}): the next one tries again`);
      return;
    }
    this.data = next;
    this.maybe = undefined;
    this.reserve(1);
    // Late: a renewal that arrives after its old fence closed revives nothing.
    if (this.clock.mono() >= oldEnd || this.lost) {
      this.lost ??= 'its renewal was answered after its fence had closed';
      return;
    }
    this.fenceEnd = sentAt + this.fenceSpanMs;
  }

  /** Why a look shows the lease is no longer this run's; undefined when it is unchanged and newest. */
  private lostReason(look: LeaseLook): string | undefined {
    const own = look.records.find((r) => r.generation === this.generation);
    const top = look.top;
    if (top && top.generation > this.generation) return `another apply took it over (${holderText(top.data?.holder)})`;
    if (!own) return 'its lease record was deleted';
    const d = own.data;
    const same = (x: LeaseData | undefined) => x !== undefined && d !== undefined && d.owner === x.owner && d.stamp === x.stamp && d.holder === x.holder && d.state === x.state;
    if (!same(this.data) && !same(this.maybe)) return d?.state === 'freed' ? 'it was freed with postureops unlock' : 'its lease record was changed by someone else';
    if (this.maybe && same(this.maybe)) this.data = this.maybe;
    return undefined;
  }

  /** A pause of the process (the wall clock moved further than the monotonic one) closes the fence. */
  private notePause(): void {
    const wall = this.clock.wall();
    const mono = this.clock.mono();
    const drift = wall - this.lastWall - (mono - this.lastMono);
    this.lastWall = wall;
    this.lastMono = mono;
    if (drift > PAUSE_TOLERANCE_MS && !this.lost) this.lost = `the process was paused (its wall clock moved ${Math.round(drift / 1000)}s further than its monotonic clock)`;
  }

  /** Holds back the lease's next renewal and its release in their buckets. */
  private reserve(renewals: number): void {
    const ctx = requestContext(this.home);
    const patch = writeLeaseRequest(1, this.data, ctx);
    this.client.reserve?.(bucketOf('GET', LEASE_LIST_PATH), renewals);
    this.client.reserve?.(bucketOf(patch.method, patch.path), renewals + (renewals > 0 ? 1 : 0));
  }

  private startHeartbeat(): void {
    const period = 1000;
    // After a loss renew() sends nothing; after release the beat is stopped.
    const beat = async () => {
      this.notePause();
      if (this.fenceLeftMs() <= RENEW_LEAD_MS) await this.renew().catch((err: unknown) => this.notes.push(`a renewal of the lease failed: ${err instanceof Error ? err.message : String(err)}`));
    };
    if (this.opts.heartbeat) {
      this.stopBeat = this.opts.heartbeat(beat, period);
      return;
    }
    // A timer of its own (not the lease clock's sleep): a virtual clock moves only when the run waits.
    const timer = setInterval(() => void beat(), period);
    timer.unref();
    this.stopBeat = () => clearInterval(timer);
  }

  /**
   * A pause ended by the signal (LeaseWaitStopped), with a countdown at least once a second; `afterMs`:
   * what the wait allows after this pause (a held lease's), counted down with it.
   */
  private async pause(ms: number, wait: Omit<LeaseWait, 'secondsLeft'>, afterMs?: number): Promise<void> {
    const end = this.clock.mono() + ms;
    for (;;) {
      if (this.opts.signal?.aborted) throw new LeaseWaitStopped(Math.round(this.waitedMs / 1000));
      const left = Math.max(0, end - this.clock.mono());
      this.opts.onWait?.({ ...wait, secondsLeft: Math.ceil(left / 1000), ...(afterMs !== undefined ? { waitLeftSeconds: Math.ceil((left + afterMs) / 1000) } : {}) });
      // Told 0 when the pause is over (a countdown clears its line; a look or the take follows).
      if (left === 0) return;
      const step = Math.min(1000, left);
      await this.clock.sleep(step);
      this.waitedMs += step;
    }
  }

  private async take(): Promise<void> {
    const { opts } = this;
    const home = this.home;
    let waitedFor: string | undefined;
    let heldWaitMs = 0;
    for (let races = 0; ; ) {
      this.notePause();
      const sentAt = this.clock.mono();
      const look = await lookAt(this.client, home);
      const verdict = judgeLook(look);
      if ('held' in verdict) {
        const { held, ageMs } = verdict;
        const limit = opts.waitMs ?? 0;
        if (heldWaitMs >= limit) throw new LeaseHeldError(home.name, held.data.holder, ageMs, Math.round(this.waitedMs / 1000));
        const untilFree = LEASE_LIFETIME_MS - ageMs + DATE_RESOLUTION_MS;
        const step = Math.max(1, Math.min(opts.pollMs ?? DEFAULT_POLL_MS, limit - heldWaitMs, untilFree));
        await this.pause(step, { why: 'held', holder: holderText(held.data.holder) }, limit - heldWaitMs - step);
        heldWaitMs += step;
        continue;
      }
      if (verdict.take === 'after-wait' && waitedFor !== situation(look)) {
        // Nobody can tell when that record's holder last wrote: the lifetime and the margin, then look again.
        waitedFor = situation(look);
        const span = LEASE_LIFETIME_MS + this.marginMs;
        await this.pause(span, { why: 'unknown' });
        this.notes.push(`waited ${Math.round(span / 1000)}s before taking the lease: ${look.top ? (look.top.data ? 'it was freed with postureops unlock' : 'its record was edited') : 'no lease record was found'}`);
        continue;
      }
      const generation = (look.top?.generation ?? 0) + 1;
      const data: LeaseData = { owner: opts.owner, holder: opts.holder, stamp: look.date, state: 'held' };
      let won: boolean;
      try {
        await this.client.request(addressed(home, createLeaseRequest(generation, data, look.body, requestContext(home))));
        won = true;
      } catch (err) {
        if (err instanceof ApiError && err.status === 409) won = false;
        else if (err instanceof ApiError && err.kind === 'outcome-unknown') {
          // Created or not: the records tell.
          const again = await lookAt(this.client, home);
          won = again.records.find((r) => r.generation === generation)?.data?.owner === opts.owner;
        } else throw err;
      }
      if (!won) {
        if (++races >= MAX_CREATE_RACES) throw new Error(`the apply lease changed hands ${races} times while this run tried to take it`);
        continue;
      }
      this.generation = generation;
      this.data = data;
      // The fence opens from the send time of the read whose Date the record carries.
      this.fenceEnd = sentAt + this.fenceSpanMs;
      if (verdict.over !== undefined) this.notes.push(verdict.over);
      if (heldWaitMs > 0) this.notes.push(`waited ${Math.round(heldWaitMs / 1000)}s for another apply`);
      this.reserve(1);
      // The generation replaced is superseded (the lease is ours now): removed, so that records do not pile up.
      for (const r of look.records) {
        try {
          await this.client.request(addressed(home, { method: 'DELETE', path: writeLeaseRequest(r.generation, data, requestContext(home)).path }));
        } catch (err) {
          if (!(err instanceof ApiError && err.status === 404)) this.notes.push(`an old lease record (${leaseId(r.generation)}) could not be removed: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      return;
    }
  }
}
