// Routing in Markdown: per account a Mermaid graph (rules → channels) and the table of cells; in a
// plan's comment, a warning for silenced cells and a "Routing changes" section with a Mermaid graph
// of the cells that change. Names come from files and the service: Markdown text goes through
// escapeMd, Mermaid labels through mermaidLabel (quoted, every character outside a small safe set as
// an entity code, so a name can neither end the label, the diagram or the code block, nor become HTML
// or a mention); node ids are generated, never names.

import { type AccountRouting, groupChanges, type PlanRouting, type RoutingCellChange, type RoutingMap, scopeWords, silencedCells, unreachedCells } from '../model/routing.js';
import { type ReadValues, renderMasked } from '../model/read-values.js';
import { escapeMd, fenced, table } from './markdown.js';

/** Longest label text kept from a name (the diagram stays readable and bounded). */
const LABEL_MAX = 80;
/** Most cells drawn in a plan's diagram. */
export const DIAGRAM_CELLS = 40;
/** Most changed cells listed in a plan's section. */
const LISTED_CELLS = 100;

/** A quoted Mermaid label: letters, digits and a few punctuation marks as they are, the rest as `#code;`. */
export function mermaidLabel(text: string): string {
  const flat = text.replace(/\s+/g, ' ');
  const cut = [...flat].length > LABEL_MAX ? [...flat].slice(0, LABEL_MAX - 1).join('') + '…' : flat;
  let out = '';
  for (const ch of cut) out += /[A-Za-z0-9 _.,:/()+=-]/.test(ch) ? ch : `#${ch.codePointAt(0)};`;
  return `"${out}"`;
}

function accountGraph(acc: AccountRouting): string {
  const lines = ['flowchart LR'];
  const channelId = new Map<string, string>();
  [...new Set(acc.channels.map((c) => c.name))].forEach((name, i) => channelId.set(name, `c${i}`));
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
  const allCats = acc.categories.length;
  const allSevs = acc.severities.length;
  [...rules].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).forEach(([name, r], i) => {
    const sev = r.sev.size === allSevs ? 'every severity' : acc.severities.filter((s) => r.sev.has(s)).join(', ');
    const cat = r.cat.size === allCats ? 'every category' : acc.categories.filter((c) => r.cat.has(c)).join(', ');
    lines.push(`  r${i}[${mermaidLabel(`${name}: ${sev}; ${cat}${r.scope ? `; only ${r.scope}` : ''}`)}]`);
    for (const ch of [...r.channels].sort()) lines.push(`  r${i} --> ${channelId.get(ch)}`);
  });
  const typeOf = new Map(acc.channels.map((c) => [c.name, c]));
  for (const [name, id] of channelId) {
    const ch = typeOf.get(name)!;
    lines.push(`  ${id}(${mermaidLabel(`${name} (${ch.type || 'unknown type'})${ch.enabled ? '' : ' disabled'}`)})`);
  }
  if (rules.size === 0 && channelId.size === 0) lines.push(`  none[${mermaidLabel('no channels, no rules')}]`);
  return fenced('mermaid', lines);
}

