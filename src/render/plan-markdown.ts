// The plan as a pull-request comment: one line of what is dangerous (deletions, cells left with no
// channel, failing requirements, new destinations), the summary table, the refusal, every deletion,
// the routing changes, then the other changes folded per account. Over the size limit the least
// risky details go first, each marked where it was: plain creates lose their diffs, then plain
// updates; then the unmanaged list, the warnings and the routing diagrams; deletions and the changes
// that change routing stay whole longest.

import { sortDiagnostics } from '../model/diagnostics.js';
import type { Action, Change, Plan } from '../model/plan.js';
import { silencedCells } from '../model/routing.js';
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
import { changeDiff, childDiff, diffLines, displayPair, pointerNotes, toYaml, type DiffLine } from './display.js';
import { escapeHtml, escapeMd, fenced, inlineCode, largestFitting, MARKDOWN_LIMIT, table } from './markdown.js';
import { auditSection, type AuditedItem, lastChangeText } from './attribution.js';
import type { Attribution, LastChange } from '../model/plan.js';
import { listText, NAME_MAX, type RoutingDetail, routingChangesMd, routingWarningMd } from './routing-markdown.js';
import { shortMiddle } from './names.js';

export const PLAN_MARKER = '<!-- postureops-plan -->';

const ROUTING_DETAILS: readonly RoutingDetail[] = ['full', 'no-diagram', 'compact'];

/** How much of each truncatable part is shown; the full plan shows everything. */
interface Shown {
  /** The first `bare` entries of the risk order show no diff (marked where it was). */
  bare: number;
  /** The first `hidden` entries of the risk order (deletions never) show no line either (counted per account). */
  hidden: number;
  unmanaged: number;
  warnings: number;
  /** Index into ROUTING_DETAILS. */
  routing: number;
  deletionReasons: boolean;
  deletions: number;
}

interface Entry {
  change: Change;
  line: string;
  /** Diff block (with notes); '' when the change has nothing to show. */
  block: string;
  /** Lines of the block (what its omission mark counts). */
  blockLines: number;
}

export interface PlanMarkdownOptions {
  /**
   * The API calls made and the rate-limit budget (default true). They differ from run to run, so a
   * comment that must stay byte-identical while the plan is unchanged leaves them out.
   */
  runStats?: boolean;
  /** Where the whole plan is, for the marks of what a truncated text leaves out: `the [job summary](…)`; Markdown. */
  fullPlan?: string;
  /** Inside another text that says what it is and why it was refused (a failure comment): no marker, heading or refusal box. */
  nested?: boolean;
}

/** Risk of losing a change's details: plain creates first, then plain updates, then renames, moves and what changes routing, deletions last. */
function riskRank(change: Change, routingKeys: ReadonlySet<string>): number {
  if (change.action === 'delete') return 3;
  if (routingKeys.has(change.key) || change.renamedFrom !== undefined || change.sameSpecAs !== undefined || change.movedFrom !== undefined) return 2;
  return change.action === 'create' ? 0 : 1;
}

