// The steps commands share: load the configuration, open the client, fetch, plan. Each step turns
// expected failures into an ExitError with a message; nothing here exits.

import type { ClientOptions } from '../src/api/options.js';
import { resolve } from 'node:path';
import type { ApiClient, BucketBudget } from '../src/api/types.js';
import type { AccountConfig, DesiredState } from '../src/model/account.js';
import type { JsonObject } from '../src/model/json.js';
import { type Diagnostic, hasErrors } from '../src/model/diagnostics.js';
import type { LiveState } from '../src/engine/types.js';
import type { Plan } from '../src/model/plan.js';
import { EXIT, ExitError, type Io, logLevel, logLine, logs, useColor, write } from './io.js';
import type { Interruption } from './interrupt.js';
import type { RequestGroup } from '../src/engine/preflight.js';
import { consoleOf, Progress, WaitReporter } from './terminal.js';

export interface ClientFlags {
  baseUrl?: string;
  verbose?: boolean;
  maxWait?: number;
  concurrency?: number;
  /** `--max-duration`, in seconds: a run the rate-limit budget cannot finish within it is refused. */
  maxDuration?: number;
  /** `--max-response-size`, as given (checked with the environment's POSTUREOPS_MAX_RESPONSE_BYTES). */
  maxResponseSize?: string;
  /** `--max-records` and `--max-total-size`, as given (checked like maxResponseSize). */
  maxRecords?: string;
  maxTotalSize?: string;
}

/** A phase starting (`Reading live state…`): one line on stderr, on a terminal and in CI logs alike (not with --log-level error). */
export function progress(io: Io, message: string): void {
  if (logs(logLevel(io), 'warn')) consoleOf(io).line(message);
}

/** A phase's live count (terminal) or its throttled lines (CI); `undefined` with --log-level error. */
export function phaseProgress(io: Io, phase: string, total: number, now: () => number = Date.now, unit?: string): Progress | undefined {
  return logs(logLevel(io), 'warn') ? new Progress(consoleOf(io), phase, total, now, unit) : undefined;
}

/** The clock of a client's run: a test's virtual one, else the system's. */
export function clockOf(client: ApiClient): () => number {
  return clocks.get(client) ?? Date.now;
}

export async function printDiagnostics(io: Io, diagnostics: Diagnostic[]): Promise<void> {
  if (diagnostics.length === 0) return;
  const { renderDiagnostics } = await import('../src/render/diagnostics.js');
  write(io.stderr, renderDiagnostics(diagnostics, 'text', { color: useColor(io.stderr, io.env) }));
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
  const { loadConfig } = await import('../src/config/load.js');
  const result = await whileLoading(io, dir, loadConfig(resolve(io.cwd, dir), { env: io.env }));
  await printDiagnostics(io, result.diagnostics);
  if (!result.state || hasErrors(result.diagnostics)) {
    throw new ExitError(EXIT.error, 'the configuration has errors; nothing was sent to the service');
  }
  return result.state;
}

/** The accounts in scope: all declared ones, or those named with --account (each must be declared). */
export function scopeAccounts(declared: AccountConfig[], names: string[] | undefined): AccountConfig[] {
  if (!names || names.length === 0) return declared;
  const unknown = names.filter((n) => !declared.some((a) => a.name === n));
  if (unknown.length > 0) {
    const known = declared.map((a) => a.name).join(', ');
    throw new ExitError(EXIT.error, `--account ${unknown.join(', ')}: not declared in postureops.yaml (declared: ${known})`);
  }
  return declared.filter((a) => names.includes(a.name));
}

/** Seconds each client has spent waiting for rate-limit buckets, by the client's clock. */
const waited = new WeakMap<ApiClient, WaitReporter>();

export function waitedSeconds(client: ApiClient): number {
  return waited.get(client)?.waitedSeconds() ?? 0;
}

