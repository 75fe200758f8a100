// The plan as a pull-request comment: summary table, refusal, every deletion, then the other changes
// folded per account. Over the size limit the details go first (diff blocks from the end, then
// change lines); the summary table and every deletion line stay.

import { sortDiagnostics } from '../model/diagnostics.js';
import type { Action, Change, Plan } from '../model/plan.js';
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
  longestWait,
  partialText,
  planSummaryLine,
  refusalRemedy,
  scopeText,
  sourceText,
} from './common.js';
import { changeDiff, diffLines, pointerNotes, showEnvMarkers, toYaml, type DiffLine } from './display.js';
import { escapeHtml, escapeMd, fenced, inlineCode, largestFitting, MARKDOWN_LIMIT, table } from './markdown.js';
import { auditSection, type AuditedItem, lastChangeText } from './attribution.js';
import type { Attribution, LastChange } from '../model/plan.js';
import { routingChangesMd, routingWarningMd } from './routing-markdown.js';

export const PLAN_MARKER = '<!-- postureops-plan -->';

/** How much of each truncatable part is shown; the full plan shows everything. */
interface Shown {
  diffs: number;
  lines: number;
  unmanaged: number;
  warnings: number;
  deletionReasons: boolean;
  deletions: number;
}

interface Entry {
  change: Change;
  line: string;
  /** Diff block (with notes); '' when the change has nothing to show; undefined when never computed (cannot fit). */
  block?: string;
}

export interface PlanMarkdownOptions {
  /**
   * The API calls made and the rate-limit budget (default true). They differ from run to run, so a
   * comment that must stay byte-identical while the plan is unchanged leaves them out.
   */
  runStats?: boolean;
}

export function renderPlanMarkdown(plan: Plan, limit = MARKDOWN_LIMIT, options: PlanMarkdownOptions = {}): string {
  const accountOrder = plan.accounts.map((a) => a.name);
  const deletions = plan.changes.filter((c) => c.action === 'delete');
  const others = groupByAccount(
    plan.changes.filter((c) => c.action !== 'delete'),
    accountOrder,
  ).map(([account, changes]) => ({ account, entries: changes.map((c) => entryOf(c, plan.attribution)) }));
  const entries = others.flatMap((g) => g.entries);
  // Diff blocks are the costly part; only a prefix of them can ever fit, so stop computing there.
  let room = limit;
  for (const e of entries) {
    if (room <= 0) break;
    e.block = blockOf(e.change);
    room -= e.block.length;
  }
  const warnings = sortDiagnostics(plan.diagnostics);
  const head = headText(plan, accountOrder);
  const tail = options.runStats === false ? '' : tailText(plan);

  const render = (shown: Shown): string => {
    const parts = [head];
    if (deletions.length > 0) {
      const lines = deletions.slice(0, shown.deletions).map((c) => deletionLine(c, shown.deletionReasons, plan.attribution));
      if (shown.deletions < deletions.length) lines.push(`- … ${deletions.length - shown.deletions} more deletions not shown`);
      parts.push(`### Deletions (${deletions.length})\n\n${lines.join('\n')}`);
    }
    if (entries.length > 0 && shown.lines > 0) {
      const blocks: string[] = [];
      let index = 0;
      for (const group of others) {
        const body: string[] = [];
        for (const e of group.entries) {
          if (index < shown.lines) body.push(index < shown.diffs && e.block ? `${e.line}\n\n${e.block}` : e.line);
          index++;
        }
        if (body.length > 0) {
          blocks.push(`<details><summary><b>${escapeHtml(group.account)}</b>: ${escapeHtml(countsText(group.entries))}</summary>\n\n${body.join('\n\n')}\n\n</details>`);
        }
      }
      parts.push(`### Changes\n\n${blocks.join('\n\n')}`);
    }
    const routing = routingChangesMd(plan.routing);
    if (routing !== '') parts.push(routing);
    if (plan.unmanaged.length > 0 && shown.unmanaged > 0) {
      const lines = plan.unmanaged
        .slice(0, shown.unmanaged)
        .map((u) => `- ${escapeMd(u.account)} · ${escapeMd(u.kind)} **${escapeMd(u.name)}** ${inlineCode(u.id)}${u.protected ? ' (protected)' : ''}${whoMd(u.lastChange, ' · ')}${auditMd(u, plan.attribution, '  ')}`);
      parts.push(`### Unmanaged (${plan.unmanaged.length})\n\nIn the service, declared in no file; left alone.\n\n${lines.join('\n')}`);
    }
    if (plan.unread && plan.unread.length > 0) {
      parts.push(`Not read (${UNREAD_REASON}): ${unreadLines(plan.unread).map(escapeMd).join('; ')}.`);
    }
    if (warnings.length > 0 && shown.warnings > 0) {
      const lines = warnings.slice(0, shown.warnings).map((d) => `- ${escapeMd(diagnosticLine(d))}`);
      parts.push(`### Warnings (${warnings.length})\n\n${lines.join('\n')}`);
    }
    if (tail !== '') parts.push(tail);
    const note = truncationNote(shown);
    if (note) parts.push(note);
    return parts.join('\n\n') + '\n';
  };

  const truncationNote = (shown: Shown): string => {
    let hidden = 0;
    entries.forEach((e, i) => {
      if (i >= shown.lines || (e.block !== '' && (i >= shown.diffs || e.block === undefined))) hidden++;
    });
    hidden += deletions.length - shown.deletions;
    const extra: string[] = [];
    if (shown.unmanaged < plan.unmanaged.length) extra.push(`${plan.unmanaged.length - shown.unmanaged} unmanaged resources`);
    if (shown.warnings < warnings.length) extra.push(`${warnings.length - shown.warnings} warnings`);
    if (hidden === 0 && extra.length === 0 && shown.deletionReasons) return '';
    const also = extra.length > 0 ? ` (also not shown: ${extra.join(', ')})` : '';
    return `**… truncated: ${hidden} changes not shown; run postureops plan locally for the full plan**${also}`;
  };

  return fitWithin(render, limit, {
    diffs: entries.length,
    lines: entries.length,
    unmanaged: plan.unmanaged.length,
    warnings: warnings.length,
    deletionReasons: true,
    deletions: deletions.length,
  });
}

