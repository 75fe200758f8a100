// What the commands share: loading the configuration, and the run layer (src/run) set up and shown
// as the CLI shows it: its flags, its wait line, its progress, its problems as exits. Each expected
// failure becomes an ExitError with a message; nothing here exits.

import { resolve } from 'node:path';
import type { AccountConfig, DesiredState } from '../src/model/account.js';
import { type Diagnostic, hasErrors } from '../src/model/diagnostics.js';
import type { Plan } from '../src/model/plan.js';
import type { RunProblem } from '../src/run/errors.js';
import type { LoadProgress, LoadResult } from '../src/run/load.js';
import type { Planned } from '../src/run/plan-run.js';
import type { ReadHooks } from '../src/run/read.js';
import type { StartRehearsal } from '../src/run/rehearse.js';
import type { Run, RunFlags, RunSetup } from '../src/run/run.js';
import { EXIT, ExitError, type Io, logLevel, logLine, logs, readInto, useColor, write, writeText } from './io.js';
import type { Interruption } from './interrupt.js';
import { consoleOf, LeaseCountdown, Progress, WaitReporter } from './terminal.js';

export interface ClientFlags extends RunFlags {
  verbose?: boolean;
}

/** A phase starting (`Reading live state…`): one line on stderr, on a terminal and in CI logs alike (not with --log-level error). */
export function progress(io: Io, message: string): void {
  if (logs(logLevel(io), 'warn')) consoleOf(io).line(message);
}

/** A phase's live count (terminal) or its throttled lines (CI); `undefined` with --log-level error. */
export function phaseProgress(io: Io, phase: string, total: number, now: () => number = Date.now, unit?: string): Progress | undefined {
  if (!logs(logLevel(io), 'warn')) return undefined;
  // The run's waits (its budget model, its countdown) move the line: elapsed and time left each second.
  const waits = consoleOf(io).waits;
  const progress = new Progress(consoleOf(io), phase, total, now, unit, waits ? (at) => waits.left(at) : undefined);
  if (waits) {
    waits.onTick = () => progress.tick();
    // Off a terminal the progress lines (at most one every 30 s) say the wait under way too.
    progress.also = () => waits.brief(now());
    progress.onEnd = () => {
      waits.onTick = undefined;
    };
  }
  return progress;
}


export async function printDiagnostics(io: Io, diagnostics: Diagnostic[]): Promise<void> {
  if (diagnostics.length === 0) return;
  const { renderDiagnostics } = await import('../src/render/diagnostics.js');
  writeText(io.stderr, renderDiagnostics(diagnostics, 'text', { color: useColor(io.stderr, io.env), secrets: io.secrets }));
}

/**
 * Loading the files (10,000 resources take seconds): a live mark on a terminal, one line in CI logs
 * (`ciLine`: not for validate, whose whole output is the verdict).
 */
export function whileLoading<T>(io: Io, dir: string, loading: Promise<T>, ciLine = true): Promise<T> {
  if (!logs(logLevel(io), 'warn')) return loading;
  if (!io.stderr.isTTY) {
    if (!ciLine) return loading;
    consoleOf(io).line(`Loading the files in ${dir}`);
    return loading;
  }
  consoleOf(io).setStatus(`Loading the files in ${dir}…`, 'progress');
  return loading.finally(() => consoleOf(io).setStatus(undefined, 'progress'));
}

export async function loadDesired(io: Io, dir: string): Promise<DesiredState> {
  const { desiredOf } = await import('../src/run/load.js');
  const result = await loadShown(io, dir);
  return withExit(io, async () => desiredOf(result));
}

/** The files loaded, their problems shown; `progress` told as they load (the plan run's read ahead). */
async function loadShown(io: Io, dir: string, progress?: LoadProgress): Promise<LoadResult> {
  const { loadConfiguration } = await import('../src/run/load.js');
  const result = await whileLoading(io, dir, loadConfiguration(resolve(io.cwd, dir), { ...readInto(io), env: io.env, ...(progress ? { onProgress: progress } : {}) }));
  await printDiagnostics(io, result.diagnostics);
  return result;
}