export async function openClient(io: Io, flags: ClientFlags, interruption?: Interruption): Promise<ApiClient> {
  const [{ createClient }, { clientOptionsFromEnv }, { ClientConfigError }] = await Promise.all([
    import('../src/api/client.js'),
    import('../src/api/options.js'),
    import('../src/api/types.js'),
  ]);
  let options;
  try {
    options = clientOptionsFromEnv(io.env, flags);
  } catch (err) {
    if (err instanceof ClientConfigError) throw new ExitError(EXIT.error, err.message);
    throw err;
  }
  const out = consoleOf(io);
  const waits = new WaitReporter(out);
  const level = logLevel(io, flags.verbose);
  const adjust = io.clientOptions ?? ((o: ClientOptions) => o);
  const adjusted = adjust({
    ...options,
    ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
    // A run allowed to take longer than the default wait may wait as long for one bucket.
    maxWaitSeconds: flags.maxWait ?? Math.max(DEFAULT_MAX_WAIT_SECONDS, flags.maxDuration ?? 0),
    ...(interruption ? { stopSignal: interruption.stop, abortSignal: interruption.abort } : {}),
    // --verbose / info: one line per request (to POSTUREOPS_LOG_FILE when that is set).
    log: logs(level, 'info')
      ? (e) =>
          logLine(
            io,
            level,
            'info',
            `${e.method} ${e.path}${e.account ? ` [${e.account}]` : ''} → ${e.status} ${e.ms} ms` +
              ` (${e.bucket}${e.remaining !== undefined ? `: ${e.remaining} left` : ''}${e.attempt > 1 ? `, attempt ${e.attempt}` : ''})`,
            (t) => out.line(t),
          )
      : undefined,
    onWait: waits.onWait,
  });
  const client = createClient(adjusted);
  const { baseUrl, keyId } = options;
  // What this run learnt of the buckets is kept for the next one (see budget-memory.ts).
  const remembering: ApiClient = {
    request: (req) => client.request(req),
    budget: () => client.budget(),
    stats: () => client.stats(),
    close: async () => {
      const { rememberBudget } = await import('./budget-memory.js');
      await rememberBudget(io.env, baseUrl, keyId, client.budget());
      await client.close();
    },
  };
  remembered.set(remembering, () => import('./budget-memory.js').then((m) => m.recallBudget(io.env, baseUrl, keyId)));
  waited.set(remembering, waits);
  clocks.set(remembering, adjusted.now ?? Date.now);
  return remembering;
}

const remembered = new WeakMap<ApiClient, () => Promise<BucketBudget[]>>();
/** `--max-wait` when it is not given (and --max-duration is not longer). */
const DEFAULT_MAX_WAIT_SECONDS = 900;
/** When each client's run passed its first pre-flight, on the client's clock. */
const runStart = new WeakMap<ApiClient, number>();
/** Each client's clock (a test's virtual one, else the system's): the budget's times are on it. */
const clocks = new WeakMap<ApiClient, () => number>();

/**
 * Pre-flight, before the first request of a run: the requests per bucket and how long the budget the
 * service last reported makes them take. Over `--max-duration` the run is refused (exit 3) with the
 * estimate; a run that will wait says so up front, and its waits then show the time left.
 */
export async function preflightCheck(io: Io, client: ApiClient, groups: RequestGroup[], flags: ClientFlags, what: string): Promise<void> {
  const { preflight, preflightLine, durationText, groupWaitSeconds, TOKEN_GROUP } = await import('../src/engine/preflight.js');
  const all = client.stats().total === 0 ? [TOKEN_GROUP, ...groups] : groups;
  const reported = (await remembered.get(client)?.()) ?? [];
  const now = (clocks.get(client) ?? Date.now)();
  const estimate = preflight(all, [...reported, ...client.budget()], now);
  const line = `Pre-flight (${what}): ${preflightLine(estimate)}`;
  // --max-duration bounds the whole run: a later check (apply's writes) counts the time already spent.
  const started = runStart.get(client) ?? now;
  runStart.set(client, started);
  const spent = Math.max(0, (now - started) / 1000);
  if (flags.maxDuration !== undefined && spent + estimate.seconds > flags.maxDuration) {
    write(io.stderr, line);
    const done = client.stats().total === 0 ? 'nothing was sent' : 'nothing was written';
    const so = spent >= 1 ? ` more after ${durationText(spent)} spent` : '';
    throw new ExitError(EXIT.refused, `refused by --max-duration ${durationText(flags.maxDuration)}: the run would take about ${durationText(estimate.seconds)}${so}; ${done}`);
  }
  // Said when a wait is coming or a bound was asked for; otherwise bookkeeping, at info (--verbose).
  if (estimate.seconds > 0 || flags.maxDuration !== undefined) write(io.stderr, line);
  else {
    const level = logLevel(io, flags.verbose);
    logLine(io, level, 'info', line, (t) => consoleOf(io).line(t));
  }
  const reporter = waited.get(client);
  if (reporter && estimate.seconds > 0) {
    const { budgetAt } = await import('../src/engine/budget.js');
    const start = client.stats();
    // While waiting: the slowest group's requests not sent yet, against the budget as now known.
    reporter.setEstimate((now) => {
      const slow = estimate.slowest!;
      const sent = slow.buckets.reduce((n, b) => n + (client.stats().byBucket[b] ?? 0) - (start.byBucket[b] ?? 0), 0);
      const states = slow.buckets.map((b) => client.budget().find((x) => x.bucket === b)).filter((b): b is BucketBudget => b !== undefined);
      return states.length === 0 ? undefined : groupWaitSeconds(Math.max(0, slow.requests - sent), states.map((b) => budgetAt(b, now)), now);
    });
  }
}

