// One run against the service: the client and everything that belongs to this run and to no other
// (its clock, the wait reporting hook, when it started, what earlier runs remembered of the
// buckets). The CLI and the Action both open runs here; nothing about a run lives in module state.

import { createClient } from '../api/client.js';
import { clientOptionsFromEnv, type ClientOptions } from '../api/options.js';
import { type ApiClient, type BucketBudget, ClientConfigError } from '../api/types.js';
import { budgetAt } from '../ops/budget/budget.js';
import { durationText } from '../model/duration.js';
import { groupWaitSeconds, preflight, preflightLine, type RequestGroup, type RetryReserve, TOKEN_GROUP } from '../ops/budget/preflight.js';
import type { BudgetMemory } from './budget-memory.js';
import { LeaseHeldError, Leases, leaseHome, type LeaseClock, type LeaseOptions, LeaseWaitStopped } from '../ops/lease/lease.js';

export type { LeaseClock };
import type { AccountConfig } from '../model/account.js';
import { RunError } from './errors.js';

/** What the user may set about the client and the run's length (CLI flags, Action inputs). */
export interface RunFlags {
  baseUrl?: string;
  maxWait?: number;
  concurrency?: number;
  /** In seconds: a run the rate-limit budget cannot finish within it is refused. */
  maxDuration?: number;
  /** Size limits as given (checked with the environment's POSTUREOPS_* variables). */
  maxResponseSize?: string;
  maxRecords?: string;
  maxTotalSize?: string;
}

/** Shows rate-limit waits (the CLI's status line); told the run's estimate once the pre-flight knows it. */
export interface WaitHook {
  onWait: NonNullable<ClientOptions['onWait']>;
  setEstimate?(left: (now: number) => number | undefined): void;
  waitedSeconds?(): number;
}

/** A pre-flight estimate, for the adapter to show (the CLI only when it matters, the Action always). */
export interface PreflightNote {
  /** `Pre-flight (read): 7 requests in 3 rate-limit buckets; ...`. */
  line: string;
  /** Seconds of waiting the budget imposes. */
  seconds: number;
  /** A maximum duration was asked for. */
  bounded: boolean;
}

export interface RunSetup {
  env: Record<string, string | undefined>;
  flags: RunFlags;
  /** Where this adapter keeps the buckets between runs (per service address and key id). */
  memory: (baseUrl: string, keyId: string) => BudgetMemory;
  waits?: WaitHook;
  log?: ClientOptions['log'];
  onPreflight?: (note: PreflightNote) => void;
  /** An interruption: `stop` ends waits, `abort` cuts requests off. */
  signals?: { stop: AbortSignal; abort: AbortSignal };
  /** A last word on the client's options (tests: a virtual clock). */
  adjust?: (options: ClientOptions) => ClientOptions;
  /** The apply lease's clocks and countdown (tests: a virtual clock); see LeaseOptions. */
  lease?: Pick<LeaseOptions, 'clock' | 'heartbeat' | 'onWait' | 'holder' | 'waitMs'> & {
    /** Told what became of the lease when the run closes (released, or why not). */
    onClosed?: (said: string) => void;
  };
}

/** What a run asks of the apply lease: the configuration's accounts (its home is the first by name). */
export interface LeaseRequest {
  /** Every account the configuration declares. */
  declared: readonly AccountConfig[];
  /** The accounts this run may write. */
  accounts: readonly AccountConfig[];
}

/** `--max-wait` when it is not given (and the maximum duration is not longer). */
export const DEFAULT_MAX_WAIT_SECONDS = 900;

export class Run {
  /** When the run passed its first pre-flight, on its clock: a maximum duration bounds the whole run. */
  private started: number | undefined;
  /** The apply lease this run holds (takeLease), released by close. */
  lease: Leases | undefined;
  /** The buckets as known before the reads sent ahead (readingAhead): the next pre-flight's figures. */
  private ahead: BucketBudget[] | undefined;

