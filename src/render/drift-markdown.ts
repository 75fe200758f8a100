// The drift issue's account of a drift plan: which side has what. A drift check plans the repository
// (desired) against the console (live), so a plan's words read backwards there ("+ create ops-slack"
// for what the console renamed). First the destinations only the console has, with what they receive
// (the line that matters most: alerts leaving for somewhere nobody reviewed), then every difference
// as "the console has X, the repository Y", then the plan that would undo it, folded.

import type { Change, Plan } from '../model/plan.js';
import { groupByAccount } from './common.js';
import { escapeHtml, escapeMd, MARKDOWN_LIMIT } from './markdown.js';
import { renderPlanMarkdown } from './plan-markdown.js';

/** Most lines per list; the rest are counted (the plan below has them). */
const LISTED = 200;

export interface DriftMarkdownOptions {
  /** Where the whole plan is (Markdown), for what the text leaves out. */
  fullPlan?: string;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** `Cloud: critical, high; App: low`. */
function cellsText(cells: readonly string[]): string {
  const byCategory = new Map<string, string[]>();
  for (const c of cells) {
    const slash = c.lastIndexOf('/');
    byCategory.set(c.slice(0, slash), [...(byCategory.get(c.slice(0, slash)) ?? []), c.slice(slash + 1)]);
  }
  return [...byCategory].map(([cat, sevs]) => `${cat}: ${sevs.join(', ')}`).join('; ');
}

const what = (c: { account: string; kind: string }, name: string) => `${escapeMd(c.account)} · ${escapeMd(c.kind)} **${escapeMd(name)}**`;

/** One difference, said from both sides; '' for the second change of a pair already said. */
function sideLine(c: Change, byKey: ReadonlyMap<string, Change>, said: Set<string>): string {
  if (said.has(c.key)) return '';
  const partner = c.sameSpecAs !== undefined ? byKey.get(c.sameSpecAs) : undefined;
  if (partner && partner.action !== c.action) {
    said.add(partner.key);
    const inRepo = c.action === 'create' ? c : partner;
    const inConsole = c.action === 'create' ? partner : c;
    return `- ${escapeMd(c.account)} · ${escapeMd(c.kind)}: **renamed in the console**: the console has **${escapeMd(inConsole.name)}**, the repository **${escapeMd(inRepo.name)}** (same settings)`;
  }
  switch (c.action) {
    case 'create':
      return `- ${what(c, c.name)}: the repository has it, the console does not`;
    case 'delete':
      return `- ${what(c, c.name)}: the console has it, the repository does not`;
    case 'update':
      if (c.renamedFrom !== undefined) {
        const other = (c.changed ?? []).filter((m) => m !== 'name');
        return `- ${what(c, c.name)}: the console has the name **${escapeMd(c.renamedFrom)}**, the repository **${escapeMd(c.name)}**${other.length > 0 ? escapeMd(`; they also differ in ${other.join(', ')}`) : ''}`;
      }
      return `- ${what(c, c.name)}: the console and the repository differ in ${escapeMd((c.changed ?? []).join(', ') || 'its settings')}`;
    case 'replace':
      return `- ${what(c, c.name)}: the console and the repository differ in what cannot be changed in place (${escapeMd((c.changed ?? []).join(', ') || 'its settings')})`;
  }
}

function capped(lines: readonly string[], fullPlan: string): string[] {
  if (lines.length <= LISTED) return [...lines];
  return [...lines.slice(0, LISTED), `- _… ${lines.length - LISTED} more; ${fullPlan}_`];
}

export function renderDriftMarkdown(plan: Plan, limit = MARKDOWN_LIMIT, options: DriftMarkdownOptions = {}): string {
  const fullPlan = options.fullPlan ?? 'run `postureops plan` for the full plan';
  const parts: string[] = [];
  const consoleOnly = plan.routing?.undeclaredChannels ?? [];
  if (consoleOnly.length > 0) {
    const lines = consoleOnly.map((c) => {
      const receives = !c.enabled
        ? 'disabled: receives nothing'
        : c.cells.length === 0
          ? 'receives nothing (no enabled rule sends to it)'
          : escapeMd(`receives ${plural(c.cells.length, 'cell')} (${cellsText(c.cells)}) through ${c.rules.length === 1 ? 'rule' : 'rules'} ${c.rules.join(', ')}`);
      // A console rename leaves the old name only in the console: say so beside it.
      const renamed = plan.changes.find((x) => x.action === 'delete' && x.account === c.account && x.name === c.name && x.sameSpecAs !== undefined);
      const as = renamed ? ` (renamed in the console from the repository's ${escapeMd(plan.changes.find((x) => x.key === renamed.sameSpecAs)?.name ?? '?')})` : '';
      return `- ${escapeMd(c.account)} · **${escapeMd(c.name)}** (${escapeMd(c.type || 'unknown type')})${as}: ${receives}`;
    });
    parts.push(`### Destinations only the console has (${consoleOnly.length})\n\nChannels in the service that no file declares: alerts may leave for somewhere nobody reviewed.\n\n${capped(lines, fullPlan).join('\n')}`);
  }
  const byKey = new Map(plan.changes.map((c) => [c.key, c]));
  const said = new Set<string>();
  const lines: string[] = [];
  for (const [, changes] of groupByAccount(plan.changes, plan.accounts.map((a) => a.name))) {
    for (const c of changes) {
      const line = sideLine(c, byKey, said);
      if (line !== '') lines.push(line);
    }
  }
  for (const u of plan.unmanaged) lines.push(`- ${what(u, u.name)}: the console has it, no file declares it (left alone${u.protected ? ', protected' : ''})`);
  if (lines.length > 0) parts.push(`### What differs (${lines.length})\n\n${capped(lines, fullPlan).join('\n')}`);
  const text = parts.join('\n\n');
  const s = plan.summary;
  const open = `<details><summary>${escapeHtml(`What an apply would do to make the console match the repository: ${s.create} to create, ${s.update} to update, ${s.replace} to replace, ${s.delete} to delete`)}</summary>\n\nIn the diffs, − is the console (live) and + the repository.\n\n`;
  const close = '\n\n</details>';
  const room = limit - text.length - open.length - close.length - 4;
  return `${text}${text === '' ? '' : '\n\n'}${open}${renderPlanMarkdown(plan, room, { runStats: false, nested: true, fullPlan }).trimEnd()}${close}\n`;
}
