// The drift issue's account of a drift plan: which side has what. A drift check plans the repository
// (desired) against the console (live), so a plan's words read backwards there ("+ create ops-slack"
// for what the console renamed). First the destinations only the console has, with what they receive
// (the line that matters most: alerts leaving for somewhere nobody reviewed), then every difference
// as "the console has X, the repository Y", then the plan that would undo it, folded.

import type { Change, Plan } from '../model/plan.js';
import { groupByAccount } from './common.js';
import { escapeHtml, escapeMd, MARKDOWN_LIMIT } from './markdown.js';
import { renderPlanMarkdown } from './plan-markdown.js';
import { cellsText, listText, plural } from './routing-markdown.js';

/** Most lines per list; the rest are counted (the plan below has them). */
const LISTED = 200;

export interface DriftMarkdownOptions {
  /** Where the whole plan is (Markdown), for what the text leaves out. */
  fullPlan?: string;
}

const what = (c: { account: string; kind: string }, name: string) => `${escapeMd(c.account)} · ${escapeMd(c.kind)} **${escapeMd(name)}**`;

/** A console rename: the name the console has and the one the repository has, with the same settings. */
interface Rename {
  account: string;
  kind: string;
  console: string;
  repository: string;
  /** The console's resource is unmanaged (prune off): apply would create the repository's beside it. */
  kept: boolean;
}

/** Renames made in the console, by the key of the repository's create: paired deletions (prune on) and unmanaged twins (prune off). */
function consoleRenames(plan: Plan): Map<string, Rename> {
  const byKey = new Map(plan.changes.map((c) => [c.key, c]));
  const out = new Map<string, Rename>();
  for (const c of plan.changes) {
    const partner = c.action === 'create' && c.sameSpecAs !== undefined ? byKey.get(c.sameSpecAs) : undefined;
    if (partner?.action === 'delete') out.set(c.key, { account: c.account, kind: c.kind, console: partner.name, repository: c.name, kept: false });
  }
  for (const u of plan.unmanaged) {
    const c = u.sameSpecAs !== undefined ? byKey.get(u.sameSpecAs) : undefined;
    if (c?.action === 'create' && !out.has(c.key)) out.set(c.key, { account: c.account, kind: c.kind, console: u.name, repository: c.name, kept: true });
  }
  return out;
}

/** One difference, said from both sides; '' for the console's half of a rename already said. */
function sideLine(c: Change, renames: ReadonlyMap<string, Rename>, consoleHalves: ReadonlySet<string>): string {
  const rename = renames.get(c.key);
  if (rename) {
    const after = rename.kept ? ' (no file declares it: an apply would create the repository\'s beside it)' : ' (same settings)';
    return `- ${escapeMd(c.account)} · ${escapeMd(c.kind)}: **renamed in the console**: the console has **${escapeMd(rename.console)}**, the repository **${escapeMd(rename.repository)}**${after}`;
  }
  if (c.action === 'delete' && consoleHalves.has(JSON.stringify([c.account, c.kind, c.name]))) return '';
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
  const renames = consoleRenames(plan);
  const consoleHalves = new Set([...renames.values()].map((r) => JSON.stringify([r.account, r.kind, r.console])));
  const consoleOnly = plan.routing?.undeclaredChannels ?? [];
  if (consoleOnly.length > 0) {
    const lines = consoleOnly.map((c) => {
      const receives = !c.enabled
        ? 'disabled: receives nothing'
        : c.cells.length === 0
          ? 'receives nothing (no enabled rule sends to it)'
          : escapeMd(`receives ${plural(c.cells.length, 'cell')} (${cellsText(c.cells)}) through ${c.rules.length === 1 ? 'rule' : 'rules'} ${listText(c.rules, 5)}`);
      // A console rename leaves the new name only in the console: say so beside it.
      const renamed = [...renames.values()].find((r) => r.account === c.account && r.console === c.name);
      const as = renamed ? ` (renamed in the console from the repository's ${escapeMd(renamed.repository)})` : '';
      return `- ${escapeMd(c.account)} · **${escapeMd(c.name)}** (${escapeMd(c.type || 'unknown type')})${as}: ${receives}`;
    });
    parts.push(`### Destinations only the console has (${consoleOnly.length})\n\nChannels in the service that no file declares: alerts may leave for somewhere nobody reviewed.\n\n${capped(lines, fullPlan).join('\n')}`);
  }
  const lines: string[] = [];
  for (const [, changes] of groupByAccount(plan.changes, plan.accounts.map((a) => a.name))) {
    for (const c of changes) {
      const line = sideLine(c, renames, consoleHalves);
      if (line !== '') lines.push(line);
    }
  }
  for (const u of plan.unmanaged) if (!consoleHalves.has(JSON.stringify([u.account, u.kind, u.name]))) lines.push(`- ${what(u, u.name)}: the console has it, no file declares it (left alone${u.protected ? ', protected' : ''})`);
  if (lines.length > 0) parts.push(`### What differs (${lines.length})\n\n${capped(lines, fullPlan).join('\n')}`);
  const text = parts.join('\n\n');
  const s = plan.summary;
  const open = `<details><summary>${escapeHtml(`What an apply would do to make the console match the repository: ${s.create} to create, ${s.update} to update, ${s.replace} to replace, ${s.delete} to delete`)}</summary>\n\nIn the diffs, − is the console (live) and + the repository.\n\n`;
  const close = '\n\n</details>';
  const room = limit - text.length - open.length - close.length - 4;
  return `${text}${text === '' ? '' : '\n\n'}${open}${renderPlanMarkdown(plan, room, { runStats: false, nested: true, fullPlan }).trimEnd()}${close}\n`;
}
