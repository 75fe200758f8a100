// SIGINT / SIGTERM during a command that talks to the service. The first signal stops: no new
// change starts and every wait ends at once, while requests in flight finish (for at most
// GRACE_MS). A second signal, or the end of the grace time, aborts those too. Nothing here exits:
// the command prints what it did and returns 130 (SIGINT) or 143 (SIGTERM).

import { setMaxListeners } from 'node:events';
import { EXIT, ExitError, type Io, type StopSignal } from './io.js';
import { consoleOf } from './terminal.js';

export const GRACE_MS = 30_000;

export class Interruption {
  private readonly stopper = new AbortController();
  private readonly aborter = new AbortController();
  private received: StopSignal | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly unlisten: () => void;

  constructor(
    private readonly io: Io,
    private readonly graceMs = GRACE_MS,
  ) {
    this.unlisten = io.signals?.listen((signal) => this.receive(signal)) ?? (() => undefined);
    // Every request and wait of a run listens to these two signals: many at once is expected.
    setMaxListeners(0, this.stopper.signal, this.aborter.signal);
  }

  /** Aborted by the first signal, with the signal's name as reason. */
  get stop(): AbortSignal {
    return this.stopper.signal;
  }

  /** Aborted by the second signal or when the grace time is over. */
  get abort(): AbortSignal {
    return this.aborter.signal;
  }

  get signal(): StopSignal | undefined {
    return this.received;
  }

  /** 130 or 143 once a signal came; undefined before. */
  exitCode(): number | undefined {
    if (this.received === undefined) return undefined;
    return this.received === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint;
  }

  /** The ExitError of a command that had nothing to show for itself when the signal came. */
  error(what: string): ExitError {
    return new ExitError(this.exitCode() ?? EXIT.error, `interrupted by ${this.received ?? 'a signal'}: ${what}`);
  }

  /**
   * `work`, or an ExitError as soon as the stop signal comes. What `work` still has in flight
   * finishes (or is aborted) in the background; closing the client waits for it.
   */
  async race<T>(work: Promise<T>, what: string): Promise<T> {
    if (this.io.signals === undefined) return work;
    work.catch(() => undefined);
    let onStop: () => void = () => undefined;
    const stopped = new Promise<never>((_, reject) => {
      onStop = () => reject(this.error(what));
      if (this.stop.aborted) onStop();
      else this.stop.addEventListener('abort', onStop, { once: true });
    });
    stopped.catch(() => undefined);
    try {
      return await Promise.race([work, stopped]);
    } finally {
      this.stop.removeEventListener('abort', onStop);
    }
  }

  /** A pause that the stop signal ends at once, with an ExitError (130/143) saying `what`. */
  async sleep(ms: number, what: string): Promise<void> {
    if (this.stop.aborted) throw this.error(what);
    let timer: NodeJS.Timeout | undefined;
    try {
      await this.race(new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))), what);
    } finally {
      clearTimeout(timer);
    }
  }

  dispose(): void {
    this.unlisten();
    if (this.timer) clearTimeout(this.timer);
  }

  private receive(signal: StopSignal): void {
    const out = consoleOf(this.io);
    if (this.received === undefined) {
      this.received = signal;
      out.line(
        `postureops: ${signal} received: no new change starts; requests in flight may take up to ${Math.round(this.graceMs / 1000)} s to finish (${signal} again aborts them)`,
      );
      this.stopper.abort(signal);
      this.timer = setTimeout(() => this.aborter.abort(signal), this.graceMs);
      this.timer.unref?.();
      return;
    }
    if (!this.aborter.signal.aborted) {
      out.line(`postureops: ${signal} received again: aborting the requests in flight`);
      this.aborter.abort(signal);
    }
  }
}
