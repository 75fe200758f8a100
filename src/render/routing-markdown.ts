// Routing in Markdown: per account a Mermaid graph (rules → channels) and the table of cells; in a
// plan's comment, a warning for silenced cells and a "Routing changes" section: per account only the
// cells that change (a matrix, what changes them, a table per channel) and a diagram of the changed
// edges only while it stays legible. Names come from files and the service: Markdown text goes
// through escapeMd, Mermaid labels through mermaidLabel (quoted, every character outside a small safe
// set as an entity code, so a name can neither end the label, the diagram or the code block, nor
// become HTML or a mention); node ids are generated, never names. Long names are cut in the middle
// (names.ts); a rule's scope never is.

import {
  type AccountDelivery,
  type AccountRouting,
  type AccountRoutingChanges,
  type ChannelHealth,
  healthByName,
  healthWords,
  type ChangeGroup,
  type PlanRouting,
  type RoutingCause,
  routingChangesByAccount,
  type RoutingMap,
  scopeWords,
  silencedCells,
  unreachedCells,
} from '../model/routing.js';
import { type ReadValues, renderMasked } from '../model/read-values.js';
import { escapeHtml, escapeMd, fenced, table } from './markdown.js';
import { shortMiddle, shortNames } from './names.js';

/** Longest name in a label or a table cell (cut in the middle beyond). */
export const NAME_MAX = 48;
/**
 * Most edges a diagram draws. Mermaid refuses 500 (an error box on GitHub); far below that a
 * flowchart of rules and channels is already unreadable in a comment, so past this: no diagram.
 */
export const DIAGRAM_EDGES = 100;
/** Most changed cells listed in a plan's warning. */
const LISTED_CELLS = 100;
/** Most causes named on one line (the rest counted). */
const LISTED_CAUSES = 5;
/** Per-account details longer than this many lines are folded (`<details>`). */
const OPEN_LINES = 12;

/** A quoted Mermaid label: letters, digits and a few punctuation marks as they are, the rest as `#code;`. Callers shorten names first. */
export function mermaidLabel(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  let out = '';
  for (const ch of flat) out += /[A-Za-z0-9 _.,:/()+=-]/.test(ch) ? ch : `#${ch.codePointAt(0)};`;
  return `"${out}"`;
}

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function accountGraph(acc: AccountRouting): string {
  const rules = new Map<string, { sev: Set<string>; cat: Set<string>; channels: Set<string>; scope: string }>();
  for (const cell of acc.cells) {
    for (const r of cell.routes) {
      const entry = rules.get(r.rule) ?? { sev: new Set<string>(), cat: new Set<string>(), channels: new Set<string>(), scope: scopeWords(r) };
      entry.sev.add(cell.severity);
      entry.cat.add(cell.eventCategory);
      entry.channels.add(r.channel);
      rules.set(r.rule, entry);
    }
  }
  const edges = [...rules.values()].reduce((n, r) => n + r.channels.size, 0);
  if (edges > DIAGRAM_EDGES) return `No diagram: ${edges} rule → channel edges, more than the ${DIAGRAM_EDGES} a diagram keeps legible; the table below names every cell's channels.`;
  const lines = ['flowchart LR'];
  const channelId = new Map<string, string>();
  [...new Set(acc.channels.map((c) => c.name))].forEach((name, i) => channelId.set(name, `c${i}`));
  const short = shortNames([...rules.keys(), ...channelId.keys()], NAME_MAX);
  const allCats = acc.categories.length;
  const allSevs = acc.severities.length;
  [...rules].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).forEach(([name, r], i) => {
    const sev = r.sev.size === allSevs ? 'every severity' : acc.severities.filter((s) => r.sev.has(s)).join(', ');
    const cat = r.cat.size === allCats ? 'every category' : acc.categories.filter((c) => r.cat.has(c)).join(', ');
    // The scope is never cut: "only resour…" would hide which alerts the rule sends.
    lines.push(`  r${i}[${mermaidLabel(`${short.get(name)}: ${sev}; ${cat}${r.scope ? `; only ${r.scope}` : ''}`)}]`);
    for (const ch of [...r.channels].sort()) lines.push(`  r${i} --> ${channelId.get(ch)}`);
  });
  const typeOf = new Map(acc.channels.map((c) => [c.name, c]));
  const failing = failingNames(acc);
  const failingIds: string[] = [];
  for (const [name, id] of channelId) {
    const ch = typeOf.get(name)!;
    if (failing.has(name)) failingIds.push(id);
    lines.push(`  ${id}(${mermaidLabel(`${short.get(name)} (${ch.type || 'unknown type'})${ch.enabled ? '' : ' disabled'}${failing.has(name) ? ' failing' : ''}`)})`);
  }
  if (rules.size === 0 && channelId.size === 0) lines.push(`  none[${mermaidLabel('no channels, no rules')}]`);
  if (failingIds.length > 0) lines.push('  classDef failing fill:#fdd,stroke:#c00,color:#600', `  class ${failingIds.join(',')} failing`);
  return fenced('mermaid', lines);
}

