// The apply lease: one apply at a time per account, across machines, held in a record of the service
// itself (the kind that offers Kind.lease stores it). The service has no compare-and-set, so a run
// writes its own record, then reads the list back: it holds the lease only when its record is the
// one unexpired lease record there. Two runs cannot both see themselves alone (each record is
// written before its owner reads), so at most one holds it. When several see each other, the
// earliest writer (then the lowest record id) looks again after a pause and the others withdraw
// (delete their record) and stop, or wait for the holder to release or its lease to expire.

import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { ApiError, type ApiClient, type ApiRequest } from '../api/types.js';
import type { AccountConfig } from '../model/account.js';
import type { LeaseReport } from '../model/plan.js';
import type { FetchContext, Kind, LeaseData, LeaseHook, RequestContext } from '../kinds/types.js';
import { fetchContext } from './fetch.js';

export interface LeaseOptions {
  /** Shown to other runs while this one holds the lease; default: user@host and pid, or the CI run. */
  holder?: string;
  /** Unique per run; default a random UUID. */
  owner?: string;
  /** Lifetime of a lease record; renewed before a create once a quarter has passed. Default 20 min. */
  ttlMs?: number;
  /** Longest wait for a lease another apply holds; 0 (the default): stop at once. */
  waitMs?: number;
  /** Time between looks while waiting (at most); default 30 s. */
  pollMs?: number;
  /** Pause of the lowest contender before it looks again, so that the others can withdraw; default 2 s. */
  settleMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Called when this run starts waiting for another holder. */
  onWait?: (account: string, other: LeaseData) => void;
}

export const DEFAULT_LEASE_TTL_MS = 20 * 60_000;
const DEFAULT_POLL_MS = 30_000;
const DEFAULT_SETTLE_MS = 2_000;
/** Looks of the lowest contender before it gives up (a newcomer keeps arriving). */
const MAX_LOOKS = 3;

/** Another apply holds the lease of an account: nothing was changed (the engine stopped before the first write). */
export class LeaseHeldError extends Error {
  constructor(
    readonly account: string,
    readonly other: LeaseData,
    readonly waitedSeconds: number,
    now: number,
  ) {
    const left = Math.max(0, Math.ceil((other.expiresAt - now) / 1000));
    super(
      `another apply holds the lease of account ${account} (${other.holder || 'unknown holder'}; it expires in ${left}s unless renewed)` +
        `${waitedSeconds > 0 ? ` after waiting ${waitedSeconds}s` : ''}: nothing was changed`,
    );
    this.name = 'LeaseHeldError';
  }
}

/** The lease of an account was lost (expired, then taken by another run): no further create may run. */
export class LeaseLostError extends Error {}

export function defaultHolder(env: Record<string, string | undefined>): string {
  if (env.GITHUB_RUN_ID) return `GitHub run ${env.GITHUB_REPOSITORY ? `${env.GITHUB_REPOSITORY} ` : ''}#${env.GITHUB_RUN_ID}`;
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // no user name on this system: keep "unknown"
  }
  return `${user}@${hostname()} pid ${process.pid}`;
}

/**
 * The contender that goes first: the earliest writer (with one lifetime for all, the earliest expiry:
 * a holder's, renewed or not, is earlier than that of any record written after its last write), then
 * the lowest id. Only liveness depends on this order:
 * a run holds the lease only when it sees its own record alone.
 */
function first(records: LeaseRecord[]): LeaseRecord {
  return records.reduce((a, b) => (b.data.expiresAt < a.data.expiresAt || (b.data.expiresAt === a.data.expiresAt && b.id < a.id) ? b : a));
}

interface LeaseRecord {
  id: string;
  data: LeaseData;
}

interface Held {
  account: AccountConfig;
  id: string;
  data: LeaseData;
  /** Fresh, memoised reads taken under this lease (the check before each create uses them). */
  ctx: FetchContext;
  renewing?: Promise<void>;
  lost?: string;
}

/** The leases of one apply, one per account with changes, taken in account-name order. */
export class Leases {
  private readonly held = new Map<string, Held>();
  private readonly taken: string[] = [];
  private waitedMs = 0;
  private readonly notes: string[] = [];

