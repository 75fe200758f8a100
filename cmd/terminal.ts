// stderr as people see it: on a terminal, log lines scroll and one status line (a rate-limit
// countdown) stays below them, redrawn in place and never mixed into them; elsewhere (CI logs) there
// is no status line, and rate-limit waits log one line when they start and at most one a minute.

import { inertText } from '../src/model/inert.js';
import { duration, intervalText } from '../src/render/common.js';
import { type Io, write } from './io.js';

export class StatusConsole {
  private status: string | undefined;

  constructor(
    private readonly stream: NodeJS.WritableStream,
    readonly tty: boolean,
  ) {}

  /** A line of the log: above the status line, which is drawn again below it. One line: a break inside is shown escaped. */
  line(text: string): void {
    if (this.tty && this.status !== undefined) this.stream.write('\r\x1b[K');
    write(this.stream, inertText(text));
    if (this.tty && this.status !== undefined) this.stream.write(this.status);
  }

  /** The status line (terminal only): `undefined` clears it. */
  setStatus(text: string | undefined): void {
    const safe = text === undefined ? undefined : inertText(text);
    if (!this.tty || safe === this.status) return;
    // Only our own erase-line sequence is raw: the status is one neutralised line.
    this.stream.write(`\r\x1b[K${safe ?? ''}`);
    this.status = safe;
  }
}

const consoles = new WeakMap<object, StatusConsole>();

/** One console per stderr stream, so that every writer of a run shares its status line. */
export function consoleOf(io: Io): StatusConsole {
  let c = consoles.get(io.stderr);
  if (!c) {
    c = new StatusConsole(io.stderr, io.stderr.isTTY === true);
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
      this.out.setStatus(this.waiting.size > 0 ? this.text(info.now) : undefined);
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