/** The channel names of an account that fail (a map of the live state). */
function failingNames(acc: AccountRouting): Set<string> {
  if (!acc.health) return new Set();
  return new Set([...healthByName(acc.channels)].filter(([, h]) => h.state === 'failing').map(([name]) => name));
}

function accountSection(acc: AccountRouting, source: RoutingMap['source']): string {
  const parts = [`### ${escapeMd(acc.account)} (${source === 'live' ? 'live state' : 'configuration'})`, accountGraph(acc)];
  const failing = failingNames(acc);
  const rows = acc.categories.map((cat, r) => [
    escapeMd(cat),
    ...acc.severities.map((_, s) => {
      const cell = acc.cells[r * acc.severities.length + s];
      if (cell.channels.length === 0) return '—';
      const names = cell.channels.map((c) => escapeMd(c) + (cell.unscoped.includes(c) ? '' : '\\*') + (failing.has(c) ? ' (failing)' : '')).join(', ');
      return cell.delivery === 'silent' ? `**silent:** ${names}` : cell.delivery === 'degraded' ? `degraded: ${names}` : names;
    }),
  ]);
  parts.push(table(['Event category', ...acc.severities], ['l', ...acc.severities.map(() => 'l' as const)], rows));
  if (acc.cells.some((cell) => cell.channels.some((ch) => !cell.unscoped.includes(ch)))) parts.push('\\* only part of the cell’s alerts (a rule scoped by resource group or another filter).');
  const notes: string[] = [];
  for (const [d, words] of [['silent', '**Silent, every channel failing'], ['degraded', '**Degraded, a channel failing']] as const) {
    const cells = acc.cells.filter((c) => c.delivery === d);
    if (cells.length > 0) notes.push(`- ${words} (${cells.length}):** ${cells.map((c) => escapeMd(`${c.eventCategory}/${c.severity}`)).join(', ')}`);
  }
  const health = acc.health ? healthByName(acc.channels) : new Map<string, ChannelHealth>();
  for (const name of [...failing].sort()) notes.push(`- **Failing channel** ${escapeMd(name)}: ${escapeMd(healthWords(health.get(name)!))}`);
  const none = unreachedCells(acc);
  if (none.length > 0) notes.push(`- **Reach nothing (${none.length}):** ${none.map((c) => escapeMd(`${c.eventCategory}/${c.severity}`)).join(', ')}`);
  if (acc.unusedChannels.length > 0) notes.push(`- **Channels no enabled rule uses:** ${acc.unusedChannels.map(escapeMd).join(', ')}`);
  if (acc.silentRules.length > 0) notes.push(`- **Rules whose channels are all disabled:** ${acc.silentRules.map(escapeMd).join(', ')}`);
  if (acc.disabledRules.length > 0) notes.push(`- Disabled rules: ${acc.disabledRules.map(escapeMd).join(', ')}`);
  if (acc.unknownChannels.length > 0) notes.push(`- **Channels rules name that the account does not have:** ${acc.unknownChannels.map((u) => escapeMd(`${u.rule} → ${u.channel}`)).join(', ')}`);
  if (notes.length > 0) parts.push(notes.join('\n'));
  return parts.join('\n\n');
}

