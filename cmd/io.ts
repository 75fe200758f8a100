// What a command needs from the process, injectable so tests can drive commands in-process.

import { appendFileSync, chmodSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import type { ClientOptions } from '../src/api/options.js';
import type { LeaseClock } from '../src/run/run.js';
import { credentialRedactor } from '../src/api/redact.js';
import { inertLog } from '../src/model/inert.js';
import { isSecretName } from '../src/model/secret-detection.js';
import { wrapText } from '../src/render/wrap.js';
import { ReadValues } from '../src/model/read-values.js';

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Record<string, string | undefined>;
  cwd: string;
  /** SIGINT / SIGTERM; tests give their own. Without it, signals keep Node's default (the process ends). */
  signals?: SignalSource;
  /**
   * Adjusts the options of the service client a command creates: tests give it their virtual clock
   * (`now`, `sleep`) and watch its waits. The CLI itself sets none.
   */
  clientOptions?: (options: ClientOptions) => ClientOptions;
  /** The apply lease's clocks (tests: virtual ones, so that its waits take no real time). The CLI sets none. */
  leaseClock?: LeaseClock;
  /** The clock the loader judges documents by (an expired exception); tests give theirs. The CLI sets none. */
  now?: () => number;
  /**
   * The values the configuration read from the environment (the loader adds them as it reads):
   * masked in what the commands render, and by `stdout` and `stderr` themselves (masked).
   */
  secrets?: ReadValues;
}

/** The loader's options from `io`: what it reads goes into the run's secrets; documents are judged by io's clock. */
export function readInto(io: Pick<Io, 'secrets' | 'now'>): { onRead: (values: readonly string[]) => void; now?: () => number } {
  return { onRead: (values) => io.secrets?.add(values), ...(io.now ? { now: io.now } : {}) };
}

/** A stream whose every written text is masked for `secrets` (the net behind the renderers). */
function maskedStream<S extends NodeJS.WritableStream>(stream: S, secrets: ReadValues): S {
  return new Proxy(stream, {
    get(target, prop) {
      if (prop === 'write') {
        return (chunk: unknown, ...rest: unknown[]) =>
          (target.write as (...a: unknown[]) => boolean)(typeof chunk === 'string' ? secrets.maskText(chunk) : chunk, ...rest);
      }
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** `io` with its set of secrets (one for the whole command) and its output streams masked for it. */
export function withSecrets(io: Io): Io {
  if (io.secrets) return io;
  const secrets = new ReadValues();
  return { ...io, secrets, stdout: maskedStream(io.stdout, secrets), stderr: maskedStream(io.stderr, secrets) };
}

export type StopSignal = 'SIGINT' | 'SIGTERM';

/** Where interruptions come from: `listen` returns the function that stops listening. */
export interface SignalSource {
  listen(handler: (signal: StopSignal) => void): () => void;
}

export function processSignals(): SignalSource {
  return {
    listen(handler) {
      const onInt = () => handler('SIGINT');
      const onTerm = () => handler('SIGTERM');
      process.on('SIGINT', onInt);
      process.on('SIGTERM', onTerm);
      return () => {
        process.off('SIGINT', onInt);
        process.off('SIGTERM', onTerm);
      };
    },
  };
}

export function processIo(): Io {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd(), signals: processSignals() };
}

/** Exit codes (contract): documented in README.md. 128 + the signal's number after an interruption. */
// The exit codes are the run layer's (src/run/outcome.ts): the Action reads the same verdicts.
export { EXIT } from '../src/run/outcome.js';
import { EXIT } from '../src/run/outcome.js';

/** One error type the CLI catches at the top: a message for stderr and an exit code. */
export class ExitError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'ExitError';
  }
}

/** `--no-color`: the process's output as with NO_COLOR set, whatever FORCE_COLOR says. */
export function withoutColor(io: Io): Io {
  return { ...io, env: { ...io.env, NO_COLOR: '1' } };
}

/**
 * Colour follows the terminal, as Node's `stream.hasColors()` reads it (TERM=dumb: none), with the
 * house's order on top: NO_COLOR (any non-empty value, and --no-color) turns it off whatever
 * FORCE_COLOR says; FORCE_COLOR turns it on, off a terminal too (FORCE_COLOR=0 or false: off).
 */
export function useColor(stream: { isTTY?: boolean; hasColors?: (env?: object) => boolean }, env: Io['env']): boolean {
  if (env.NO_COLOR) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !(force === '0' || force === 'false');
  if (stream.isTTY !== true || env.TERM === 'dumb') return false;
  return typeof stream.hasColors === 'function' ? stream.hasColors(env) : true;
}

/** Columns assumed when the output is not a terminal (a pipe, a file, a CI log). */
export const DEFAULT_WIDTH = 80;

/** The width text output wraps to: the terminal's columns, or 80 when it is not one. */
export function terminalWidth(stream: { isTTY?: boolean; columns?: number }): number {
  const columns = stream.isTTY === true ? stream.columns : undefined;
  return typeof columns === 'number' && Number.isInteger(columns) && columns > 0 ? columns : DEFAULT_WIDTH;
}

/** A text rendering for people: wrapped to the stream's width with a hanging indent, then written as `write` does. */
export function writeText(stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number }, text: string): void {
  write(stream, wrapText(text, terminalWidth(stream)));
}

