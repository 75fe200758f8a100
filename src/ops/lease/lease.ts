// The apply lease: one apply writes to an account at a time, across machines, held in records of
// the service itself (the kind that offers Kind.lease stores them; today an alert profile).
//
// - Atomic: the lease is a chain of generations. A run takes it by creating generation n+1 where n
//   is the newest it saw; the service refuses a create of an id that exists, so of two runs that saw
//   n, exactly one wins. The newest generation is the lease; older ones are removed by the winner.
// - Service time only: a record carries the service's time (its Date header) of its last renewal;
//   every age is a Date header minus that stamp. The client's clock never judges expiry (it only
//   schedules the heartbeat).
// - Free after STALE_MS without renewal: a holder renews at its fences once its stamp is RENEW_MS
//   old and from a heartbeat while it waits; a dead holder's lease is taken over (create n+1).
// - Fenced: before a write the run reads the list again (one read shared by the writes that ask
//   while none is in flight) and goes on only when the newest record is still its own, unchanged,
//   and renewed less than RENEW_MS ago; otherwise LeaseLostError, and the run stops.

import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { ApiError, type ApiClient, type ApiRequest } from '../../api/types.js';
import type { AccountConfig } from '../../model/account.js';
import type { LeaseReport } from '../../model/plan.js';
import type { FetchContext, Kind, LeaseData, LeaseHook, LeaseRecord, LiveResource, RequestContext } from '../../kinds/types.js';
import { fetchContext } from '../live/fetch.js';
import { inertText } from '../../model/inert.js';
import { compareText } from '../../model/compare.js';
import { requestTarget } from '../../model/account.js';

/** A lease not renewed for this long (service time) is free. */
export const LEASE_STALE_MS = 2 * 60_000;
/** A fence renews a lease this old (service time) before it lets a write go. */
export const LEASE_RENEW_MS = 60_000;
/** The heartbeat's period (the client's clock: it only schedules). */
export const LEASE_HEARTBEAT_MS = 60_000;
const DEFAULT_POLL_MS = 30_000;
/** Creates lost to another run before giving up (each loss means another run took the lease). */
const MAX_CREATE_RACES = 5;

export interface LeaseOptions {
  /** Shown to other runs while this one holds the lease; default: user@host and pid, or the CI run. */
  holder?: string;
  /** Unique per run; default a random UUID. */
  owner?: string;
  /** Longest wait for a lease another apply holds; 0 (the default): stop at once. */
  waitMs?: number;
  /** Time between looks while waiting (at most); default 30 s. */
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Starts the heartbeat (calls `beat` every `ms`) and returns its stop; default an unref'd interval. */
  heartbeat?: (beat: () => Promise<void>, ms: number) => () => void;
  /** Called when this run starts waiting for another holder. */
  onWait?: (account: string, other: { holder: string }) => void;
  /** The client's clock: it only schedules (the heartbeat skips a lease confirmed lately), never judges expiry. */
  now?: () => number;
}

/** Another apply holds the lease of an account: nothing was changed (the engine stopped before the first write). */
export class LeaseHeldError extends Error {
  constructor(
    readonly account: string,
    readonly holder: string,
    /** Service time since its last renewal; undefined for a record that cannot be read. */
    readonly ageMs: number | undefined,
    readonly waitedSeconds: number,
  ) {
    const state =
      ageMs === undefined
        ? 'its lease record cannot be read (edited?): postureops unlock frees it'
        : `renewed ${Math.round(ageMs / 1000)}s ago by the service's clock; free after ${LEASE_STALE_MS / 1000}s without renewal`;
    super(`another apply holds the lease of account ${account} (${holderText(holder)}; ${state})${waitedSeconds > 0 ? ` after waiting ${waitedSeconds}s` : ''}: nothing was changed`);
    this.name = 'LeaseHeldError';
  }
}