export function renderRoutesMarkdown(shown: RoutingMap, options: { secrets?: ReadValues } = {}): string {
  return renderMasked(options.secrets, shown, (map) => renderRoutesMarkdownOf(map));
}

function renderRoutesMarkdownOf(map: RoutingMap): string {
  const parts = ['## postureops routes', ...map.accounts.map((a) => accountSection(a, map.source))];
  return parts.join('\n\n') + '\n';
}

/** The warning at the top of a plan's comment; '' when no cell is silenced. Names cut in the middle, three per cell at most. */
export function routingWarningMd(routing: PlanRouting | undefined): string {
  const silenced = silencedCells(routing?.changes ?? []);
  if (silenced.length === 0) return '';
  const short = shortNames(silenced.flatMap((s) => s.before), NAME_MAX);
  const lines = ['> [!WARNING]', `> **After this plan ${silenced.length} cell${silenced.length === 1 ? '' : 's'} that reached a channel reach${silenced.length === 1 ? 'es' : ''} none:**`];
  for (const s of silenced.slice(0, LISTED_CELLS)) lines.push(`> - ${escapeMd(`${s.account} · ${s.eventCategory}/${s.severity} (was: ${listText(s.before.map((c) => short.get(c) ?? c), 3)})`)}`);
  if (silenced.length > LISTED_CELLS) lines.push(`> - … ${silenced.length - LISTED_CELLS} more`);
  return lines.join('\n');
}

/** `a, b, c and 4 more`. */
export function listText(items: readonly string[], most: number): string {
  return items.length <= most ? items.join(', ') : `${items.slice(0, most).join(', ')} and ${items.length - most} more`;
}

/** `deleted rule compliance-to-jira`: a change behind a cell, in words. */
export function causeWords(cause: RoutingCause): string {
  const done = { create: 'created', update: 'updated', replace: 'replaced', delete: 'deleted' }[cause.action] ?? 'changed';
  return `${done} ${cause.role === 'channel' ? 'channel' : 'rule'} ${cause.name}`;
}

/** How much of the section a comment near its size limit keeps. */
export type RoutingDetail = 'full' | 'no-diagram' | 'compact';

/** The diagram of one account's changed edges: each group of cells that change alike → the channels it gains (`==>`) and loses (`-.->`). */
export function routingChangesDiagram(acc: AccountRoutingChanges): string {
  const lines = ['flowchart LR'];
  const short = shortNames(acc.alike.flatMap((g) => [...g.gained, ...g.lost]), NAME_MAX);
  const channelId = new Map<string, string>();
  const idOf = (channel: string): string => {
    let id = channelId.get(channel);
    if (!id) {
      id = `c${channelId.size}`;
      channelId.set(channel, id);
      lines.push(`  ${id}(${mermaidLabel(short.get(channel)!)})`);
    }
    return id;
  };
  const silenced: string[] = [];
  acc.alike.forEach((g, i) => {
    const node = `k${i}`;
    const cells = g.cells.length <= 4 ? g.cells.join(', ') : `${g.cells.slice(0, 3).join(', ')} and ${g.cells.length - 3} more cells`;
    lines.push(`  ${node}[${mermaidLabel(`${cells}${g.silenced ? ' · reach nothing' : ''}`)}]`);
    if (g.silenced) silenced.push(node);
    for (const c of g.gained) lines.push(`  ${node} == gained ==> ${idOf(c)}`);
    for (const c of g.lost) lines.push(`  ${node} -. lost .-> ${idOf(c)}`);
  });
  if (silenced.length > 0) lines.push('  classDef silenced fill:#fdd,stroke:#c00,color:#600', `  class ${silenced.join(',')} silenced`);
  return fenced('mermaid', lines);
}