/** Shrinks one part at a time, in the order the details matter least, until the text fits. */
function fitWithin(render: (s: Shown) => string, limit: number, full: Shown): string {
  let shown = { ...full };
  const fits = (s: Shown) => render(s).length <= limit;
  if (fits(shown)) return render(shown);
  const steps: (keyof Omit<Shown, 'deletionReasons'>)[] = ['diffs', 'lines', 'unmanaged', 'warnings'];
  for (const key of steps) {
    const n = largestFitting(full[key], (v) => fits({ ...shown, [key]: v }));
    if (n >= 0) return render({ ...shown, [key]: n });
    shown = { ...shown, [key]: 0 };
  }
  shown = { ...shown, deletionReasons: false };
  if (fits(shown)) return render(shown);
  // Last resort, far beyond any real plan: a comment the API refuses helps nobody.
  const n = largestFitting(full.deletions, (v) => fits({ ...shown, deletions: v }));
  const text = render({ ...shown, deletions: Math.max(0, n) });
  return text.length <= limit ? text : text.slice(0, limit - 1) + '\n';
}

function headText(plan: Plan, accountOrder: readonly string[]): string {
  const out = [PLAN_MARKER, '## postureops plan', `**${escapeMd(planSummaryLine(plan.summary))}**`];
  const silenced = routingWarningMd(plan.routing);
  if (silenced !== '') out.push(silenced);
  const partial = partialText(plan.targets);
  if (partial) out.push(`> [!NOTE]\n> ${escapeMd(partial)}`);
  const scope = scopeText(plan);
  if (scope) {
    out.push(`> [!NOTE]\n> ${escapeMd(scope.headline)}`);
    if (scope.groups.length > 0) {
      const lines = scope.groups.map(([reason, accounts]) => `- ${escapeMd(reason)} (${accounts.length}): ${accounts.map((a) => escapeMd(a)).join(', ')}`);
      out.push(`<details><summary>Skipped accounts (${plan.scope!.skipped.length})</summary>\n\n${lines.join('\n')}\n\n</details>`);
    }
  }
  const groups = groupByAccount(plan.changes, accountOrder);
  if (groups.length > 0) {
    const count = (cs: Change[], a: Action) => String(cs.filter((c) => c.action === a).length);
    const rows = groups.map(([account, cs]) => [escapeMd(account), count(cs, 'create'), count(cs, 'update'), count(cs, 'replace'), count(cs, 'delete')]);
    const s = plan.summary;
    rows.push(['**Total**', `**${s.create}**`, `**${s.update}**`, `**${s.replace}**`, `**${s.delete}**`]);
    out.push(table(['Account', 'Create', 'Update', 'Replace', 'Delete'], ['l', 'r', 'r', 'r', 'r'], rows));
  }
  if (plan.refusal) {
    const r = plan.refusal;
    const lines = ['> [!CAUTION]', `> **Plan refused (${escapeMd(r.code)}):** ${escapeMd(r.message)}`];
    for (const d of r.details) lines.push(`> - ${escapeMd(d)}`);
    lines.push('>', `> ${escapeMd(refusalRemedy(r))}`);
    out.push(lines.join('\n'));
  }
  return out.join('\n\n');
}