/** The lease of an account is no longer this run's: the write it guarded was not sent. */
export class LeaseLostError extends Error {
  constructor(
    readonly account: string,
    readonly why: string,
  ) {
    super(`the apply lease of account ${account} is no longer this run's (${why}): stopped before the next write`);
    this.name = 'LeaseLostError';
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

/** One look at an account's lease records, with the service's time of the answer. */
export interface LeaseLook {
  records: LeaseRecord[];
  /** The newest generation: the lease (when readable and not stale). */
  top?: LeaseRecord;
  /** Service time of the answer (Date header). */
  date: number;
  body: unknown;
}

function requestContext(account: AccountConfig): RequestContext {
  return {
    account: account.name,
    orgAccess: account.orgAccess,
    resolve: () => {
      throw new Error('a lease record refers to nothing');
    },
  };
}

function send(client: ApiClient, account: AccountConfig, req: ApiRequest) {
  return client.request({ ...req, ...requestTarget(account) });
}

/** The lease hook of a registry (one kind offers it). */
export function leaseHookOf(kinds: readonly Kind[]): LeaseHook | undefined {
  return kinds.find((k) => k.lease !== undefined)?.lease;
}

/** Reads the lease records of an account (one list request). */
export async function lookAt(client: ApiClient, hook: LeaseHook, account: AccountConfig): Promise<LeaseLook> {
  const res = await send(client, account, { method: 'GET', path: hook.listPath });
  if (res.date === undefined) throw new Error(`the service's answer for account ${account.name} carries no Date header: the apply lease judges time by the service's clock only`);
  const records = hook.records(res.body);
  return { records, top: records.at(-1), date: res.date, body: res.body };
}

/** Service time since the record's last renewal; undefined when it cannot be read. */
export function leaseAge(record: LeaseRecord, date: number): number | undefined {
  return record.data ? Math.max(0, date - record.data.stamp) : undefined;
}

/** Free: no record, or the newest one readable and not renewed for LEASE_STALE_MS. */
function isFree(look: LeaseLook): boolean {
  if (!look.top) return true;
  const age = leaseAge(look.top, look.date);
  // An unreadable record has no age: never free (postureops unlock frees it).
  return (age ?? 0) >= LEASE_STALE_MS;
}

/** Deletes a lease record; gone already is fine. */
export async function removeLease(client: ApiClient, hook: LeaseHook, account: AccountConfig, id: string): Promise<void> {
  try {
    await send(client, account, hook.deleteRequest(id, requestContext(account)));
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404)) throw err;
  }
}

interface Held {
  account: AccountConfig;
  id: string;
  generation: number;
  data: LeaseData;
  /** Fresh, memoised reads taken under this lease (the look before each create uses them). */
  ctx: FetchContext;
  lost?: string;
  /** The client's clock when the lease was last confirmed: schedules the heartbeat, judges nothing. */
  confirmedAt: number;
  /** Fence batching: the confirmation running, and the one queued behind it (renewing at this age). */
  running?: Promise<void>;
  queued?: Promise<void>;
  renewAfterMs?: number;
}

/** The leases of one apply, one per account with changes, taken in account-name order. */
export class Leases {
  private readonly held = new Map<string, Held>();
  private readonly taken: string[] = [];
  private waitedMs = 0;
  private readonly notes: string[] = [];
  private stopBeat?: () => void;
  private beating?: Promise<void>;

  private constructor(
    private readonly client: ApiClient,
    private readonly hook: LeaseHook,
    private readonly opts: Required<Omit<LeaseOptions, 'onWait'>> & Pick<LeaseOptions, 'onWait'>,
  ) {}