/** `Cloud: critical, high; App: low`: cells by category, each category once. */
export function cellsText(cells: readonly string[]): string {
  const byCategory = new Map<string, string[]>();
  for (const c of cells) {
    const slash = c.lastIndexOf('/');
    const cat = c.slice(0, slash);
    byCategory.set(cat, [...(byCategory.get(cat) ?? []), c.slice(slash + 1)]);
  }
  return [...byCategory].map(([cat, sevs]) => `${cat}: ${sevs.join(', ')}`).join('; ');
}

function namesText(names: readonly string[], short: ReadonlyMap<string, string>, sign: string, most = 3): string {
  if (names.length > most) return `${sign}${names.length} channels`;
  return names.map((n) => `${sign}${escapeMd(short.get(n) ?? n)}`).join(' ');
}

function causesText(causes: readonly RoutingCause[], short: ReadonlyMap<string, string>, limit: number): string {
  if (causes.length === 0) return '';
  const shown = causes.slice(0, limit).map((c) => escapeMd(causeWords({ ...c, name: short.get(c.name) ?? c.name })));
  if (causes.length > limit) shown.push(`${causes.length - limit} more`);
  return ` — via ${shown.join(', ')}`;
}

function groupLine(g: ChangeGroup, short: ReadonlyMap<string, string>, detail: RoutingDetail): string {
  // Past a few names a count: the table per channel names each.
  const most = detail === 'compact' ? 2 : 5;
  const what = [namesText(g.gained, short, '+', most), namesText(g.lost, short, '−', most)].filter((t) => t !== '').join(' ');
  return `- ${escapeMd(g.cells.join(', '))}: ${what}${g.silenced ? ' **(reach nothing)**' : ''}${causesText(g.causes, short, detail === 'compact' ? 2 : LISTED_CAUSES)}`;
}

/** One account's changed cells: the matrix of changed rows and columns, what changes them, per channel, the diagram. */
function accountChangesMd(acc: AccountRoutingChanges, detail: RoutingDetail): string {
  const names = [...acc.channels.map((c) => c.channel), ...acc.groups.flatMap((g) => g.causes.map((c) => c.name))];
  const short = shortNames(names, NAME_MAX);
  const byCell = new Map(acc.cells.map((c) => [`${c.eventCategory}/${c.severity}`, c]));
  const rows = acc.categories.map((cat) => [
    escapeMd(cat),
    ...acc.severities.map((sev) => {
      const c = byCell.get(`${cat}/${sev}`);
      if (!c) return '·';
      const text = [namesText(c.gained, short, '+'), namesText(c.lost, short, '−')].filter((t) => t !== '').join(' ');
      return c.after.length === 0 && c.before.length > 0 ? `${text} **none left**` : text;
    }),
  ]);
  const parts = [table(['Event category', ...acc.severities.map(escapeMd)], ['l', ...acc.severities.map(() => 'l' as const)], rows)];
  parts.push(acc.groups.map((g) => groupLine(g, short, detail)).join('\n'));
  const perChannel = acc.channels.map((c) => [
    escapeMd(short.get(c.channel) ?? c.channel),
    detail === 'compact' ? String(c.gained.length) : escapeMd(cellsText(c.gained)) || '—',
    detail === 'compact' ? String(c.lost.length) : escapeMd(cellsText(c.lost)) || '—',
  ]);
  parts.push(table(['Channel', 'Cells gained', 'Cells lost'], ['l', 'l', 'l'], perChannel));
  if (detail !== 'full') parts.push('No diagram here (the comment is near its size limit; the job summary has it).');
  else if (acc.edges > DIAGRAM_EDGES) parts.push(`No diagram: ${acc.edges} changed edges, more than the ${DIAGRAM_EDGES} a diagram keeps legible; the tables name them all.`);
  else parts.push(routingChangesDiagram(acc));
  const body = parts.join('\n\n');
  const silenced = acc.cells.filter((c) => c.before.length > 0 && c.after.length === 0).length;
  const title = `${plural(acc.cells.length, 'cell')} change${acc.cells.length === 1 ? 's' : ''}${silenced > 0 ? `, ${silenced} lose${silenced === 1 ? 's' : ''} every channel` : ''}`;
  if (body.split('\n').length <= OPEN_LINES) return `#### ${escapeMd(acc.account)}: ${escapeMd(title)}\n\n${body}`;
  return `<details><summary><b>${escapeHtml(acc.account)}</b>: ${escapeHtml(title)}</summary>\n\n${body}\n\n</details>`;
}

