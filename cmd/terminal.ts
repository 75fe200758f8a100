// stderr as people see it: on a terminal, log lines scroll and one status line (the progress of a
// phase, a rate-limit countdown) stays below them, redrawn in place with readline's cursor calls and
// never mixed into them; elsewhere (CI logs) there is no status line: a phase logs one line when it
// starts and at most one progress line every 30 s, which carries the rate-limit wait under way (the
// wait has no line of its own then: one line every 30 s at most, for both); outside a phase a wait
// logs one line when it starts and at most one a minute.

import { clearLine, cursorTo } from 'node:readline';
import { inertText } from '../src/model/inert.js';
import { duration, intervalText } from '../src/render/common.js';
import { type Io, write } from './io.js';

/** What the status line shows: a phase's progress and a rate-limit wait, side by side. */
export type StatusSlot = 'progress' | 'wait';

export class StatusConsole {
  private status: string | undefined;
  /** The waits of the run writing to this stream (its budget model and countdown move the progress). */
  waits?: WaitReporter;
  /** Per slot, its text from the longest form to the shortest. */
  private readonly slots = new Map<StatusSlot, string[]>();

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

  /**
   * One part of the status line (terminal only): `undefined` clears that part. Given several forms
   * (longest first), the line takes the longest that fits the terminal, shortening the wait before
   * the progress; only a line that no form makes fit is cut, and then at a part's edge (`, `), never
   * inside a number.
   */
  setStatus(text: string | string[] | undefined, slot: StatusSlot = 'wait'): void {
    if (!this.tty) return;
    if (text === undefined) this.slots.delete(slot);
    else this.slots.set(slot, (Array.isArray(text) ? text : [text]).map((t) => inertText(t)));
    const columns = (this.stream as { columns?: number }).columns;
    const width = columns && columns > 1 ? columns - 1 : Number.POSITIVE_INFINITY;
    const safe = this.fit(width);
    if (safe === this.status) return;
    // The cursor moves are readline's; the status is one neutralised line.
    this.erase();
    if (safe !== undefined) this.stream.write(safe);
    this.status = safe;
  }

  /** The longest line of the slots' forms within `width` (a wrapped status line could not be erased in place). */
  private fit(width: number): string | undefined {
    const progress = this.slots.get('progress') ?? [];
    const wait = this.slots.get('wait') ?? [];
    if (progress.length === 0 && wait.length === 0) return undefined;
    const join = (p?: string, w?: string) => [p, w].filter((x): x is string => x !== undefined).join(' · ');
    const tries: string[] = [];
    for (let i = 0; i < Math.max(1, progress.length); i++) for (let j = 0; j < Math.max(1, wait.length); j++) tries.push(join(progress[i], wait[j]));
    // Longest first among those that fit; the wait shortens before the progress (its forms vary fastest).
    const fits = tries.find((t) => t.length <= width);
    if (fits !== undefined) return fits;
    // Nothing fits: drop whole parts from the end of the shortest form, never a piece of one; then
    // whole words, so that no number is ever shown cut (`12…` would read as twelve).
    let line = tries.at(-1)!;
    while (line.length > width) {
      const cut = Math.max(line.lastIndexOf(', '), line.lastIndexOf(' · '));
      if (cut <= 0) return wordsWithin(line, width);
      line = line.slice(0, cut);
    }
    return line;
  }

  private erase(): void {
    clearLine(this.stream, 0);
    cursorTo(this.stream, 0);
  }
}

