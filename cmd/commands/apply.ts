import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Planned } from '../../src/run/plan-run.js';
import { planKey } from '../plan-key.js';
import { EXIT, ExitError, type Io, quiet, useColor, write, writeText } from '../io.js';
import { Interruption } from '../interrupt.js';
import { computePlan, exitFor, leaseSetup, loadDesired, phaseProgress, type PlanFlags, printDiagnostics, readHooks, runSetup, withExit } from '../pipeline.js';
import type { OutputFormat } from './plan.js';

export interface ApplyOptions extends PlanFlags {
  plan?: string;
  autoApprove?: boolean;
  /** Text: the plan not shown again, the report as its failures and summary (the demo, which showed the plan; no flag). */
  brief?: boolean;
  format: OutputFormat;
  testChannels?: boolean;
  credentialsOut?: string;
  /** Seconds to wait for another apply's lease (0: stop at once). */
  leaseWait: number;
  /** False with `--no-lease`: no service-side lease. */
  lease: boolean;
}

/** Issued credentials go to --credentials-out and nowhere else; without it, the user is told what was not kept. */
async function handOutCredentials(io: Io, opts: ApplyOptions, issued: ReadonlyMap<string, string>): Promise<void> {
  if (issued.size === 0) return;
  const keys = [...issued.keys()].join(', ');
  if (opts.credentialsOut === undefined) {
    write(io.stderr, `note: the service issued credentials for ${keys}; they were not saved: pass --credentials-out FILE to keep them`);
    return;
  }
  const { saveCredentials } = await import('../credentials.js');
  const file = resolve(io.cwd, opts.credentialsOut);
  try {
    await saveCredentials(file, issued);
  } catch (err) {
    throw new ExitError(EXIT.error, `could not write credentials for ${keys} to ${opts.credentialsOut}: ${err instanceof Error ? err.message : String(err)}`);
  }
  write(io.stderr, `credentials issued for ${keys} written to ${opts.credentialsOut} (mode 0600)`);
}

/** Asks on a terminal (false without one, on Ctrl-C, or on a signal); only `yes` says yes. */
export async function confirm(io: Io, interruption: Interruption, question = "Apply these changes? Only 'yes' is accepted: "): Promise<boolean> {
  if (!io.stdin.isTTY) return false;
  const rl = createInterface({ input: io.stdin, output: io.stderr });
  // Ctrl-C at the prompt reaches readline, not the process: a "no", like a signal.
  const cancel = new AbortController();
  rl.on('SIGINT', () => cancel.abort());
  try {
    const answer = await rl.question(question, { signal: AbortSignal.any([cancel.signal, interruption.stop]) });
    return answer.trim() === 'yes';
  } catch (err) {
    if ((err as Error).name === 'AbortError') return false;
    throw err;
  } finally {
    rl.close();
  }
}

/**
 * A saved plan is untrusted input: the run layer derives its changes again from the repository in
 * `dir` and the live state and refuses it (exit 3) unless it holds exactly those (deriveSavedPlan).
 */
async function loadSavedPlan(io: Io, dir: string, file: string, opts: ApplyOptions, interruption: Interruption): Promise<Planned> {
  const { readSavedPlan } = await import('./show.js');
  const saved = await readSavedPlan(io, file, {
    unchecked: 'it is checked against the repository and the live state only',
    refused: 'nothing was sent to the service',
  });
  const { existsSync } = await import('node:fs');
  if (!['postureops.yaml', 'postureops.yml'].some((name) => existsSync(resolve(io.cwd, dir, name)))) {
    throw new ExitError(EXIT.error, `no postureops.yaml in ${dir}: apply --plan derives the plan's changes again from the repository, so run it in the repository's folder or give that folder as DIR`);
  }
  const desired = await loadDesired(io, dir);
  const [{ deriveSavedPlan }, { RunError }] = await Promise.all([import('../../src/run/apply-run.js'), import('../../src/run/errors.js')]);
  const lease = leaseWanted(io, opts);
  const setup = { ...(await runSetup(io, opts, interruption)), ...(lease ? { lease: await leaseSetup(io, opts) } : {}) };
  try {
    const { startRehearsal } = await import('../pipeline.js');
    return await deriveSavedPlan(setup, { desired, saved, force: opts.force, lease, tests: opts.testChannels === true, ...(opts.rehearse ? { rehearse: startRehearsal } : {}) }, readHooks(io, interruption));
  } catch (err) {
    if (err instanceof RunError) throw await exitFor(io, err.problem, { file, dir });
    throw err;
  }
}
export async function applyCommand(io: Io, dir: string, opts: ApplyOptions): Promise<number> {
  if (opts.plan && opts.target) throw new ExitError(EXIT.error, '--target narrows a new plan; a saved plan is applied whole (plan it with --target)');
  for (const [flag, given] of [['--changed-since', opts.changedSince], ['--shard', opts.shard]] as const) {
    if (opts.plan && given !== undefined) throw new ExitError(EXIT.error, `${flag} narrows a new plan; a saved plan is applied whole (plan it with ${flag})`);
  }
  const interruption = new Interruption(io);
  try {
    return await applyInterruptibly(io, dir, opts, interruption);
  } catch (err) {
    // Interrupted before the first write (while reading, or waiting for a lease or a bucket): the
    // exit code says so (130/143), whatever the request that the signal cut short said.
    if (interruption.exitCode() !== undefined && !(err instanceof ExitError && err.code === interruption.exitCode())) {
      throw interruption.error(`nothing was applied (${err instanceof Error ? err.message : String(err)})`);
    }
    throw err;
  } finally {
    interruption.dispose();
  }
}