function tailText(plan: Plan): string {
  const lines = [`- API calls made: ${escapeMd(callsText(plan.apiCalls))}`];
  for (const b of plan.budget) lines.push(`- ${escapeMd(b.bucket)}: ${escapeMd(budgetText(b))}`);
  const wait = longestWait(plan.budget);
  if (plan.budget.length > 0) lines.push(`- Estimated wait for rate limits: ${wait > 0 ? `about ${duration(wait)}` : 'none'}`);
  return `<details><summary>API calls and rate limits</summary>\n\n${lines.join('\n')}\n\n</details>`;
}

function deletionLine(change: Change, withReason: boolean, attribution?: Attribution): string {
  const base = `- ${escapeMd(change.account)} · ${escapeMd(change.kind)} **${escapeMd(change.name)}**`;
  if (!withReason) return base;
  const id = change.liveId ? ` ${inlineCode(change.liveId)}` : '';
  const reason = change.reason ? ` — ${escapeMd(change.reason)}` : '';
  const notes = linkNotes(change).map((n) => ` — _${escapeMd(n)}_`).join('');
  return base + id + reason + notes + whoMd(change.lastChange, ' · ') + auditMd(change, attribution, '  ');
}

/** `· _last changed by … at …_` after `sep`; '' when the record said nothing. */
function whoMd(lc: LastChange | undefined, sep: string): string {
  const who = lastChangeText(lc);
  return who ? `${sep}_${escapeMd(who)}_` : '';
}

/** The audit log entries as a nested list under a list item (indent) or a paragraph (''). */
function auditMd(item: AuditedItem, attribution: Attribution | undefined, indent: string): string {
  const section = auditSection(item, attribution);
  if (!section) return '';
  const head = `\n${indent}- ${escapeMd(section.title)}`;
  return head + section.entries.map((e) => `\n${indent}  - ${escapeMd(e)}`).join('');
}

function entryOf(change: Change, attribution?: Attribution): Entry {
  const src = sourceText(change.source);
  const id = change.liveId ? ` ${inlineCode(change.liveId)}` : '';
  const where = src ? ` · ${inlineCode(src)}` : '';
  const reason = [change.reason, ...linkNotes(change)].filter((r) => r !== undefined).map((r) => `\n_${escapeMd(r)}_`).join('');
  const who = whoMd(change.lastChange, '\n');
  const audit = auditMd(change, attribution, '');
  return {
    change,
    line: `**${ACTION_SIGN[change.action]} ${ACTION_WORD[change.action]}** ${escapeMd(change.kind)} **${escapeMd(change.name)}**${id}${where}${reason}${who}${audit ? '\n' + audit : ''}`,
  };
}

function blockOf(change: Change): string {
  const lines = diffMd(changeDiff(change));
  for (const child of change.children ?? []) {
    lines.push(`# created with it: ${child.name}`, ...diffMd(diffLines('', toYaml(showEnvMarkers(child.after)))));
  }
  for (const n of pointerNotes(change)) lines.push(`# ${n.pointer} ${n.note}`);
  return lines.length > 0 ? fenced('diff', lines) : '';
}

function diffMd(lines: DiffLine[]): string[] {
  return lines.map((l) => (l.kind === 'add' ? `+ ${l.text}` : l.kind === 'remove' ? `- ${l.text}` : l.kind === 'gap' ? '@@ … @@' : `  ${l.text}`));
}

function countsText(entries: readonly Entry[]): string {
  const n = (a: Action) => entries.filter((e) => e.change.action === a).length;
  return `${n('create')} to create, ${n('update')} to update, ${n('replace')} to replace`;
}