/** The accounts in scope: all declared ones, or those named with --account (each must be declared). */
export async function scopeAccounts(io: Io, declared: AccountConfig[], names: string[] | undefined): Promise<AccountConfig[]> {
  const { selectAccounts } = await import('../src/run/read.js');
  return withExit(io, async () => selectAccounts(declared, names));
}

/** The run's settings as the CLI gives them: its flags, its wait line, its budget memory (the user's cache folder). */
export async function runSetup(io: Io, flags: ClientFlags, interruption?: Interruption): Promise<RunSetup> {
  const { cacheDir, fileBudgetMemory } = await import('../src/run/budget-memory.js');
  const out = consoleOf(io);
  const level = logLevel(io, flags.verbose);
  return {
    env: io.env,
    flags,
    memory: (baseUrl, keyId) => fileBudgetMemory(cacheDir(io.env), baseUrl, keyId),
    waits: waitReporter(io, out),
    ...(interruption ? { signals: { stop: interruption.stop, abort: interruption.abort } } : {}),
    ...(io.clientOptions ? { adjust: io.clientOptions } : {}),
    // --verbose / info: one line per request (to POSTUREOPS_LOG_FILE when that is set).
    ...(logs(level, 'info')
      ? {
          log: (e) =>
            logLine(
              io,
              level,
              'info',
              `${e.method} ${e.path}${e.account ? ` [${e.account}]` : ''} → ${e.status} ${e.ms} ms` +
                ` (${e.bucket}${e.remaining !== undefined ? `: ${e.remaining} left` : ''}${e.attempt > 1 ? `, attempt ${e.attempt}` : ''})`,
              (t) => out.line(t),
            ),
        }
      : {}),
    // Said when a wait is coming or a bound was asked for; otherwise bookkeeping, at info (--verbose).
    onPreflight: (note) => {
      if (note.seconds > 0 || note.bounded) write(io.stderr, note.line);
      else logLine(io, level, 'info', note.line, (t) => out.line(t));
    },
  };
}

function waitReporter(io: Io, out: ReturnType<typeof consoleOf>): WaitReporter {
  const waits = new WaitReporter(out);
  // The run on this stream now: its phases' progress moves with its waits.
  out.waits = waits;
  return waits;
}

/** Opens a run (its client) for commands that drive the service themselves (unlock). */
export async function openRun(io: Io, flags: ClientFlags, interruption?: Interruption): Promise<Run> {
  const { Run } = await import('../src/run/run.js');
  const setup = await runSetup(io, flags, interruption);
  return withExit(io, async () => Run.open(setup));
}

/** The live state's read as the CLI shows it: a count per account, raced with a signal. */
export function readHooks(io: Io, interruption?: Interruption): ReadHooks {
  return {
    reading: (accounts, run) => {
      const shown = accounts.length > 3 ? `${accounts.length} accounts` : accounts.map((a) => a.name).join(', ');
      return phaseProgress(io, `Reading live state of ${shown}`, accounts.length, run.now, 'account');
    },
    ...(interruption ? { race: <T>(reading: Promise<T>) => interruption.race(reading, 'the live state was not read completely; nothing was planned or written') } : {}),
  };
}