function accountSection(acc: AccountRouting, source: RoutingMap['source']): string {
  const parts = [`### ${escapeMd(acc.account)} (${source === 'live' ? 'live state' : 'configuration'})`, accountGraph(acc)];
  const rows = acc.categories.map((cat, r) => [
    escapeMd(cat),
    ...acc.severities.map((_, s) => {
      const cell = acc.cells[r * acc.severities.length + s];
      if (cell.channels.length === 0) return '—';
      return cell.channels.map((c) => escapeMd(c) + (cell.unscoped.includes(c) ? '' : '\\*')).join(', ');
    }),
  ]);
  parts.push(table(['Event category', ...acc.severities], ['l', ...acc.severities.map(() => 'l' as const)], rows));
  if (acc.cells.some((cell) => cell.channels.some((ch) => !cell.unscoped.includes(ch)))) parts.push('\\* only part of the cell’s alerts (a rule scoped by resource group or another filter).');
  const notes: string[] = [];
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

/** The warning at the top of a plan's comment; '' when no cell is silenced. */
export function routingWarningMd(routing: PlanRouting | undefined): string {
  const silenced = silencedCells(routing?.changes ?? []);
  if (silenced.length === 0) return '';
  const lines = ['> [!WARNING]', `> **After this plan ${silenced.length} cell${silenced.length === 1 ? '' : 's'} that reached a channel reach${silenced.length === 1 ? 'es' : ''} none:**`];
  for (const s of silenced.slice(0, LISTED_CELLS)) lines.push(`> - ${escapeMd(`${s.account} · ${s.eventCategory}/${s.severity} (was: ${s.before.join(', ')})`)}`);
  if (silenced.length > LISTED_CELLS) lines.push(`> - … ${silenced.length - LISTED_CELLS} more`);
  return lines.join('\n');
}

/** The cells that change, as a graph: each cell → its channels after (`==>` gained, `-->` kept) and `-.->` those it loses. */
export function routingChangesDiagram(changes: readonly RoutingCellChange[]): string {
  const lines = ['flowchart LR'];
  const channelId = new Map<string, string>();
  const idOf = (account: string, channel: string): string => {
    const key = JSON.stringify([account, channel]);
    let id = channelId.get(key);
    if (!id) {
      id = `c${channelId.size}`;
      channelId.set(key, id);
      lines.push(`  ${id}(${mermaidLabel(`${account}: ${channel}`)})`);
    }
    return id;
  };
  const silenced: string[] = [];
  changes.slice(0, DIAGRAM_CELLS).forEach((ch, i) => {
    const cell = `k${i}`;
    lines.push(`  ${cell}[${mermaidLabel(`${ch.account} · ${ch.eventCategory}/${ch.severity}${ch.after.length === 0 ? ' · reaches nothing' : ''}`)}]`);
    if (ch.after.length === 0) silenced.push(cell);
    for (const c of ch.after) lines.push(`  ${cell} ${ch.gained.includes(c) ? '== gained ==>' : '-->'} ${idOf(ch.account, c)}`);
    for (const c of ch.lost) lines.push(`  ${cell} -. lost .-> ${idOf(ch.account, c)}`);
  });
  if (silenced.length > 0) lines.push('  classDef silenced fill:#fdd,stroke:#c00,color:#600', `  class ${silenced.join(',')} silenced`);
  return fenced('mermaid', lines);
}

/** The "Routing changes" section of a plan's comment; '' when routing does not change. */
export function routingChangesMd(routing: PlanRouting | undefined): string {
  if (!routing) return '';
  const parts: string[] = [];
  for (const f of routing.failing ?? []) {
    parts.push(`- **Requirement ${escapeMd(f.requirement)} fails after this plan:** ${escapeMd(f.accounts.map((a) => `${a.account}: ${a.cells.join(', ')}`).join('; '))}`);
  }
  if (routing.changes.length === 0) {
    return parts.length === 0 ? '' : `### Routing changes\n\nNo cell changes its channels.\n\n${parts.join('\n')}`;
  }
  const n = routing.changes.length;
  const head = `### Routing changes (${n} cell${n === 1 ? '' : 's'})\n\nCells (account · event category/severity) whose channels change.${n > DIAGRAM_CELLS ? ` The diagram shows the first ${DIAGRAM_CELLS}.` : ''}`;
  // Cells that change alike share a line.
  const groups = groupChanges(routing.changes);
  const list = groups.slice(0, LISTED_CELLS).map((g) => {
    const what = [...g.gained.map((x) => `+${x}`), ...g.lost.map((x) => `−${x}`)].join(' ');
    return `- ${escapeMd(`${g.account} ${what}: ${g.cells.join(', ')}`)}${g.silenced ? ' **(reach nothing)**' : ''}`;
  });
  if (groups.length > LISTED_CELLS) list.push(`- … ${groups.length - LISTED_CELLS} more`);
  return [head, routingChangesDiagram(routing.changes), [...parts, ...list].join('\n')].join('\n\n');
}
