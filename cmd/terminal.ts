// stderr as people see it: on a terminal, log lines scroll and one status line (the progress of a
// phase, a rate-limit countdown) stays below them, redrawn in place with readline's cursor calls and
// never mixed into them; elsewhere (CI logs) there is no status line: a phase logs one line when it
// starts and at most one progress line every 30 s, rate-limit waits one when they start and at most
// one a minute.

import { clearLine, cursorTo } from 'node:readline';
import { inertText } from '../src/model/inert.js';
import { duration, intervalText } from '../src/render/common.js';
import { type Io, write } from './io.js';

/** What the status line shows: a phase's progress and a rate-limit wait, side by side. */
export type StatusSlot = 'progress' | 'wait';

export class StatusConsole {
  private status: string | undefined;
  private readonly slots = new Map<StatusSlot, string>();

  constructor(
    private readonly stream: NodeJS.WritableStream,
    readonly tty: boolean,
  ) {}

  /** A line of the log: above the status line, which is drawn again below it. One line: a break inside is shown escaped. */
  line(text: string): void {
    if (this.tty && this.status !== undefined) this.erase();
    write(this.stream, inertText(text));
    if (this.tty && this.status !== undefined) this.stream.write(this.status);
  }

  /** One part of the status line (terminal only): `undefined` clears that part. */
  setStatus(text: string | undefined, slot: StatusSlot = 'wait'): void {
    if (!this.tty) return;
    if (text === undefined) this.slots.delete(slot);
    else this.slots.set(slot, inertText(text));
    const parts = (['progress', 'wait'] as const).map((s) => this.slots.get(s)).filter((p): p is string => p !== undefined);
    // Cut to the terminal's width: a wrapped status line could not be erased in place.
    const columns = (this.stream as { columns?: number }).columns;
    const joined = parts.join(' · ');
    const safe = parts.length === 0 ? undefined : columns && columns > 1 && joined.length >= columns ? joined.slice(0, columns - 2) + '…' : joined;
    if (safe === this.status) return;
    // The cursor moves are readline's; the status is one neutralised line.
    this.erase();
    if (safe !== undefined) this.stream.write(safe);
    this.status = safe;
  }

  private erase(): void {
    clearLine(this.stream, 0);
    cursorTo(this.stream, 0);
  }
}

const consoles = new WeakMap<object, StatusConsole>();

/** One console per stderr stream, so that every writer of a run shares its status line. */
export function consoleOf(io: Io): StatusConsole {
  let c = consoles.get(io.stderr);
  if (!c) {
    // TERM=dumb: a terminal that cannot move its cursor gets the log lines of a CI log, no status line.
    c = new StatusConsole(io.stderr, io.stderr.isTTY === true && io.env.TERM !== 'dumb');
    consoles.set(io.stderr, c);
  }
  return c;
}

/** `1 request every 12 min`, `1 request every 30 s`: the refill rate of a bucket of `limit` per hour. */
export function refillRate(limit: number): string {
  return limit > 0 ? `1 request every ${intervalText(3600 / limit)}` : 'at an unknown rate';
}

/** How long not to repeat a wait line in a log that is not a terminal. */
export const LOG_INTERVAL_MS = 60_000;

export interface WaitInfo {
  now: number;
  limit: number;
}

/**
 * Turns the client's countdown calls (several per second when several requests wait) into the
 * status line or the throttled log lines, and sums up the time spent waiting, by the client's clock.
 */
export class WaitReporter {
  private readonly waiting = new Map<string, { secondsLeft: number; limit: number }>();
  private lastNow: number | undefined;
  private lastLine: number | undefined;
  private waitedMs = 0;

  /** Seconds the run has left by its pre-flight estimate, brought up to date (see preflightCheck). */
  private estimate: ((now: number) => number | undefined) | undefined;

  constructor(private readonly out: StatusConsole) {}

  setEstimate(estimate: (now: number) => number | undefined): void {
    this.estimate = estimate;
  }

  readonly onWait = (bucket: string, secondsLeft: number, info: WaitInfo): void => {
    if (this.waiting.size > 0 && this.lastNow !== undefined) this.waitedMs += Math.max(0, info.now - this.lastNow);
    this.lastNow = info.now;
    if (secondsLeft > 0) this.waiting.set(bucket, { secondsLeft, limit: info.limit });
    else this.waiting.delete(bucket);
    if (this.out.tty) {
      this.out.setStatus(this.waiting.size > 0 ? this.text(info.now) : undefined, 'wait');
      return;
    }
    if (secondsLeft > 0 && (this.lastLine === undefined || info.now - this.lastLine >= LOG_INTERVAL_MS)) {
      this.lastLine = info.now;
      this.out.line(this.text(info.now));
    }
  };

  /** Whole seconds spent waiting for rate limits so far. */
  waitedSeconds(): number {
    return Math.round(this.waitedMs / 1000);
  }

  private text(now: number): string {
    const parts = [...this.waiting.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([bucket, w]) => `${bucket} refills ${refillRate(w.limit)}, next request in ${duration(w.secondsLeft)}`);
    const left = this.estimate?.(now);
    return `rate limit: waiting: ${parts.join('; ')}${left !== undefined && left > 0 ? ` (the run: about ${duration(left)} left)` : ''}`;
  }
}

/** At most one progress line this often in a log that is not a terminal. */
export const PROGRESS_INTERVAL_MS = 30_000;

/**
 * The progress of one long phase (loading, reading, applying): done of total, failures, elapsed and
 * remaining time. On a terminal the status line, redrawn on every step; elsewhere one line when the
 * phase starts and at most one every 30 s of the given clock. `end` clears the status line.
 */
export class Progress {
  private done = 0;
  private failed = 0;
  private readonly started: number;
  private lastLine: number;

  constructor(
    private readonly out: StatusConsole,
    private readonly phase: string,
    private readonly total: number,
    private readonly now: () => number = Date.now,
    /** What is counted, in the singular: `change`, `account`. */
    unit = 'item',
  ) {
    this.started = now();
    this.lastLine = this.started;
    if (out.tty) out.setStatus(this.text(), 'progress');
    else out.line(`${phase}: ${total} ${unit}${total === 1 ? '' : 's'}`);
  }

  /** One item finished (`ok` false: it failed). */
  step(ok = true): void {
    this.done++;
    if (!ok) this.failed++;
    this.show();
  }

  /** Items finished so far, for phases that learn their count in bulk. */
  set(done: number, failed = this.failed): void {
    this.done = done;
    this.failed = failed;
    this.show();
  }

  end(): void {
    if (this.out.tty) this.out.setStatus(undefined, 'progress');
  }

  private show(): void {
    if (this.out.tty) {
      this.out.setStatus(this.text(), 'progress');
      return;
    }
    const now = this.now();
    if (now - this.lastLine >= PROGRESS_INTERVAL_MS && this.done < this.total) {
      this.lastLine = now;
      this.out.line(this.text());
    }
  }

  /** `Applying: 120/2000 done, 3 failed, 12s elapsed, about 3m 8s left`. */
  text(): string {
    const elapsed = (this.now() - this.started) / 1000;
    const parts = [`${this.phase}: ${this.done}/${this.total} done`];
    if (this.failed > 0) parts.push(`${this.failed} failed`);
    parts.push(`${duration(Math.floor(elapsed))} elapsed`);
    if (this.done > 0 && this.done < this.total) parts.push(`about ${duration((elapsed / this.done) * (this.total - this.done))} left`);
    return parts.join(', ');
  }
}