/**
 * The budget a plan is estimated against: the buckets this client has seen, and those only earlier
 * runs saw (the writes of the last apply), brought forward to the time of this client's last answer.
 */
async function planBudget(client: ApiClient): Promise<BucketBudget[]> {
  const seen = client.budget();
  const earlier = (await remembered.get(client)?.()) ?? [];
  const unseen = earlier.filter((b) => !seen.some((s) => s.bucket === b.bucket));
  if (unseen.length === 0) return seen;
  const { budgetAt } = await import('../src/engine/budget.js');
  const now = seen.length > 0 ? Math.max(...seen.map((b) => b.observedAt)) : Date.now();
  return [...seen, ...unseen.map((b) => budgetAt(b, now))];
}

export async function fetchLiveState(
  io: Io,
  client: ApiClient,
  accounts: AccountConfig[],
  settings?: JsonObject,
  interruption?: Interruption,
  /** What decides the kinds read per account (default: every kind): a desired state, or a saved plan's changes. */
  needs?: Pick<DesiredState, 'root' | 'resources'>,
): Promise<LiveState> {
  const [{ fetchLive }, { KINDS }, { neededKinds }] = await Promise.all([
    import('../src/engine/fetch.js'),
    import('../src/kinds/index.js'),
    import('../src/engine/needed-kinds.js'),
  ]);
  const shown = accounts.length > 3 ? `${accounts.length} accounts` : accounts.map((a) => a.name).join(', ');
  const count = phaseProgress(io, `Reading live state of ${shown}`, accounts.length, clockOf(client), 'account');
  const reading = fetchLive(client, accounts, KINDS, {
    settings,
    ...(needs ? { kindsOf: neededKinds(needs, KINDS) } : {}),
    onAccountRead: () => count?.step(),
  }).finally(() => count?.end());
  return interruption ? interruption.race(reading, 'the live state was not read completely; nothing was planned or written') : reading;
}

export interface PlanFlags extends ClientFlags {
  account?: string[];
  force?: boolean;
  rotate?: string[];
  target?: string[];
  /** Read the audit log of the accounts with drift (`plan --attribute`). */
  attribute?: boolean;
  /** `--changed-since REF`: only the accounts whose documents changed since REF. */
  changedSince?: string;
  /** `--shard I/N`: this run's share of the accounts. */
  shard?: import('../src/engine/shard.js').Shard;
}

export interface Planned {
  plan: Plan;
  client: ApiClient;
  desired: DesiredState;
}

/** Load, fetch, plan. The caller closes `client`. */
export async function computePlan(io: Io, dir: string, flags: PlanFlags, interruption?: Interruption): Promise<Planned> {
  const desired = await loadDesired(io, dir);
  const { narrowAccounts } = await import('./scope.js');
  const { accounts, scope } = await narrowAccounts(io, dir, desired, scopeAccounts(desired.root.accounts, flags.account), flags);
  const client = await openClient(io, flags, interruption);
  try {
    const [{ neededKinds }, { readGroups }, { KINDS }] = await Promise.all([
      import('../src/engine/needed-kinds.js'),
      import('../src/engine/preflight.js'),
      import('../src/kinds/index.js'),
    ]);
    await preflightCheck(io, client, readGroups(accounts, neededKinds(desired, KINDS)), flags, 'read');
    const live = await fetchLiveState(io, client, accounts, desired.root.settings, interruption, desired);
    const { plan } = await import('../src/engine/plan.js');
    const result = plan(desired, live, {
      accounts: accounts.map((a) => a.name),
      force: flags.force,
      rotate: flags.rotate,
      targets: flags.target,
      budget: await planBudget(client),
      apiCalls: live.calls,
      ...(scope ? { scope } : {}),
    });
    await printDiagnostics(io, result.diagnostics);
    if (!result.plan || hasErrors(result.diagnostics)) {
      throw new ExitError(EXIT.error, 'no plan: fix the problems above');
    }
    if (flags.attribute) {
      const { attribute } = await import('../src/engine/attribute.js');
      progress(io, 'Reading the audit log of the accounts with drift…');
      const attributed = await attribute(result.plan, client, { now: Date.now() });
      await printDiagnostics(io, attributed.diagnostics);
      return { plan: attributed.plan, client, desired };
    }
    return { plan: result.plan, client, desired };
  } catch (err) {
    await client.close();
    throw err;
  }
}

export function hasChanges(plan: Plan): boolean {
  return plan.changes.length > 0;
}