export function renderPlanMarkdown(plan: Plan, limit = MARKDOWN_LIMIT, options: PlanMarkdownOptions = {}): string {
  const accountOrder = plan.accounts.map((a) => a.name);
  const fullPlan = options.fullPlan ?? 'run `postureops plan` for the full plan';
  const routingKeys = new Set((plan.routing?.changes ?? []).flatMap((c) => (c.causes ?? []).map((x) => x.key)));
  const entryOfChange = (c: Change): Entry => {
    const block = c.action === 'delete' ? deletionBlock(c) : blockOf(c);
    return { change: c, line: c.action === 'delete' ? '' : entryLine(c, plan.attribution), block, blockLines: block === '' ? 0 : block.split('\n').length - 2 };
  };
  const deletions = plan.changes.filter((c) => c.action === 'delete').map(entryOfChange);
  const others = groupByAccount(
    plan.changes.filter((c) => c.action !== 'delete'),
    accountOrder,
  ).map(([account, changes]) => ({ account, entries: changes.map(entryOfChange) }));
  const all = [...deletions, ...others.flatMap((g) => g.entries)];
  // The order details go in: lowest risk first, and within a rank the later changes first.
  const riskOrder = all.map((e, i) => ({ e, i, rank: riskRank(e.change, routingKeys) })).sort((a, b) => a.rank - b.rank || b.i - a.i);
  const position = new Map(riskOrder.map((r, i) => [r.e, i]));
  const plainCount = riskOrder.filter((r) => r.rank < 2).length;
  const hideable = riskOrder.filter((r) => r.rank < 3).length;
  const warnings = sortDiagnostics(plan.diagnostics);
  const head = headText(plan, accountOrder, options.nested === true);
  const tail = options.runStats === false ? '' : tailText(plan);
  const omitted = (e: Entry) => `_diff omitted: ${e.blockLines} line${e.blockLines === 1 ? '' : 's'}; ${fullPlan}_`;
  const body = (e: Entry, shown: Shown) => (e.block === '' ? '' : position.get(e)! < shown.bare ? omitted(e) : e.block);

  // The routing section depends on its detail only; the search for what fits renders it many times.
  const routingTexts = new Map<number, string>();
  const routingMd = (detail: number): string => {
    let text = routingTexts.get(detail);
    if (text === undefined) routingTexts.set(detail, (text = routingChangesMd(plan.routing, ROUTING_DETAILS[detail])));
    return text;
  };

  const render = (shown: Shown): string => {
    const parts = [head];
    if (deletions.length > 0) {
      const lines = deletions.slice(0, shown.deletions).map((e) => {
        const line = deletionLine(e.change, shown.deletionReasons, plan.attribution);
        const block = shown.deletionReasons ? body(e, shown) : '';
        return block === '' ? line : `${line}\n\n${indent(block)}`;
      });
      if (shown.deletions < deletions.length) lines.push(`- _… ${deletions.length - shown.deletions} more deletions not shown; ${fullPlan}_`);
      parts.push(`### Deletions (${deletions.length})\n\n${lines.join('\n')}`);
    }
    const routing = routingMd(shown.routing);
    if (routing !== '') parts.push(routing);
    if (others.length > 0) {
      const blocks: string[] = [];
      for (const group of others) {
        const items: string[] = [];
        let hidden = 0;
        for (const e of group.entries) {
          if (position.get(e)! < shown.hidden) {
            hidden++;
            continue;
          }
          const b = body(e, shown);
          items.push(b === '' ? e.line : `${e.line}\n\n${b}`);
        }
        if (hidden > 0) items.push(`_… ${hidden} more change${hidden === 1 ? '' : 's'} of ${escapeMd(group.account)} not shown here; ${fullPlan}_`);
        blocks.push(`<details><summary><b>${escapeHtml(group.account)}</b>: ${escapeHtml(countsText(group.entries))}</summary>\n\n${items.join('\n\n')}\n\n</details>`);
      }
      parts.push(`### Changes\n\n${blocks.join('\n\n')}`);
    }
    if (plan.unmanaged.length > 0) {
      const lines = plan.unmanaged
        .slice(0, shown.unmanaged)
        .map((u) => `- ${escapeMd(u.account)} · ${escapeMd(u.kind)} **${escapeMd(u.name)}** ${inlineCode(u.id)}${u.protected ? ' (protected)' : ''}${whoMd(u.lastChange, ' · ')}${auditMd(u, plan.attribution, '  ')}`);
      if (shown.unmanaged < plan.unmanaged.length) lines.push(`- _… ${plan.unmanaged.length - shown.unmanaged} more not shown; ${fullPlan}_`);
      parts.push(`### Unmanaged (${plan.unmanaged.length})\n\nIn the service, declared in no file; left alone.\n\n${lines.join('\n')}`);
    }
    if (plan.unread && plan.unread.length > 0) {
      parts.push(`Not read (${UNREAD_REASON}): ${unreadLines(plan.unread).map(escapeMd).join('; ')}.`);
    }
    if (warnings.length > 0) {
      const lines = warnings.slice(0, shown.warnings).map((d) => `- ${escapeMd(diagnosticLine(d))}`);
      if (shown.warnings < warnings.length) lines.push(`- _… ${warnings.length - shown.warnings} more not shown; ${fullPlan}_`);
      parts.push(`### Warnings (${warnings.length})\n\n${lines.join('\n')}`);
    }
    if (tail !== '') parts.push(tail);
    return parts.join('\n\n') + '\n';
  };

  const full: Shown = { bare: 0, hidden: 0, unmanaged: plan.unmanaged.length, warnings: warnings.length, routing: 0, deletionReasons: true, deletions: deletions.length };
  // Each step shrinks one part from nothing (0) to all it can (max); the first step that fits ends it.
  const steps: Step[] = [
    { max: plainCount, set: (s, v) => ({ ...s, bare: v }) },
    { max: full.unmanaged, set: (s, v) => ({ ...s, unmanaged: full.unmanaged - v }) },
    { max: full.warnings, set: (s, v) => ({ ...s, warnings: full.warnings - v }) },
    { max: ROUTING_DETAILS.length - 1, set: (s, v) => ({ ...s, routing: v }) },
    { max: all.length - plainCount, set: (s, v) => ({ ...s, bare: plainCount + v }) },
    { max: hideable, set: (s, v) => ({ ...s, hidden: v }) },
    { max: 1, set: (s, v) => ({ ...s, deletionReasons: v === 0 }) },
    { max: full.deletions, set: (s, v) => ({ ...s, deletions: full.deletions - v }) },
  ];
  return fitWithin(render, limit, full, steps);
}