  private constructor(
    private readonly client: ApiClient,
    private readonly kind: Kind,
    private readonly hook: LeaseHook,
    private readonly opts: Required<Omit<LeaseOptions, 'onWait'>> & Pick<LeaseOptions, 'onWait'>,
  ) {}

  /** Takes the lease of every account, or none (LeaseHeldError). Undefined when no kind offers a lease. */
  static async acquire(client: ApiClient, kinds: readonly Kind[], accounts: readonly AccountConfig[], options: LeaseOptions): Promise<Leases | undefined> {
    const kind = kinds.find((k) => k.lease !== undefined);
    if (!kind?.lease) return undefined;
    const leases = new Leases(client, kind, kind.lease, {
      holder: options.holder ?? defaultHolder(process.env),
      owner: options.owner ?? randomUUID(),
      ttlMs: options.ttlMs ?? DEFAULT_LEASE_TTL_MS,
      waitMs: options.waitMs ?? 0,
      pollMs: options.pollMs ?? DEFAULT_POLL_MS,
      settleMs: options.settleMs ?? DEFAULT_SETTLE_MS,
      now: options.now ?? Date.now,
      sleep: options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))),
      onWait: options.onWait,
    });
    const sorted = [...accounts].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    try {
      for (const account of sorted) await leases.acquireOne(account);
    } catch (err) {
      await leases.release();
      throw err;
    }
    return leases;
  }

  /** A fresh read context of `account` (memoised within itself only). */
  fresh(account: string): FetchContext | undefined {
    const held = this.held.get(account);
    return held ? fetchContext(this.client, held.account) : undefined;
  }

  /** Sends a request to the account of a held lease. */
  request(account: string, req: ApiRequest): Promise<unknown> {
    const held = this.held.get(account);
    if (!held) throw new Error(`no lease is held in account ${account}`);
    return this.send(held.account, req);
  }

  requestContextOf(account: string): RequestContext | undefined {
    const held = this.held.get(account);
    return held ? this.requestContext(held.account) : undefined;
  }

  /**
   * Before a create in `account`: the lease is still ours (renewed once a quarter has passed) and
   * the fresh reads taken under it. Throws LeaseLostError when another run took it.
   */
  async check(account: string): Promise<FetchContext | undefined> {
    const held = this.held.get(account);
    if (!held) return undefined;
    if (held.lost) throw new LeaseLostError(held.lost);
    // Renewed once a quarter of its lifetime has passed: after this check, a create has at least three
    // quarters (15 of 20 minutes: a rate-limit wait within one request, --max-wait, is at most 15).
    if (held.data.expiresAt - this.opts.now() <= (this.opts.ttlMs * 3) / 4) {
      held.renewing ??= this.renew(held).finally(() => (held.renewing = undefined));
      await held.renewing;
    }
    if (held.lost) throw new LeaseLostError(held.lost);
    return held.ctx;
  }

  /** Deletes every lease record this run holds; never throws (an undeleted record expires). */
  async release(): Promise<void> {
    // Our own record goes even when the lease was lost: a record renewed just before another run
    // took over would otherwise block every apply until it expires.
    for (const held of this.held.values()) {
      try {
        await this.send(held.account, this.kind.deleteRequest(held.id, this.requestContext(held.account)));
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 404)) {
          this.notes.push(`the lease record of account ${held.account.name} (${held.id}) could not be deleted: it expires by itself`);
        }
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
    const deadline = opts.now() + opts.waitMs;
    for (;;) {
      const mine: LeaseData = { owner: opts.owner, holder: opts.holder, expiresAt: opts.now() + opts.ttlMs };
      await this.write(account, mine);
      let other: LeaseRecord | undefined;
      for (let look = 1; ; look++) {
        const ctx = fetchContext(this.client, account);
        const records = await this.list(ctx);
        const own = records.find((r) => r.data.owner === opts.owner);
        const now = opts.now();
        const others = records.filter((r) => r.data.owner !== opts.owner && r.data.expiresAt > now);
        if (!own) {
          // Written (or answered with an unknown outcome) and not there: write again.
          if (look === 1) {
            await this.write(account, mine);
            continue;
          }
          throw new Error(`the lease record of account ${account.name} could not be written`);
        }
        if (others.length === 0) {
          this.held.set(account.name, { account, id: own.id, data: mine, ctx });
          this.taken.push(account.name);
          await this.removeExpired(account, records.filter((r) => r.data.owner !== opts.owner));
          return;
        }
        if (first([own, ...others]) === own && look < MAX_LOOKS) {
          await opts.sleep(opts.settleMs);
          continue;
        }
        // Withdraw; then stop, or wait until no other unexpired record is left and write again.
        await this.remove(account, own.id);
        other = first(others);
        break;
      }
      opts.onWait?.(account.name, other.data);
      other = await this.waitFor(account, other, deadline);
      if (other) throw new LeaseHeldError(account.name, other.data, Math.round(this.waitedMs / 1000), opts.now());
    }
  }

  /** Waits (polling) until no other unexpired lease is left; the one still there at the deadline. */
  private async waitFor(account: AccountConfig, other: LeaseRecord, deadline: number): Promise<LeaseRecord | undefined> {
    const { opts } = this;
    let current: LeaseRecord | undefined = other;
    while (current) {
      const now = opts.now();
      if (now >= deadline) return current;
      const pause = Math.max(1, Math.min(opts.pollMs, deadline - now, current.data.expiresAt - now + 1));
      await opts.sleep(pause);
      this.waitedMs += pause;
      const later = opts.now();
      const others = (await this.list(fetchContext(this.client, account))).filter((r) => r.data.owner !== opts.owner && r.data.expiresAt > later);
      current = others.length === 0 ? undefined : first(others);
    }
    this.notes.push(`waited ${Math.round(this.waitedMs / 1000)}s for another apply (${other.data.holder || 'unknown holder'}) to finish in account ${account.name}`);
    return undefined;
  }

  /** Renews a held lease; one that had expired is confirmed again, since another run may have taken it. */
  private async renew(held: Held): Promise<void> {
    const { opts } = this;
    const expired = held.data.expiresAt <= opts.now();
    const next: LeaseData = { ...held.data, expiresAt: opts.now() + opts.ttlMs };
    try {
      await this.send(held.account, this.hook.renewRequest(held.id, next, this.requestContext(held.account)));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        held.lost = `the lease of account ${held.account.name} expired and was removed by another apply: not created, run plan again`;
        return;
      }
      throw err;
    }
    held.data = next;
    if (!expired) return;
    const ctx = fetchContext(this.client, held.account);
    const now = opts.now();
    const others = (await this.list(ctx)).filter((r) => r.data.owner !== opts.owner && r.data.expiresAt > now);
    if (others.length > 0) {
      held.lost = `the lease of account ${held.account.name} expired and another apply (${others[0].data.holder || 'unknown holder'}) took it: not created, run plan again`;
      return;
    }
    // Another run may have written while it had expired: read afresh before the next create.
    held.ctx = ctx;
  }

  private async write(account: AccountConfig, lease: LeaseData): Promise<void> {
    try {
      await this.send(account, this.hook.createRequest(lease, this.requestContext(account)));
    } catch (err) {
      // Written or not: the list that follows tells.
      if (!(err instanceof ApiError && err.kind === 'outcome-unknown')) throw err;
    }
  }

  private async list(ctx: FetchContext): Promise<LeaseRecord[]> {
    const live = await this.kind.list(ctx);
    return live.flatMap((r) => {
      const data = r.kind === this.kind.kind ? this.hook.read(r) : undefined;
      return data ? [{ id: r.id, data }] : [];
    });
  }

  /** Expired records of other runs (crashed ones) are the tool's own: removed so they do not pile up. */
  private async removeExpired(account: AccountConfig, expired: LeaseRecord[]): Promise<void> {
    for (const r of expired) {
      await this.remove(account, r.id);
      this.notes.push(`removed an expired lease record in account ${account.name} (${r.data.holder || 'unknown holder'})`);
    }
  }

  private async remove(account: AccountConfig, id: string): Promise<void> {
    try {
      await this.send(account, this.kind.deleteRequest(id, this.requestContext(account)));
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
    }
  }

  private requestContext(account: AccountConfig): RequestContext {
    return {
      account: account.name,
      orgAccess: account.orgAccess,
      resolve: () => {
        throw new Error('a lease record refers to nothing');
      },
    };
  }

  private send(account: AccountConfig, req: ApiRequest): Promise<unknown> {
    return this.client.request({ ...req, account: account.orgAccess ? undefined : account.name, orgAccess: account.orgAccess || undefined });
  }
}
