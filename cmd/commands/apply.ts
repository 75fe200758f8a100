import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { ApiClient } from '../../src/api/types.js';
import type { Plan } from '../../src/model/plan.js';
import { planKey } from '../plan-key.js';
import type { AccountConfig } from '../../src/model/account.js';
import type { RequestGroup } from '../../src/engine/preflight.js';
import { EXIT, ExitError, type Io, quiet, useColor, write } from '../io.js';
import { Interruption } from '../interrupt.js';
import type { LiteralSource } from '../../src/model/env-markers.js';
import type { DesiredState } from '../../src/model/account.js';
import { hasErrors } from '../../src/model/diagnostics.js';
import { clockOf, computePlan, fetchLiveState, loadDesired, openClient, phaseProgress, type PlanFlags, preflightCheck, printDiagnostics, waitedSeconds } from '../pipeline.js';
import type { OutputFormat } from './plan.js';

export interface ApplyOptions extends PlanFlags {
  plan?: string;
  autoApprove?: boolean;
  format: OutputFormat;
  testChannels?: boolean;
  credentialsOut?: string;
  /** Seconds to wait for another apply's lease (0: stop at once). */
  leaseWait?: number;
  /** `--no-lease`: commander's negated flag; false skips the service-side lease. */
  lease?: boolean;
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
 * A saved plan's literal markers (secrets written in files) against the repository in `dir`, loaded
 * again: refused when a value is not the one planned (the derived plan then takes them from there).
 */
async function savedPlanLiterals(io: Io, desired: DesiredState, file: string, dir: string, plan: Plan): Promise<void> {
  const { checkLiterals, literalSource, planLiteralRefs } = await import('../../src/engine/literals.js');
  if (planLiteralRefs(plan).length === 0) return;
  const moved = checkLiterals(plan, literalSource(desired));
  if (moved) {
    write(io.stderr, [moved.message, ...moved.details.map((d) => `  - ${d}`)].join('\n'));
    throw new ExitError(EXIT.refused, `the saved plan ${file} takes values from the repository in ${dir} that changed: run postureops plan again`);
  }
}

/**
 * A saved plan is untrusted input. Its changes are derived again from the repository in `dir` and the
 * live state, with the plan's targets, in every account the plan changes, and the plan is refused
 * (exit 3) unless it holds exactly those changes: one edited, added or left out names the difference.
 * What runs is the derived plan, so a value the file holds (an `${env:...}` the repository does not
 * write there) is never read. An account the file changes nothing in is neither read nor written, as
 * `--account` leaves it out (reading every account would cost a list per collection each).
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
  await savedPlanLiterals(io, desired, file, dir, saved);
  const declared = new Set(desired.root.accounts.map((a) => a.name));
  const foreign = saved.accounts.filter((a) => !declared.has(a.name));
  if (foreign.length > 0) {
    const { inertText } = await import('../../src/model/inert.js');
    throw new ExitError(EXIT.refused, `refused: the saved plan ${file} names accounts the repository in ${dir} does not declare: ${foreign.map((a) => inertText(JSON.stringify(a.name))).join(', ')}; nothing was sent to the service`);
  }
  // The accounts the file changes something in: derived again, each whole.
  const accounts = desired.root.accounts.filter((a) => saved.changes.some((c) => c.account === a.name));
  const client = await openClient(io, opts, interruption);
  try {
    const [{ neededKinds }, { readGroups, writeGroups }, { KINDS }, { checkStale }, { planDifferences }, { plan: derive }, { literalSource }] = await Promise.all([
      import('../../src/engine/needed-kinds.js'),
      import('../../src/engine/preflight.js'),
      import('../../src/kinds/index.js'),
      import('../../src/engine/plan-file.js'),
      import('../../src/engine/plan-compare.js'),
      import('../../src/engine/plan.js'),
      import('../../src/engine/literals.js'),
    ]);
    // Before the first request: the read the derivation needs and the writes, against the budget last reported.
    await preflightCheck(
      io,
      client,
      [...readGroups(accounts, neededKinds(desired, KINDS)), ...writeGroups(saved.changes, KINDS, accounts), ...(opts.lease === false ? [] : await leaseRequests(client, accounts, saved))],
      opts,
      'read and apply',
    );
    const live = await fetchLiveState(io, client, accounts, desired.root.settings, interruption, desired);
    // Rotation is asked for per change in the file; the derived plan rotates the same resources (values from the repository).
    const rotate = saved.changes.filter((c) => c.rotate === true).map((c) => `${c.account}/${c.kind}/${c.name}`);
    const result = derive(desired, live, {
      accounts: accounts.map((a) => a.name),
      force: opts.force,
      rotate,
      ...(saved.targets ? { targets: saved.targets } : {}),
      apiCalls: live.calls,
      budget: client.budget(),
      ...(saved.scope ? { scope: saved.scope } : {}),
    });
    const derived = result.plan && !hasErrors(result.diagnostics) ? result.plan : undefined;
    // Stale (the world moved) and different (the file or the repository moved): both named, one refusal.
    const stale = checkStale(saved, live);
    const differences = derived ? planDifferences(saved, derived, desired.root.accounts) : [];
    if (stale) write(io.stderr, [stale.message, ...stale.details.map((d) => `  - ${d}`)].join('\n'));
    if (differences.length > 0) {
      write(io.stderr, [`The saved plan ${file} differs from what the repository in ${dir} and the live state ask for (${differences.length} difference${differences.length === 1 ? '' : 's'}):`, ...differences.map((d) => `  - ${d}`)].join('\n'));
    }
    if (stale || differences.length > 0) {
      const why = stale && differences.length > 0 ? 'is stale and differs from what the repository asks for' : stale ? 'is stale' : 'is not the plan the repository asks for';
      throw new ExitError(EXIT.refused, `refused: the saved plan ${file} ${why}; nothing was written: run postureops plan again`);
    }
    if (!derived) {
      await printDiagnostics(io, result.diagnostics);
      throw new ExitError(EXIT.error, `the plan's changes cannot be derived again from the repository in ${dir}: fix the problems above`);
    }
    return { plan: derived, client, literals: literalSource(desired) };
  } catch (err) {
    await client.close();
    throw err;
  }
}

interface Planned {
  plan: Plan;
  client: ApiClient;
  literals?: LiteralSource;
}

async function planNow(io: Io, dir: string, opts: ApplyOptions, interruption: Interruption): Promise<Planned> {
  const { plan, client, desired } = await computePlan(io, dir, opts, interruption);
  const { literalSource } = await import('../../src/engine/literals.js');
  return { plan, client, literals: literalSource(desired) };
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

async function applyInterruptibly(io: Io, dir: string, opts: ApplyOptions, interruption: Interruption): Promise<number> {
  const { plan, client, literals } = opts.plan
    ? await loadSavedPlan(io, dir, opts.plan, opts, interruption)
    : await planNow(io, dir, opts, interruption);
  try {
    const { renderPlan, renderApplyReport } = await import('../../src/render/index.js');
    // Text: the plan, then the report, on stdout. With json/markdown stdout holds the report alone; the
    // plan goes to stderr only when someone is asked to confirm it.
    if (opts.format === 'text') {
      write(io.stdout, renderPlan(plan, 'text', { color: useColor(io.stdout, io.env), quiet: quiet(io, opts) }));
    } else if (!opts.autoApprove) {
      write(io.stderr, renderPlan(plan, 'text', { color: useColor(io.stderr, io.env), quiet: quiet(io, opts) }));
    }
    await printDiagnostics(io, plan.diagnostics);
    if (plan.refusal?.code === 'prevent-destroy') {
      throw new ExitError(EXIT.refused, `refused: ${plan.refusal.message}`);
    }
    if (plan.refusal && !opts.force) {
      throw new ExitError(EXIT.refused, `refused: ${plan.refusal.message} (use --force to override)`);
    }
    // Now that the changes are known: their writes, against the budget as the read left it.
    if (!opts.plan && plan.changes.length > 0 && opts.maxDuration !== undefined) {
      const [{ writeGroups }, { KINDS }] = await Promise.all([import('../../src/engine/preflight.js'), import('../../src/kinds/index.js')]);
      const changed = plan.accounts.filter((a) => plan.changes.some((c) => c.account === a.name));
      await preflightCheck(io, client, [...writeGroups(plan.changes, KINDS, plan.accounts), ...(opts.lease === false ? [] : await leaseRequests(client, changed, plan))], opts, 'apply');
    }
    if (plan.changes.length === 0) {
      if (opts.format !== 'text') {
        const { apply } = await import('../../src/engine/apply.js');
        write(io.stdout, renderApplyReport(await apply(plan, client, { env: io.env, literals }), opts.format, { color: false }));
      }
      return EXIT.ok;
    }
    if (!opts.autoApprove && !(await confirm(io, interruption))) {
      if (interruption.signal) throw interruption.error('nothing was applied');
      throw new ExitError(
        EXIT.error,
        io.stdin.isTTY ? 'apply cancelled' : 'apply needs confirmation: run it on a terminal or pass --auto-approve',
      );
    }
    const [{ apply }, { defaultHolder, LeaseHeldError }, { planEnvNames }] = await Promise.all([
      import('../../src/engine/apply.js'),
      import('../../src/engine/lease.js'),
      import('../../src/engine/apply-redact.js'),
    ]);
    // Every variable the plan reads is set before the lease and the first write, not found missing
    // half-way through (a change done, the next one failing).
    const unset = planEnvNames(plan).filter((name) => io.env[name] === undefined);
    if (unset.length > 0) {
      throw new ExitError(EXIT.error, `nothing was applied: the plan reads ${unset.length === 1 ? 'a variable that is' : 'variables that are'} not set: ${unset.join(', ')} (set ${unset.length === 1 ? 'it' : 'them'}, or give a .env file with --dotenv FILE)`);
    }
    const issued = new Map<string, string>();
    if (interruption.signal) throw interruption.error('nothing was applied');
    // A live count on a terminal, a line at most every 30 s elsewhere; the report lists every result.
    const count = phaseProgress(io, 'Applying', plan.changes.length, clockOf(client), 'change');
    const report = await apply(plan, client, {
      ...(opts.lease === false
        ? {}
        : {
            lease: {
              holder: defaultHolder(io.env),
              // A signal ends a wait for another apply's lease at once.
              sleep: (ms: number) => interruption.sleep(ms, 'nothing was applied while waiting for another apply'),
              waitMs: (opts.leaseWait ?? 0) * 1000,
              onWait: (account: string, other: { holder: string }) =>
                write(io.stderr, `another apply holds the lease of account ${account} (${other.holder || 'unknown holder'}): waiting up to ${opts.leaseWait ?? 0}s`),
            },
          }),
      env: io.env,
      literals,
      testResources: opts.testChannels,
      concurrency: opts.concurrency,
      signal: interruption.stop,
      waited: () => waitedSeconds(client),
      hooks: {
        onChangeDone: (r) => count?.step(r.status !== 'failed'),
        onCredential: (c, value) => issued.set(c.key, value),
      },
    }).finally(() => count?.end()).catch((err: unknown) => {
      if (!(err instanceof LeaseHeldError)) throw err;
      throw new ExitError(
        EXIT.leaseHeld,
        `${err.message}. Run apply again when it has finished (it plans afresh), pass --lease-wait SECONDS to wait for it, or, when its holder is gone, free it with postureops unlock.`,
      );
    });
    // The report first: a credentials file that cannot be written must not hide what was applied.
    write(io.stdout, renderApplyReport(report, opts.format, { color: useColor(io.stdout, io.env), quiet: quiet(io, opts) }));
    await handOutCredentials(io, opts, issued);
    if (report.stopped?.cause === 'lease-lost') {
      // The report above says what was done; no write was sent after the lease was found lost.
      throw new ExitError(EXIT.leaseHeld, `${report.stopped.message}: run plan and apply again`);
    }
    return interruption.exitCode() ?? (report.summary.failed > 0 || report.stopped ? EXIT.error : EXIT.ok);
  } finally {
    await client.close();
  }
}

/**
 * The apply lease's requests for the pre-flight: taking, fencing each write, freeing, and renewals
 * for as long as the writes (with the lease's own) take by the budget as the client knows it.
 */
async function leaseRequests(client: ApiClient, accounts: readonly AccountConfig[], plan: Plan): Promise<RequestGroup[]> {
  const [{ leaseGroups, preflight, writeGroups }, { KINDS }] = await Promise.all([import('../../src/engine/preflight.js'), import('../../src/kinds/index.js')]);
  const writes = writeGroups(plan.changes, KINDS, plan.accounts);
  const { seconds } = preflight([...writes, ...leaseGroups(accounts, KINDS, plan.changes)], client.budget(), Date.now());
  return leaseGroups(accounts, KINDS, plan.changes, seconds);
}