  private constructor(
    readonly client: ApiClient,
    /** The run's clock (a test's virtual one, else the system's): the budget's times are on it. */
    readonly now: () => number,
    /** The run's sleep (a test's virtual one, else a timer): pauses between repeats of a write. */
    readonly sleep: (ms: number) => Promise<void>,
    private readonly memory: BudgetMemory,
    private readonly setup: RunSetup,
    /** The size limits of this run's reads (a rehearsal reads as much). */
    private readonly limits: Pick<ClientOptions, 'maxResponseBytes' | 'maxRecords' | 'maxTotalBytes'> = {},
  ) {}

  /** Creates the client; bad service settings are a RunError (`client-config`). */
  static open(setup: RunSetup): Run {
    let options: ClientOptions;
    try {
      options = clientOptionsFromEnv(setup.env, setup.flags);
    } catch (err) {
      if (err instanceof ClientConfigError) throw new RunError({ kind: 'client-config', message: err.message });
      throw err;
    }
    const { flags } = setup;
    const adjusted = (setup.adjust ?? ((o: ClientOptions) => o))({
      ...options,
      ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
      // A run allowed to take longer than the default wait may wait as long for one bucket.
      maxWaitSeconds: flags.maxWait ?? Math.max(DEFAULT_MAX_WAIT_SECONDS, flags.maxDuration ?? 0),
      ...(setup.signals ? { stopSignal: setup.signals.stop, abortSignal: setup.signals.abort } : {}),
      ...(setup.log ? { log: setup.log } : {}),
      ...(setup.waits ? { onWait: setup.waits.onWait } : {}),
    });
    const limits = Object.fromEntries((['maxResponseBytes', 'maxRecords', 'maxTotalBytes'] as const).filter((k) => adjusted[k] !== undefined).map((k) => [k, adjusted[k]]));
    return new Run(createClient(adjusted), adjusted.now ?? Date.now, adjusted.sleep ?? ((ms) => new Promise<void>((r) => setTimeout(r, ms))), setup.memory(options.baseUrl, options.keyId), setup, limits);
  }

  /** The run's interruption (a signal): once aborted, a rehearsal starts no further change either. */
  get stopSignal(): AbortSignal | undefined {
    return this.setup.signals?.stop;
  }

  /**
   * A client of a rehearsal's service (the emulator on loopback an adapter started): this run's read
   * limits and interruption, nothing of its budget, memory, clock or log, so that no request to it
   * counts against the service's budget. No retries: the emulator injects no faults.
   */
  rehearsalClient(service: { url: string; keyId: string; secret: string }, concurrency: number): ApiClient {
    const signals = this.setup.signals;
    return createClient({
      baseUrl: service.url,
      keyId: service.keyId,
      secret: service.secret,
      maxRetries: 0,
      concurrency,
      ...this.limits,
      ...(signals ? { stopSignal: signals.stop, abortSignal: signals.abort } : {}),
    });
  }

  /** A maximum duration bounds this run. */
  bounded(): boolean {
    return this.setup.flags.maxDuration !== undefined;
  }

  /** Seconds spent waiting for rate-limit buckets so far, by the run's clock. */
  waitedSeconds(): number {
    return this.setup.waits?.waitedSeconds?.() ?? 0;
  }

