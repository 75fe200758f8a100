// The plan for a terminal: refusal first, changes per account with field diffs, then what is left
// alone, warnings, the rate-limit budget, and one summary line. Every value from the service or the
// files goes through inertText (`v`) before colour wraps it: one line each, nothing a terminal acts on.

import { sortDiagnostics } from '../model/diagnostics.js';
import { inertLog, inertText as v } from '../model/inert.js';
import type { Action, Change, Plan } from '../model/plan.js';
import { palette, type Paint, type Palette } from './ansi.js';
import {
  ACTION_SIGN,
  ACTION_WORD,
  budgetText,
  callsText,
  UNREAD_REASON,
  unreadLines,
  diagnosticLine,
  duration,
  groupByAccount,
  linkNotes,
  leaseShareText,
  longestWait,
  partialText,
  retryReserveText,
  planSummaryLine,
  refusalRemedy,
  rehearsalLine,
  scopeText,
  sourceText,
} from './common.js';
import { changeDiff, childDiff, pointerNotes, type DiffLine } from './display.js';
import { auditSection, lastChangeText } from './attribution.js';
import type { Attribution } from '../model/plan.js';
import { planRoutingLines } from './routing-text.js';
import { reasonPaint } from './reasons.js';

export function renderPlanText(plan: Plan, options: { color: boolean; quiet?: boolean; brief?: boolean }): string {
  const c = palette(options.color);
  const out: string[] = [];

  if (plan.refusal) {
    out.push(c.red(c.bold(`Plan refused (${plan.refusal.code}): ${v(plan.refusal.message)}`)));
    for (const d of plan.refusal.details) out.push(c.red(`  - ${v(d)}`));
    out.push(c.red(refusalRemedy(plan.refusal)), '');
  }

  const partial = partialText(plan.targets);
  if (partial) out.push(c.yellow(v(partial)), '');

  const scope = scopeText(plan);
  if (scope) {
    out.push(c.yellow(v(scope.headline)));
    for (const [reason, accounts] of scope.groups) out.push(`  ${c.dim(`${v(reason)} (${accounts.length}):`)} ${accounts.map(v).join(', ')}`);
    out.push('');
  }

  const accountOrder = plan.accounts.map((a) => a.name);
  for (const [account, changes] of groupByAccount(plan.changes, accountOrder)) {
    out.push(c.bold(`Account ${v(account)}`));
    // Each change's lines joined at once: one string lives on to the end instead of a dozen.
    const lines: string[] = [];
    for (const change of changes) {
      changeLines(change, c, lines, plan.attribution, options.brief);
      out.push(lines.join('\n'));
      lines.length = 0;
    }
    out.push('');
  }

  out.push(...planRoutingLines(plan.routing, c));

  if (plan.unmanaged.length > 0) {
    out.push(c.bold('Unmanaged (in the service, declared in no file; left alone):'));
    for (const [account, items] of groupByAccount(plan.unmanaged, accountOrder)) {
      for (const u of items) {
        const who = lastChangeText(u.lastChange);
        out.push(`  ${v(account)} ${v(u.kind)} ${v(u.name)} ${c.dim(`[${v(u.id)}]`)}${u.protected ? ' (protected)' : ''}${who ? ' ' + c.dim(`(${v(who)})`) : ''}`);
        out.push(...auditText(auditSection(u, plan.attribution), '      ', c));
      }
    }
    out.push('');
  }

  if (plan.diagnostics.length > 0) {
    out.push(c.bold('Warnings:'));
    for (const d of sortDiagnostics(plan.diagnostics)) {
      const paint = d.severity === 'error' ? c.red : c.yellow;
      out.push(`  ${paint(v(diagnosticLine(d)))}`);
    }
    out.push('');
  }

  // Quiet (the CLI's default): the bookkeeping only when apply will have to wait for a bucket.
  const bookkeeping = !options.quiet || longestWait(plan.budget) > 0;
  if (bookkeeping && plan.unread && plan.unread.length > 0) {
    out.push(c.dim(`Not read (${UNREAD_REASON}):`));
    for (const line of unreadLines(plan.unread)) out.push(c.dim(`  ${v(line)}`));
  }
  if (bookkeeping) out.push(`API calls made: ${callsText(plan.apiCalls)}`);
  if (bookkeeping && plan.budget.length > 0) {
    out.push('Requests apply needs, per rate-limit bucket:');
    const width = Math.max(...plan.budget.map((b) => v(b.bucket).length));
    for (const b of plan.budget) out.push(`  ${v(b.bucket).padEnd(width)}  ${budgetText(b)}`);
    const lease = leaseShareText(plan);
    if (lease !== undefined) out.push(`  of these, ${lease}`);
    const wait = longestWait(plan.budget);
    out.push(wait > 0 ? c.yellow(`Estimated wait for rate limits: about ${duration(wait)}`) : 'Estimated wait for rate limits: none');
    const reserve = retryReserveText(plan);
    if (reserve !== undefined) out.push(`Reserved for retries under faults: ${reserve}`);
  }
  out.push('');

  if (plan.rehearsal) {
    const paint = plan.rehearsal.outcome === 'clean' ? c.green : plan.rehearsal.outcome === 'unsettled' ? c.yellow : c.red;
    out.push(paint(v(rehearsalLine(plan.rehearsal))));
  }
  out.push(c.bold(planSummaryLine(plan.summary)) + (plan.unmanaged.length > 0 ? ` ${plan.summary.unmanaged} unmanaged.` : ''));
  if (plan.refusal) out.push(c.red(c.bold(`Plan refused (${plan.refusal.code}). ${refusalRemedy(plan.refusal)}`)));
  return out.join('\n') + '\n';
}