/** A run's problem in the CLI's words: the exit code and the lines on stderr. `saved`: the plan file apply --plan read, and its repository. */
export async function exitFor(io: Io, problem: RunProblem, saved?: { file: string; dir: string }): Promise<ExitError> {
  const file = saved?.file ?? 'the saved plan';
  const dir = saved?.dir ?? '.';
  const { exitCodeOf, problemVerdict } = await import('../src/run/outcome.js');
  // The code is the run layer's verdict; the words are the CLI's.
  const code = exitCodeOf(problemVerdict(problem));
  switch (problem.kind) {
    case 'invalid':
      return new ExitError(
        code,
        problem.sent === undefined
          ? 'the configuration has errors; nothing was sent to the service'
          : `the configuration has errors; nothing was written (${problem.sent} request${problem.sent === 1 ? '' : 's'} to read the live state had been sent while the files loaded)`,
      );
    case 'client-config':
    case 'scope':
      return new ExitError(code, problem.message);
    case 'unknown-account':
      return new ExitError(code, `--account ${problem.unknown.join(', ')}: not declared in postureops.yaml (declared: ${problem.declared.join(', ')})`);
    case 'too-long': {
      const t = problem.too;
      const so = t.spentSeconds >= 1 ? ` more after ${t.text.spent} spent` : '';
      const { rememberedNote } = await import('../src/run/errors.js');
      return new ExitError(code, `refused by --max-duration ${t.text.maxDuration}: the run would take about ${t.text.seconds}${so}; ${t.nothingSent ? 'nothing was sent' : 'nothing was written'}${rememberedNote(t)}`);
    }
    case 'no-plan':
      await printDiagnostics(io, problem.diagnostics);
      if (problem.saved) return new ExitError(code, `the plan's changes cannot be derived again from the repository in ${dir}: fix the problems above`);
      return new ExitError(code, 'no plan: fix the problems above');
    case 'saved-literals':
      write(io.stderr, [problem.message, ...problem.details.map((d) => `  - ${d}`)].join('\n'));
      return new ExitError(code, `the saved plan ${file} takes values from the repository in ${dir} that changed: run postureops plan again`);
    case 'saved-foreign': {
      const { inertText } = await import('../src/model/inert.js');
      const names = problem.names.map((n) => inertText(JSON.stringify(n))).join(', ');
      return new ExitError(code, `refused: the saved plan ${file} names accounts the repository in ${dir} does not declare: ${names}; nothing was sent to the service`);
    }
    case 'refused':
      return new ExitError(code, `refused: ${problem.refusal.message}${problem.overridable ? ' (use --force to override)' : problem.plan.rehearsal?.outcome === 'refused' || problem.plan.rehearsal?.outcome === 'failed' ? '; nothing was written (--no-rehearse skips the rehearsal)' : ''}`);
    case 'unset-env': {
      const one = problem.names.length === 1;
      return new ExitError(
        code,
        `nothing was applied: the plan reads ${one ? 'a variable that is' : 'variables that are'} not set: ${problem.names.join(', ')} (set ${one ? 'it' : 'them'}, or give a .env file with --dotenv FILE)`,
      );
    }
    case 'lease-held':
      return new ExitError(
        code,
        `${problem.message}. Run apply again when it has finished (it plans afresh), pass --lease-wait SECONDS to wait for it, or, when its holder is gone, free it with postureops unlock.`,
      );
    case 'saved-differs': {
      const { stale, differences } = problem;
      if (stale) write(io.stderr, [stale.message, ...stale.details.map((d) => `  - ${d}`)].join('\n'));
      if (differences.length > 0) {
        const n = `${differences.length} difference${differences.length === 1 ? '' : 's'}`;
        write(io.stderr, [`The saved plan ${file} differs from what the repository in ${dir} and the live state ask for (${n}):`, ...differences.map((d) => `  - ${d}`)].join('\n'));
      }
      const why = stale && differences.length > 0 ? 'is stale and differs from what the repository asks for' : stale ? 'is stale' : 'is not the plan the repository asks for';
      return new ExitError(code, `refused: the saved plan ${file} ${why}; nothing was written: run postureops plan again`);
    }
    case 'lease-wait-stopped':
      return new ExitError(EXIT.error, problem.message);
  }
}

/** Runs `work`, turning a run's problem into the CLI's exit. */
export async function withExit<T>(io: Io, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const { RunError } = await import('../src/run/errors.js');
    if (err instanceof RunError) throw await exitFor(io, err.problem);
    throw err;
  }
}