  /**
   * Pre-flight, before the requests of `groups`: how long the budget the service last reported makes
   * them take. Over the maximum duration (counting what the run already spent, and the retry budget
   * `reserve` of its creates) it throws a RunError (`too-long`); a run that will wait gets its wait
   * hook told the time left as it goes.
   */
  async preflight(groups: readonly RequestGroup[], what: string, reserve?: RetryReserve): Promise<void> {
    const { client, ahead } = this;
    this.ahead = undefined;
    // After reads sent ahead, the read's pre-flight is of the whole read, on what was known before it.
    const all = ahead !== undefined || client.stats().total === 0 ? [TOKEN_GROUP, ...groups] : [...groups];
    const now = this.now();
    const reported = await this.memory.recall(now);
    const estimate = preflight(all, ahead ?? [...reported, ...client.budget()], now);
    const max = this.setup.flags.maxDuration;
    this.started ??= now;
    const spent = Math.max(0, (now - this.started) / 1000);
    this.setup.onPreflight?.({ line: `Pre-flight (${what}): ${preflightLine(estimate, reserve)}`, seconds: estimate.seconds, bounded: max !== undefined });
    const reserved = reserve?.seconds ?? 0;
    if (max !== undefined && spent + estimate.seconds + reserved > max) {
      // Would the run fit on what this run itself saw? Then the refusal rests on an earlier run's figures.
      const remembered = reported.length > 0 && spent + preflight(all, client.budget(), now).seconds + reserved <= max;
      throw new RunError({
        kind: 'too-long',
        too: {
          what,
          line: preflightLine(estimate, reserve),
          seconds: estimate.seconds + reserved,
          maxDuration: max,
          spentSeconds: spent,
          nothingSent: client.stats().total === 0,
          text: { seconds: durationText(estimate.seconds + reserved), maxDuration: durationText(max), spent: durationText(spent) },
          ...(remembered ? { remembered: { ...(this.memory.where !== undefined ? { file: this.memory.where } : {}), oldestSeconds: Math.max(0, Math.round((now - Math.min(...reported.map((b) => b.observedAt))) / 1000)) } } : {}),
        },
      });
    }
    const waits = this.setup.waits;
    if (!waits?.setEstimate || estimate.seconds === 0 || !estimate.slowest) return;
    const slow = estimate.slowest;
    const start = client.stats();
    // While waiting: the slowest group's requests not sent yet, against the budget as now known.
    waits.setEstimate((at) => {
      const sent = slow.buckets.reduce((n, b) => n + (client.stats().byBucket[b] ?? 0) - (start.byBucket[b] ?? 0), 0);
      const states = slow.buckets.map((b) => client.budget().find((x) => x.bucket === b)).filter((b): b is BucketBudget => b !== undefined);
      return states.length === 0 ? undefined : groupWaitSeconds(Math.max(0, slow.requests - sent), states.map((b) => budgetAt(b, at)), at);
    });
  }

  /** The buckets as known before anything is sent: what earlier runs remembered, and this run's own. */
  async knownBudget(): Promise<BucketBudget[]> {
    return [...(await this.memory.recall(this.now())), ...this.client.budget()];
  }

  /** Reads are about to be sent before their pre-flight (src/run/read-ahead.ts); `known`: knownBudget() before them. */
  readingAhead(known: BucketBudget[]): void {
    this.ahead = known;
  }

  /**
   * The budget a plan is estimated against: the buckets this run has seen, and those only earlier
   * runs saw (the writes of the last apply), brought forward to the time of this run's last answer.
   */
  async planBudget(): Promise<BucketBudget[]> {
    const seen = this.client.budget();
    const unseen = (await this.memory.recall(this.now())).filter((b) => !seen.some((s) => s.bucket === b.bucket));
    if (unseen.length === 0) return seen;
    const now = seen.length > 0 ? Math.max(...seen.map((b) => b.observedAt)) : this.now();
    return [...seen, ...unseen.map((b) => budgetAt(b, now))];
  }

  /**
   * Takes the apply lease before the live state is read (as Terraform locks before refreshing):
   * RunError `lease-held` when another apply holds it, `lease-wait-stopped` when a signal ended the wait.
   */
  async takeLease(request: LeaseRequest): Promise<Leases | undefined> {
    const home = leaseHome(request.declared);
    if (!home || request.accounts.length === 0) return undefined;
    try {
      const { onClosed: _onClosed, ...lease } = this.setup.lease ?? {};
      this.lease = await Leases.acquire(this.client, home, request.accounts, {
        ...lease,
        ...(this.setup.signals ? { signal: this.setup.signals.stop } : {}),
      });
    } catch (err) {
      if (err instanceof LeaseHeldError) throw new RunError({ kind: 'lease-held', message: err.message, account: err.account });
      if (err instanceof LeaseWaitStopped) throw new RunError({ kind: 'lease-wait-stopped', message: err.message });
      throw err;
    }
    return this.lease;
  }

  /** Keeps what this run learnt of the buckets for the next one, releases its lease, and closes the client. */
  async close(): Promise<void> {
    if (this.lease) {
      await this.lease.release();
      const notes = this.lease.report().notes;
      const said = notes.filter((n) => n === 'released the lease' || n.startsWith('the lease ')).at(-1);
      if (said !== undefined) this.setup.lease?.onClosed?.(said);
    }
    try {
      await this.memory.remember(this.client.budget(), this.now());
    } finally {
      await this.client.close();
    }
  }
}