/**
 * The lease is taken before the live state is read, and held while someone is asked: unless
 * --no-lease, or no one can say yes (no terminal and no --auto-approve: nothing will be written).
 */
function leaseWanted(io: Io, opts: ApplyOptions): boolean {
  return opts.lease && (opts.autoApprove === true || io.stdin.isTTY === true);
}

async function applyInterruptibly(io: Io, dir: string, opts: ApplyOptions, interruption: Interruption): Promise<number> {
  const planned = opts.plan
    ? await loadSavedPlan(io, dir, opts.plan, opts, interruption)
    : await computePlan(io, dir, opts, interruption, leaseWanted(io, opts) ? { leaseWait: opts.leaseWait } : undefined);
  const { plan, run } = planned;
  try {
    const { renderPlan, renderApplyReport } = await import('../../src/render/index.js');
    // Text: the plan, then the report, on stdout. With json/markdown stdout holds the report alone; the
    // plan goes to stderr only when someone is asked to confirm it.
    if (opts.format === 'text' && !opts.brief) {
      writeText(io.stdout, renderPlan(plan, 'text', { color: useColor(io.stdout, io.env), quiet: quiet(io, opts), secrets: io.secrets }));
    } else if (!opts.autoApprove) {
      writeText(io.stderr, renderPlan(plan, 'text', { color: useColor(io.stderr, io.env), quiet: quiet(io, opts), secrets: io.secrets }));
    }
    await printDiagnostics(io, plan.diagnostics);
    const { applyRun, readyToApply } = await import('../../src/run/apply-run.js');
    // The engine's refusal (unless --force), then the writes against the budget as the read left it.
    await withExit(io, () => readyToApply(planned, { lease: opts.lease, tests: opts.testChannels === true }));
    if (plan.changes.length === 0) {
      // Releases the lease taken for the read (the report says so).
      const report = await withExit(io, () => applyRun(planned, { env: io.env }));
      if (opts.format !== 'text') write(io.stdout, renderApplyReport(report, opts.format, { color: false, secrets: io.secrets }));
      return EXIT.ok;
    }
    if (!opts.autoApprove && !(await confirm(io, interruption))) {
      if (interruption.signal) throw interruption.error('nothing was applied');
      throw new ExitError(
        EXIT.error,
        io.stdin.isTTY ? 'apply cancelled' : 'apply needs confirmation: run it on a terminal or pass --auto-approve',
      );
    }
    const issued = new Map<string, string>();
    if (interruption.signal) throw interruption.error('nothing was applied');
    // A live count on a terminal, a line at most every 30 s elsewhere; the report lists every result.
    const count = phaseProgress(io, 'Applying', plan.changes.length, run.now, 'change');
    // The run layer checks every variable the plan reads before the first write, and says why it
    // stopped (unset variables, a refusal) as a problem. The lease was taken before the read.
    const report = await withExit(io, () =>
      applyRun(planned, {
        env: io.env,
        testResources: opts.testChannels,
        concurrency: opts.concurrency,
        signal: interruption.stop,
        hooks: {
          onChangeDone: (r) => count?.step(r.status !== 'failed'),
          onCredential: (c, value) => issued.set(c.key, value),
        },
      }).finally(() => count?.end()),
    );
    // The report first: a credentials file that cannot be written must not hide what was applied.
    const rendered = renderApplyReport(report, opts.format, { color: useColor(io.stdout, io.env), quiet: quiet(io, opts), ...(opts.brief ? { brief: true } : {}), secrets: io.secrets });
    if (opts.format === 'text') writeText(io.stdout, rendered);
    else write(io.stdout, rendered);
    await handOutCredentials(io, opts, issued);
    const { exitCodeOf, reportVerdict } = await import('../../src/run/outcome.js');
    const verdict = reportVerdict(report);
    if (verdict === 'lease-held' && report.stopped) {
      // The report above says what was done; no write was sent after the lease was found lost.
      throw new ExitError(exitCodeOf(verdict), `${report.stopped.message}: run plan and apply again`);
    }
    return interruption.exitCode() ?? exitCodeOf(verdict);
  } finally {
    // Releases the lease (and says so: leaseSetup's onClosed).
    await run.close();
  }
}