  /** Takes the lease of every account, or none (LeaseHeldError; every lease taken is freed). Undefined when no kind offers a lease. */
  static async acquire(client: ApiClient, kinds: readonly Kind[], accounts: readonly AccountConfig[], options: LeaseOptions): Promise<Leases | undefined> {
    const hook = leaseHookOf(kinds);
    if (!hook) return undefined;
    const leases = new Leases(client, hook, {
      holder: options.holder ?? defaultHolder(process.env),
      owner: options.owner ?? randomUUID(),
      waitMs: options.waitMs ?? 0,
      pollMs: options.pollMs ?? DEFAULT_POLL_MS,
      sleep: options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))),
      heartbeat:
        options.heartbeat ??
        ((beat, ms) => {
          const timer = setInterval(() => void beat(), ms);
          timer.unref();
          return () => clearInterval(timer);
        }),
      onWait: options.onWait,
      now: options.now ?? Date.now,
    });
    const sorted = [...accounts].sort((a, b) => compareText(a.name, b.name));
    // The heartbeat runs from the first lease on: taking the others may wait (--lease-wait, a
    // rate-limited bucket) longer than a lease lives without renewal.
    leases.stopBeat = leases.opts.heartbeat(() => leases.beat(), LEASE_HEARTBEAT_MS);
    try {
      for (const account of sorted) await leases.acquireOne(account);
    } catch (err) {
      await leases.release();
      throw err;
    }
    return leases;
  }

  /** The tool's own records (never the user's resources). */
  owns(live: LiveResource): boolean {
    return this.hook.owns(live);
  }

  /** A fresh read context of `account` (memoised within itself only). */
  fresh(account: string): FetchContext | undefined {
    const held = this.held.get(account);
    return held ? fetchContext(this.client, held.account) : undefined;
  }

  /** Sends a write to the account of a held lease, fenced. */
  async request(account: string, req: ApiRequest): Promise<unknown> {
    const held = this.held.get(account);
    if (!held) throw new Error(`no lease is held in account ${account}`);
    await this.fence(account);
    return send(this.client, held.account, req);
  }

  requestContextOf(account: string): RequestContext | undefined {
    const held = this.held.get(account);
    return held ? requestContext(held.account) : undefined;
  }

  /** The reads taken under the lease of `account` (undefined without one). A lost lease stops the write that follows (its fence). */
  check(account: string): FetchContext | undefined {
    return this.held.get(account)?.ctx;
  }

  /**
   * Before a write in `account`: a read of the lease records that started after this call shows the
   * newest record is still this run's, unchanged, renewed less than LEASE_RENEW_MS ago (renewed and
   * read again when older). Writes that ask while a read is in flight share the next one.
   * Throws LeaseLostError otherwise; the lease then stays lost.
   */
  async fence(account: string, renewAfterMs = LEASE_RENEW_MS): Promise<void> {
    const held = this.held.get(account);
    if (!held) return;
    // A lost lease: the confirmation below throws without a look (`confirm` checks `lost` first).
    held.renewAfterMs = Math.min(held.renewAfterMs ?? renewAfterMs, renewAfterMs);
    if (!held.queued) {
      // One confirmation at a time per account: renewals never cross, so the record holds the stamp we
      // last wrote. `running` keeps the last confirmation once it has settled: chaining on it costs a tick.
      const queued: Promise<void> = (held.running ?? Promise.resolve())
        .catch(() => undefined)
        .then(() => {
          held.running = queued;
          held.queued = undefined;
          const renewAfter = held.renewAfterMs ?? LEASE_RENEW_MS;
          held.renewAfterMs = undefined;
          return this.confirm(held, renewAfter);
        });
      held.queued = queued;
    }
    await held.queued;
  }

  /** Frees every lease this run holds (a look, then a delete of its record while it is still its own); never throws (an undeleted record is free after LEASE_STALE_MS). */
  async release(): Promise<void> {
    this.stopBeat?.();
    this.stopBeat = undefined;
    await this.beating;
    for (const held of this.held.values()) {
      try {
        // Only a record that is still ours: after an unlock the next run may have created the same
        // generation, and an edited record stays for unlock to free (it is nobody's to judge).
        const look = await lookAt(this.client, this.hook, held.account);
        const own = look.records.find((r) => r.generation === held.generation);
        if (own?.data?.owner === held.data.owner) await removeLease(this.client, this.hook, held.account, held.id);
        else if (own && !look.records.some((r) => r.generation > held.generation)) {
          this.notes.push(`the lease record of account ${held.account.name} (${held.id}) was changed by someone else: left in place, postureops unlock frees it`);
        }
      } catch (err) {
        this.notes.push(
          `the lease record of account ${held.account.name} (${held.id}) could not be deleted (${err instanceof Error ? err.message : String(err)}): it is free ${LEASE_STALE_MS / 1000}s after its last renewal, or run postureops unlock`,
        );
      }
    }
    this.held.clear();
  }

  report(): LeaseReport {
    return { accounts: [...this.taken], waitedSeconds: Math.round(this.waitedMs / 1000), notes: [...this.notes] };
  }

  note(text: string): void {
    this.notes.push(text);
  }

  private async acquireOne(account: AccountConfig): Promise<void> {
    const { opts } = this;
    let waiting = false;
    for (let races = 0; ; ) {
      const look = await lookAt(this.client, this.hook, account);
      if (!isFree(look)) {
        const top = look.top!;
        const holder = top.data?.holder ?? '';
        if (this.waitedMs >= opts.waitMs) throw new LeaseHeldError(account.name, holder, leaseAge(top, look.date), Math.round(this.waitedMs / 1000));
        if (!waiting) opts.onWait?.(account.name, { holder: holderText(holder) });
        waiting = true;
        const age = leaseAge(top, look.date);
        const untilFree = age === undefined ? opts.pollMs : LEASE_STALE_MS - age + 1000;
        const pause = Math.max(1, Math.min(opts.pollMs, opts.waitMs - this.waitedMs, untilFree));
        await opts.sleep(pause);
        this.waitedMs += pause;
        continue;
      }
      const generation = (look.top?.generation ?? 0) + 1;
      const data: LeaseData = { owner: opts.owner, holder: opts.holder, stamp: look.date };
      let won: boolean;
      try {
        await send(this.client, account, this.hook.createRequest(generation, data, look.body, requestContext(account)));
        won = true;
      } catch (err) {
        if (err instanceof ApiError && err.status === 409) won = false;
        else if (err instanceof ApiError && err.kind === 'outcome-unknown') {
          // Created or not: the records tell.
          const again = await lookAt(this.client, this.hook, account);
          won = again.records.find((r) => r.generation === generation)?.data?.owner === opts.owner;
        } else throw err;
      }
      if (!won) {
        // Another run created that generation first: look again (it holds the lease now).
        if (++races >= MAX_CREATE_RACES) throw new Error(`the lease of account ${account.name} changed hands ${races} times while this run tried to take it`);
        continue;
      }
      this.held.set(account.name, { account, id: this.hook.recordId(generation), generation, data, ctx: fetchContext(this.client, account), confirmedAt: opts.now() });
      this.taken.push(account.name);
      if (waiting) this.notes.push(`waited ${Math.round(this.waitedMs / 1000)}s for another apply in account ${account.name}`);
      // Older generations: the stale lease just taken over, or leftovers. Ours is newer than all of them.
      for (const r of look.records) {
        if (r === look.top && r.data) {
          this.notes.push(`took over the lease of account ${account.name} from ${holderText(r.data.holder)} (not renewed for ${Math.round((leaseAge(r, look.date) ?? 0) / 1000)}s)`);
        }
        try {
          await removeLease(this.client, this.hook, account, r.id);
        } catch (err) {
          this.notes.push(`an old lease record of account ${account.name} (${r.id}) could not be deleted: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      return;
    }
  }

  /** One confirmation (see fence). */
  private async confirm(held: Held, renewAfterMs: number): Promise<void> {
    if (held.lost) throw new LeaseLostError(held.account.name, held.lost);
    let look = await lookAt(this.client, this.hook, held.account);
    this.judge(held, look);
    if (look.date - held.data.stamp >= renewAfterMs) {
      await this.renew(held, look.date);
      look = await lookAt(this.client, this.hook, held.account);
      this.judge(held, look);
    }
    held.confirmedAt = this.opts.now();
  }

  /** Marks the lease lost (and throws) unless the look shows it intact and fresh. */
  private judge(held: Held, look: LeaseLook): void {
    const why = lostReason(held, look);
    if (why === undefined) return;
    held.lost = why;
    throw new LeaseLostError(held.account.name, why);
  }

  private async renew(held: Held, date: number): Promise<void> {
    const next: LeaseData = { ...held.data, stamp: date };
    try {
      await send(this.client, held.account, this.hook.renewRequest(held.id, next, requestContext(held.account)));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        held.lost = 'its lease record was deleted';
        throw new LeaseLostError(held.account.name, held.lost);
      }
      throw err;
    }
    held.data = next;
  }

  /**
   * While the run lives (waiting for a bucket, a slow request): a confirmation of each lease not
   * confirmed lately, renewing one half a minute old, so that the lease stays fresh between writes.
   */
  private async beat(): Promise<void> {
    if (this.beating) return;
    this.beating = (async () => {
      for (const held of this.held.values()) {
        if (held.lost || this.opts.now() - held.confirmedAt < (LEASE_HEARTBEAT_MS * 3) / 4) continue;
        try {
          await this.fence(held.account.name, LEASE_RENEW_MS / 2);
        } catch (err) {
          // A lost lease stops the next write (its fence); a failed renewal is tried again at the next beat.
          if (!(err instanceof LeaseLostError)) this.notes.push(`a renewal of the lease of account ${held.account.name} failed: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    })().finally(() => (this.beating = undefined));
    await this.beating;
  }
}

/** Why a look shows the lease is no longer `held`'s; undefined when it is intact and fresh. */
function lostReason(held: Held, look: LeaseLook): string | undefined {
  const own = look.records.find((r) => r.generation === held.generation);
  const top = look.top;
  if (top && top.generation > held.generation) return `another apply took it over (${holderText(top.data?.holder)})`;
  if (!own) return 'its lease record was deleted';
  const d = own.data;
  if (!d || d.owner !== held.data.owner || d.stamp !== held.data.stamp || d.holder !== held.data.holder) return 'its lease record was changed by someone else';
  const age = look.date - d.stamp;
  if (age >= LEASE_STALE_MS) return `it was not renewed for ${Math.round(age / 1000)}s of the service's time, so another apply may take it`;
  return undefined;
}