/** The whole words of `line` that fit in `width` with an ellipsis after them (just the ellipsis when none does). */
export function wordsWithin(line: string, width: number): string {
  const room = line.slice(0, Math.max(0, width - 1));
  // A word cut by the room's end is dropped whole.
  const whole = line[room.length] === ' ' ? room : room.slice(0, Math.max(0, room.lastIndexOf(' ')));
  return `${whole.trimEnd()}…`;
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
  /**
   * Told each second of a wait: the phase under way refreshes its progress with it, and off a
   * terminal its progress lines carry the wait, which then logs no line of its own.
   */
  onTick?: (now: number) => void;

  constructor(private readonly out: StatusConsole) {}

  setEstimate(estimate: (now: number) => number | undefined): void {
    this.estimate = estimate;
  }

  /**
   * Seconds left by the budget model, waits included; undefined when neither the pre-flight nor a
   * wait under way says. A request waiting for its bucket holds the run at least that long, even when
   * the pre-flight foresaw no wait (a budget the service spent elsewhere): never less than the longest wait.
   */
  left(now: number): number | undefined {
    const model = this.estimate?.(now);
    const waiting = Math.max(0, ...[...this.waiting.values()].map((w) => w.secondsLeft));
    if (model === undefined && waiting === 0) return undefined;
    return Math.max(model ?? 0, waiting);
  }

  readonly onWait = (bucket: string, secondsLeft: number, info: WaitInfo): void => {
    if (this.waiting.size > 0 && this.lastNow !== undefined) this.waitedMs += Math.max(0, info.now - this.lastNow);
    this.lastNow = info.now;
    if (secondsLeft > 0) this.waiting.set(bucket, { secondsLeft, limit: info.limit });
    else this.waiting.delete(bucket);
    // The progress of the phase (its elapsed time and time left) moves with the countdown.
    this.onTick?.(info.now);
    if (this.out.tty) {
      this.out.setStatus(this.waiting.size > 0 ? this.forms(info.now) : undefined, 'wait');
      return;
    }
    // A phase's progress lines say the wait (at most one line every 30 s for both).
    if (this.onTick) return;
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
    return this.forms(now)[0];
  }

  /**
   * The wait under way as a phase's progress line carries it, what the number is included (that
   * line says the time left itself); undefined while nothing waits.
   */
  brief(now: number): string | undefined {
    return this.waiting.size > 0 ? this.forms(now, false)[0] : undefined;
  }

  /** The wait's status, longest form first: every form keeps each countdown whole. */
  private forms(now: number, withRun = true): string[] {
    const waits = [...this.waiting.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const left = withRun ? this.estimate?.(now) : undefined;
    const run = left !== undefined && left > 0 ? ` (the run: about ${duration(left)} left)` : '';
    const long = waits.map(([bucket, w]) => `${bucket} refills ${refillRate(w.limit)}, next request in ${duration(w.secondsLeft)}`);
    const mid = waits.map(([bucket, w]) => `${bucket}: next in ${duration(w.secondsLeft)}`);
    const soon = Math.min(...waits.map(([, w]) => w.secondsLeft));
    return [`rate limit: waiting: ${long.join('; ')}${run}`, `rate limit: ${mid.join('; ')}`, `waiting ${duration(soon)}`];
  }
}

/** A timer of real time, once a second (unref'd: it never keeps the process alive). */
function defaultEverySecond(tick: () => void): () => void {
  const timer = setInterval(tick, 1000);
  timer.unref?.();
  return () => clearInterval(timer);
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

  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: StatusConsole,
    private readonly phase: string,
    private readonly total: number,
    private readonly now: () => number = Date.now,
    /** What is counted, in the singular: `change`, `account`. */
    unit = 'item',
    /** Seconds left by the budget model (waits included), when the run has one. */
    private readonly budgetLeft?: (now: number) => number | undefined,
    /** Refreshes the line every second (a timer by default; tests call `tick` on their clock). */
    every: ((tick: () => void) => () => void) | null = defaultEverySecond,
  ) {
    this.started = now();
    this.lastLine = this.started;
    if (out.tty) out.setStatus(this.forms(), 'progress');
    else out.line(`${phase}: ${total} ${unit}${total === 1 ? '' : 's'}`);
    if (every) {
      const stop = every(() => this.tick());
      this.stopTimer = stop;
    }
  }

  private stopTimer: (() => void) | undefined;
  /** Off a terminal, a part added to each progress line (the rate-limit wait under way). */
  also?: () => string | undefined;
  /** Told when the phase ends. */
  onEnd?: () => void;

  /** A refresh without a step: the elapsed time and the time left move on (at least once a second). */
  tick(): void {
    this.show();
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
    this.stopTimer?.();
    this.stopTimer = undefined;
    void this.timer;
    this.onEnd?.();
    this.onEnd = undefined;
    if (this.out.tty) this.out.setStatus(undefined, 'progress');
  }

  private show(): void {
    if (this.out.tty) {
      this.out.setStatus(this.forms(), 'progress');
      return;
    }
    const now = this.now();
    if (now - this.lastLine >= PROGRESS_INTERVAL_MS && this.done < this.total) {
      this.lastLine = now;
      const also = this.also?.();
      this.out.line(also === undefined ? this.text() : `${this.text()} · ${also}`);
    }
  }

  /** `Applying: 120/2000 done, 3 failed, 12s elapsed, about 3m 8s left`. */
  text(): string {
    return this.forms()[0];
  }

  /** Seconds left: the budget model's (waits included) when the run has one, else the pace so far. */
  private left(elapsed: number): number | undefined {
    if (this.done >= this.total) return undefined;
    const model = this.budgetLeft?.(this.now());
    if (model !== undefined && model > 0) return model;
    return this.done > 0 ? (elapsed / this.done) * (this.total - this.done) : undefined;
  }

  /** The line, longest form first; every form keeps its numbers whole. */
  private forms(): string[] {
    const elapsed = (this.now() - this.started) / 1000;
    const left = this.left(elapsed);
    const failed = this.failed > 0 ? `, ${this.failed} failed` : '';
    const long = `${this.phase}: ${this.done}/${this.total} done${failed}, ${duration(Math.floor(elapsed))} elapsed${left !== undefined ? `, about ${duration(left)} left` : ''}`;
    const short = `${this.done}/${this.total}${failed}, ${duration(Math.floor(elapsed))}${left !== undefined ? `, ~${duration(left)} left` : ''}`;
    return [long, short];
  }
}