interface Step {
  max: number;
  set: (s: Shown, v: number) => Shown;
}

/** The least shrinking, step after step, that brings the text within `limit` UTF-16 code units (as GitHub counts). */
function fitWithin(render: (s: Shown) => string, limit: number, full: Shown, steps: readonly Step[]): string {
  let shown = full;
  const fits = (s: Shown) => render(s).length <= limit;
  if (fits(shown)) return render(shown);
  for (const step of steps) {
    // largestFitting wants "fits for small n": n counts how much of the step is left undone.
    const n = largestFitting(step.max, (undone) => fits(step.set(shown, step.max - undone)));
    if (n >= 0) return render(step.set(shown, step.max - n));
    shown = step.set(shown, step.max);
  }
  // Last resort, far beyond any real plan: a comment the API refuses helps nobody.
  const text = render(shown);
  return text.length <= limit ? text : text.slice(0, limit - 1) + '\n';
}

/** `**Danger:** 2 deletions · 3 cells lose every channel · …`: what a reviewer must look at, counted. */
function dangerLine(plan: Plan): string {
  const n = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
  const silenced = silencedCells(plan.routing?.changes ?? []).length;
  const failing = plan.routing?.failing?.length ?? 0;
  const fresh = plan.routing?.newChannels ?? [];
  const mute = (plan.routing?.delivery ?? []).reduce((k, d) => k + d.silent.length, 0);
  const found = [
    plan.summary.delete > 0 ? n(plan.summary.delete, 'deletion', 'deletions') : '',
    silenced > 0 ? n(silenced, 'cell loses every channel', 'cells lose every channel') : '',
    mute > 0 ? n(mute, 'cell silent now (every channel failing)', 'cells silent now (every channel failing)') : '',
    failing > 0 ? n(failing, 'routing requirement fails', 'routing requirements fail') : '',
    fresh.length > 0 ? `${n(fresh.length, 'new destination', 'new destinations')} (${listText(fresh.map((c) => shortMiddle(c.name, NAME_MAX)), 3)})` : '',
  ].filter((x) => x !== '');
  if (found.length === 0) return '**No deletion, no cell left without a channel, no failing routing requirement, no new destination.**';
  return `> [!CAUTION]\n> **Review: ${escapeMd(found.join(' · '))}.**`;
}

function headText(plan: Plan, accountOrder: readonly string[], nested: boolean): string {
  const out = nested ? [dangerLine(plan), `**${escapeMd(planSummaryLine(plan.summary))}**`] : [PLAN_MARKER, '## postureops plan', dangerLine(plan), `**${escapeMd(planSummaryLine(plan.summary))}**`];
  if (plan.rehearsal) out.push(`${plan.rehearsal.outcome === 'clean' ? '' : '**'}${escapeMd(rehearsalLine(plan.rehearsal))}${plan.rehearsal.outcome === 'clean' ? '' : '**'}`);
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
  if (plan.refusal && !nested) {
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
  const lease = leaseShareText(plan);
  if (lease !== undefined) lines.push(`- Of these, ${escapeMd(lease)}`);
  const wait = longestWait(plan.budget);
  if (plan.budget.length > 0) lines.push(`- Estimated wait for rate limits: ${wait > 0 ? `about ${duration(wait)}` : 'none'}`);
  const reserve = retryReserveText(plan);
  if (reserve !== undefined) lines.push(`- Reserved for retries under faults: ${escapeMd(reserve)}`);
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

function entryLine(change: Change, attribution?: Attribution): string {
  const src = sourceText(change.source);
  const id = change.liveId ? ` ${inlineCode(change.liveId)}` : '';
  const where = src ? ` · ${inlineCode(src)}` : '';
  const reason = [change.reason, ...linkNotes(change)].filter((r) => r !== undefined).map((r) => `\n_${escapeMd(r)}_`).join('');
  const who = whoMd(change.lastChange, '\n');
  const audit = auditMd(change, attribution, '');
  return `**${ACTION_SIGN[change.action]} ${ACTION_WORD[change.action]}** ${escapeMd(change.kind)} **${escapeMd(change.name)}**${id}${where}${reason}${who}${audit ? '\n' + audit : ''}`;
}

/** What a deletion removes: the live spec as read (secrets masked), every line a `-`. */
function deletionBlock(change: Change): string {
  const before = displayPair(change).before;
  if (before === undefined) return '';
  return fenced('diff', diffMd(diffLines(toYaml(before), '')));
}

/** A block under a list item. */
function indent(block: string): string {
  return block
    .split('\n')
    .map((l) => (l === '' ? l : `  ${l}`))
    .join('\n');
}

function blockOf(change: Change): string {
  const lines = diffMd(changeDiff(change));
  for (const child of change.children ?? []) {
    lines.push(`# created with it: ${child.name}`, ...diffMd(childDiff(child)));
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