/** The "Routing changes" section of a plan's comment; '' when routing does not change. */
/** What the service reports of delivery, for a plan's comment and the drift issue: per account the failing channels and the cells they silence or degrade. */
export function deliveryMd(delivery: readonly AccountDelivery[]): string {
  const lines: string[] = [];
  for (const d of delivery) {
    const silent = d.silent.length > 0 ? `; **silent** (every channel failing): ${escapeMd(cellsText(d.silent))}` : '';
    const degraded = d.degraded.length > 0 ? `; degraded (a channel failing): ${escapeMd(cellsText(d.degraded))}` : '';
    lines.push(`- **${escapeMd(d.account)}**: ${plural(d.failing.length, 'channel')} failing${silent}${degraded}`);
    for (const f of d.failing) lines.push(`  - ${escapeMd(`${shortMiddle(f.name, NAME_MAX)} (${f.type || 'unknown type'}): ${healthWords(f.health)}`)}`);
  }
  return lines.join('\n');
}

export function routingChangesMd(routing: PlanRouting | undefined, detail: RoutingDetail = 'full'): string {
  if (!routing) return '';
  const parts: string[] = [];
  if ((routing.delivery ?? []).length > 0) parts.push(`**Delivery, as the service reports it now:**\n\n${deliveryMd(routing.delivery!)}`);
  for (const f of routing.failing ?? []) {
    parts.push(`- **Requirement ${escapeMd(f.requirement)} fails after this plan${f.healthy ? ' (no healthy channel)' : ''}:** ${escapeMd(f.accounts.map((a) => `${a.account}: ${a.cells.join(', ')}`).join('; '))}`);
  }
  for (const f of routing.outages ?? []) {
    parts.push(`- Requirement ${escapeMd(f.requirement)} has no healthy channel in cells this plan leaves as they were (an outage, not refused): ${escapeMd(f.accounts.map((a) => `${a.account}: ${a.cells.join(', ')}`).join('; '))}`);
  }
  const fresh = routing.newChannels ?? [];
  if (fresh.length > 0) {
    parts.push(...fresh.map((c) => `- **New destination** ${escapeMd(`${c.account} · ${c.name} (${c.type || 'unknown type'})`)}: ${c.cells.length === 0 ? 'receives nothing yet' : escapeMd(`receives ${plural(c.cells.length, 'cell')} (${cellsText(c.cells)})`)}`));
  }
  if (routing.changes.length === 0) {
    return parts.length === 0 ? '' : `### Routing changes\n\nNo cell changes its channels.\n\n${parts.join('\n')}`;
  }
  const accounts = routingChangesByAccount(routing.changes);
  const n = routing.changes.length;
  const head = `### Routing changes (${plural(n, 'cell')}${accounts.length > 1 ? ` in ${accounts.length} accounts` : ''})\n\nPer account only the cells (event category × severity) whose channels change: + gained, − lost, · unchanged.`;
  return [head, ...(parts.length > 0 ? [parts.join('\n')] : []), ...accounts.map((a) => accountChangesMd(a, detail))].join('\n\n');
}