/** What the apply lease says while a run waits for it (LeaseWait of the lease). */
export interface LeaseWaitShown {
  why: 'held' | 'unknown';
  holder?: string;
  /** Until the next look (held) or until it is taken (unknown). */
  secondsLeft: number;
  /** Held: until the wait allowed (--lease-wait) is over. */
  waitLeftSeconds?: number;
}

/**
 * A wait for the apply lease on stderr: its reason once, then a countdown of the whole wait (on a
 * terminal the status line, each second; elsewhere a line at most every 30 s of `now`).
 */
export class LeaseCountdown {
  private said: string | undefined;
  private lastLine: number | undefined;

  constructor(
    private readonly out: StatusConsole,
    /** --lease-wait, in seconds. */
    private readonly waitSeconds: number,
    private readonly now: () => number,
    private readonly say: (line: string) => void,
  ) {}

  readonly onWait = (wait: LeaseWaitShown): void => {
    const what =
      wait.why === 'held'
        ? `another apply holds the lease (${wait.holder || 'unknown holder'}): waiting up to ${duration(this.waitSeconds)}`
        : 'no lease record, or a freed or edited one: nobody can tell when its holder last wrote, so the lease is taken after its lifetime and margin';
    if (this.said !== what) this.say(what);
    this.said = what;
    const left = wait.why === 'held' && wait.waitLeftSeconds !== undefined ? wait.waitLeftSeconds : wait.secondsLeft;
    const forms =
      wait.why === 'held'
        ? [`waiting for the apply lease: up to ${duration(left)} left, next look in ${duration(wait.secondsLeft)}`, `apply lease: up to ${duration(left)} left`, `lease: ${duration(left)}`]
        : [`waiting for the apply lease: taken in ${duration(left)}`, `apply lease in ${duration(left)}`, `lease: ${duration(left)}`];
    if (this.out.tty) {
      // 0: this pause is over (a look follows, which may end the wait): no line left standing.
      this.out.setStatus(wait.secondsLeft > 0 ? forms : undefined);
      return;
    }
    if (wait.secondsLeft === 0) return;
    const now = this.now();
    if (this.lastLine === undefined || now - this.lastLine >= PROGRESS_INTERVAL_MS) {
      this.lastLine = now;
      this.out.line(forms[0]);
    }
  };
}