export interface PlanFlags extends ClientFlags {
  account?: string[];
  /** `--force`: the plan request's, and so the refusal check's and the apply's (one way in). */
  force: boolean;
  rotate?: string[];
  target?: string[];
  /** Read the audit log of the accounts with drift (`plan --attribute`). */
  attribute?: boolean;
  /** `--changed-since REF`: only the accounts whose documents changed since REF. */
  changedSince?: string;
  /** `--shard I/N`: this run's share of the accounts. */
  shard?: import('../src/plan/core/shard.js').Shard;
  /** False with apply's `--no-lease` (plan has no such flag). */
  lease?: boolean;
  /** False with `--no-rehearse`: no rehearsal on the emulator before the plan is shown. */
  rehearse: boolean;
}

/**
 * The rehearsal's stand-in (src/run/rehearse.ts): the emulator, seeded with the lists the run read,
 * loaded only when a plan has changes to rehearse.
 */
export const startRehearsal: StartRehearsal = async (seed) => (await import('../src/emulator/index.js')).startEmulator(seed);

/** A rehearsal under way: a status line on a terminal (its outcome is in the plan shown after). */
export function rehearsalStatus(io: Io): (plan: Plan) => () => void {
  return (plan) => {
    if (!io.stderr.isTTY || !logs(logLevel(io), 'warn')) return () => {};
    const n = plan.changes.length;
    consoleOf(io).setStatus(`Rehearsing ${n} change${n === 1 ? '' : 's'} on the emulator…`, 'progress');
    return () => consoleOf(io).setStatus(undefined, 'progress');
  };
}

/** Load, scope, read, plan: the run layer's plan run, shown as the CLI shows it. The caller closes `planned.run`. */
export async function computePlan(io: Io, dir: string, flags: PlanFlags, interruption?: Interruption, lease?: LeaseFlags): Promise<Planned> {
  const { planRun } = await import('../src/run/plan-run.js');
  const setup = { ...(await runSetup(io, flags, interruption)), ...(lease ? { lease: await leaseSetup(io, lease) } : {}) };
  const request = {
    lease: lease !== undefined,
    ...(flags.lease === false ? { noLease: true } : {}),
    // Loaded by the run: a plain plan reads the live state while the files load.
    desired: (progress?: LoadProgress) => loadShown(io, dir, progress),
    dir: resolve(io.cwd, dir),
    accounts: flags.account,
    force: flags.force,
    rotate: flags.rotate,
    targets: flags.target,
    attribute: flags.attribute,
    ...(flags.changedSince !== undefined ? { changedSince: flags.changedSince } : {}),
    ...(flags.shard ? { shard: flags.shard } : {}),
    ...(flags.rehearse ? { rehearse: startRehearsal } : {}),
  };
  return withExit(io, () =>
    planRun(setup, request, {
      ...readHooks(io, interruption),
      rehearsing: rehearsalStatus(io),
      diagnostics: (d) => printDiagnostics(io, d),
      attributing: () => progress(io, 'Reading the audit log of the accounts with drift…'),
    }),
  );
}

/** `--lease-wait`, in seconds. */
export interface LeaseFlags {
  leaseWait?: number;
}

/** The apply lease as the CLI takes it: its holder, its wait with a countdown on stderr, the clock (a test's). */
export async function leaseSetup(io: Io, flags: LeaseFlags): Promise<NonNullable<RunSetup['lease']>> {
  const { leasePolicy } = await import('../src/run/apply-run.js');
  const waitS = flags.leaseWait ?? 0;
  const clock = io.leaseClock;
  // The countdown runs on the lease's clock (a test's virtual one), else the monotonic one.
  const countdown = new LeaseCountdown(consoleOf(io), waitS, clock ? () => clock.mono() : () => performance.now(), (line) => write(io.stderr, line));
  return {
    ...leasePolicy(io.env),
    waitMs: waitS * 1000,
    // Whatever ended the run (done, refused, interrupted): what became of the lease.
    onClosed: (said) => write(io.stderr, `apply lease: ${said}`),
    ...(clock ? { clock } : {}),
    onWait: countdown.onWait,
  };
}

export function hasChanges(plan: Plan): boolean {
  return plan.changes.length > 0;
}
