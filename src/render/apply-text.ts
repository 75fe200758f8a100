// The apply report for a terminal: each result per account with its status, failures explained,
// then one summary line. Values from the service (names, ids, its error messages) go through
// inertText (`v`) before colour wraps them.

import { inertText as v } from '../model/inert.js';
import type { ApplyReport, ApplyStop, ChangeResult, FailedTest, ResultStatus } from '../model/plan.js';
import { palette, type Palette } from './ansi.js';
import { ACTION_SIGN, ACTION_WORD, callsText, duration, groupByAccount, leaseText } from './common.js';
import { reasonPaint } from './reasons.js';

export function applySummaryLine(report: ApplyReport): string {
  const s = report.summary;
  const total = s.done + s.failed + s.skipped;
  if (total === 0) return 'Apply: nothing to do.';
  return `Apply: ${s.done} done, ${s.failed} failed, ${s.skipped} skipped of ${total} changes (${s.create} create, ${s.update} update, ${s.replace} replace, ${s.delete} delete).`;
}

/** `Test of channel pager (prod) failed, and routing requirement critical-pages relies on it: <message>`. */
export function failedTestLine(t: FailedTest): string {
  const reqs = t.requirements.length === 1 ? `routing requirement ${t.requirements[0]} relies` : `routing requirements ${t.requirements.join(', ')} rely`;
  return `Test of ${t.kind} ${t.name} (${t.account}) failed, and ${reqs} on it${t.message ? `: ${t.message}` : ''}`;
}

/** Why the run ended early, and what that leaves: `Interrupted by SIGINT: 4 changes not started; ...`. */
export function stopLine(stop: ApplyStop): string {
  const message = v(stop.message);
  const what = stop.cause === 'interrupted' ? message[0].toUpperCase() + message.slice(1) : `Stopped: ${message}`;
  const rest = `${stop.notStarted} change${stop.notStarted === 1 ? '' : 's'} not started`;
  const next =
    stop.cause === 'interrupted' ? 'run apply again to finish' : stop.cause === 'lease-lost' ? 'run plan and apply again' : 'run apply again once the service can be reached';
  return `${what}: ${rest}; ${next}.`;
}

export function renderApplyText(report: ApplyReport, options: { color: boolean; quiet?: boolean; brief?: boolean }): string {
  const c = palette(options.color);
  const out: string[] = [];
  for (const [account, results] of groupByAccount(report.results, report.accounts ?? [])) {
    const shown = options.brief ? results.filter((r) => r.status !== 'done') : results;
    if (shown.length === 0) continue;
    out.push(c.bold(`Account ${v(account)}`));
    for (const r of shown) out.push(...resultLines(r, c));
    out.push('');
  }
  // Quiet (the CLI's default): the calls only with --verbose, the waits only when there were some.
  if (!options.quiet) out.push(`API calls made: ${callsText(report.apiCalls)}`);
  if (!options.quiet || report.waitedSeconds > 0) out.push(`Waited for rate limits: ${report.waitedSeconds > 0 ? duration(report.waitedSeconds) : 'no'}`);
  if (report.lease) out.push(v(leaseText(report.lease)));
  out.push('');
  if (report.stopped) out.push(c.red(c.bold(stopLine(report.stopped))));
  for (const t of report.failedTests ?? []) out.push(c.red(c.bold(v(failedTestLine(t)))));
  const line = applySummaryLine(report);
  out.push(report.summary.failed > 0 ? c.red(c.bold(line)) : c.bold(line));
  return out.join('\n') + '\n';
}

const STATUS_WORD: Record<ResultStatus, string> = { done: 'done   ', failed: 'FAILED ', skipped: 'skipped' };

function resultLines(r: ChangeResult, c: Palette): string[] {
  const paint = r.status === 'done' ? c.green : r.status === 'failed' ? c.red : c.yellow;
  const id = r.liveId ? ' ' + c.dim(`[${v(r.liveId)}]`) : '';
  const out = [`  ${paint(STATUS_WORD[r.status])} ${ACTION_SIGN[r.action]} ${ACTION_WORD[r.action]} ${c.bold(`${v(r.kind)} ${v(r.name)}`)}${id}`];
  const pad = '            ';
  if (r.reason) out.push(pad + reasonPaint(r.reasonCode, c)(v(r.reason)));
  if (r.test) {
    const msg = r.test.message ? `: ${v(r.test.message)}` : '';
    out.push(pad + (r.test.ok ? c.green(`test ok${msg}`) : c.red(`test failed${msg}`)));
  }
  return out;
}