function actionPaint(action: Action, c: Palette): Paint {
  return action === 'create' ? c.green : action === 'update' ? c.yellow : c.red;
}

/** The change's lines onto `out`. `brief`: the change's line and what it changes, no diff. */
function changeLines(change: Change, c: Palette, out: string[], attribution?: Attribution, brief = false): void {
  const paint = actionPaint(change.action, c);
  const id = change.liveId ? ' ' + c.dim(`[${v(change.liveId)}]`) : '';
  const src = v(sourceText(change.source));
  out.push(`  ${paint(`${ACTION_SIGN[change.action]} ${ACTION_WORD[change.action]}`)} ${c.bold(`${v(change.kind)} ${v(change.name)}`)}${id}${src ? ' ' + c.dim(`(${src})`) : ''}`);
  const pad = '      ';
  if (brief) {
    if (change.changed && change.changed.length > 0) out.push(pad + c.dim(`changed: ${change.changed.map(v).join(', ')}`));
    return;
  }
  if (change.reason) out.push(pad + reasonPaint(change.reasonCode, c)(v(change.reason)));
  for (const note of linkNotes(change)) out.push(pad + c.cyan(v(note)));
  const who = lastChangeText(change.lastChange);
  if (who) out.push(pad + c.cyan(v(who)));
  out.push(...auditText(auditSection(change, attribution), pad, c));
  if (change.changed && change.changed.length > 0) out.push(pad + c.dim(`changed: ${change.changed.map(v).join(', ')}`));
  diffText(changeDiff(change), pad, c, out);
  for (const child of change.children ?? []) {
    out.push(`    ${c.green('+ create')} ${c.bold(v(child.name))} ${c.dim(`(created with ${v(change.kind)} ${v(change.name)})`)}`);
    diffText(childDiff(child), pad + '  ', c, out);
  }
  if (change.action !== 'delete') for (const n of pointerNotes(change)) out.push(pad + c.dim(`${v(n.pointer)} ${n.note}`));
}

function auditText(section: ReturnType<typeof auditSection>, pad: string, c: Palette): string[] {
  if (!section) return [];
  return [pad + c.cyan(v(section.title)), ...section.entries.map((e) => `${pad}  ${c.cyan(v(e))}`)];
}

/** The diff's lines onto `out`. */
function diffText(lines: DiffLine[], pad: string, c: Palette, out: string[]): void {
  for (const l of lines) {
    // A line of a multi-line value stands alone here: it must not read as a workflow command in CI.
    const text = inertLog(v(l.text));
    if (l.kind === 'add') out.push(pad + c.green(`+ ${text}`));
    else if (l.kind === 'remove') out.push(pad + c.red(`- ${text}`));
    else if (l.kind === 'gap') out.push(pad + c.dim(text));
    else out.push(pad + `  ${text}`);
  }
}