/**
 * Every line the CLI prints passes here: the renderers have neutralised each value already; this is
 * the net behind them (src/model/inert.ts, CI-log medium). Lines stay lines and our own colour
 * codes stay; any other control or invisible character is shown escaped, and no line can start a
 * GitHub workflow command (the CLI runs in CI logs too). `commands`: the text is our own workflow
 * commands (`validate --format github`), whose data is escaped already.
 */
export function write(stream: NodeJS.WritableStream, text: string, options: { commands?: boolean } = {}): void {
  const safe = inertLog(text, { colour: true, ...options });
  stream.write(safe.endsWith('\n') || safe === '' ? safe : safe + '\n');
}

/** How much the CLI says on stderr (as TF_LOG): `--log-level`, else POSTUREOPS_LOG, else `warn`. */
export const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_VARIABLE = 'POSTUREOPS_LOG';
export const LOG_FILE_VARIABLE = 'POSTUREOPS_LOG_FILE';

/** The run's level; `--verbose` asks for at least `info` (every request). An unknown value is an error. */
export function logLevel(io: Pick<Io, 'env'>, verbose?: boolean): LogLevel {
  const raw = io.env[LOG_VARIABLE];
  const given = raw === undefined || raw === '' ? 'warn' : raw.toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(given)) {
    throw new ExitError(EXIT.error, `${LOG_VARIABLE}=${JSON.stringify(raw)}: expected one of ${LOG_LEVELS.join(', ')}`);
  }
  const level = given as LogLevel;
  return verbose && LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf('info') ? 'info' : level;
}

export function logs(level: LogLevel, at: LogLevel): boolean {
  return LOG_LEVELS.indexOf(at) <= LOG_LEVELS.indexOf(level);
}

const chmodded = new Set<string>();

/**
 * A log line at `at`, when the run's level lets it through: to POSTUREOPS_LOG_FILE (appended, mode
 * 0600, timestamped, credentials of the environment redacted) when that is set, else through `line`
 * (stderr, above the status line).
 */
export function logLine(io: Pick<Io, 'env' | 'cwd'>, level: LogLevel, at: LogLevel, text: string, line: (text: string) => void): void {
  if (!logs(level, at)) return;
  const file = io.env[LOG_FILE_VARIABLE];
  if (file === undefined || file === '') {
    line(text);
    return;
  }
  const path = resolvePath(io.cwd, file);
  // The credentials postureops holds, and every variable whose name says it is a secret (GITHUB_TOKEN, ...).
  const names = Object.keys(io.env).filter((n) => n === 'SVC_API_SECRET' || n === 'SVC_API_KEY_ID' || n === 'POSTUREOPS_PLAN_KEY' || isSecretName(n));
  const secrets = names.map((n) => io.env[n]).filter((v): v is string => v !== undefined && v !== '');
  const safe = credentialRedactor(secrets).redact((io as Pick<Io, 'secrets'>).secrets?.maskText(inertLog(text)) ?? inertLog(text));
  appendFileSync(path, `${new Date().toISOString()} [${at.toUpperCase()}] ${safe}\n`, { mode: 0o600 });
  // An existing file keeps its mode on append: narrow it once per run.
  if (!chmodded.has(path)) {
    chmodSync(path, 0o600);
    chmodded.add(path);
  }
}

/** Quiet by default: bookkeeping in the renderings only at info level (--verbose) or above. */
export function quiet(io: Pick<Io, 'env'>, flags: { verbose?: boolean }): boolean {
  return !logs(logLevel(io, flags.verbose), 'info');
}
