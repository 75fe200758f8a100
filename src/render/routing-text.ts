// Routing for a terminal: per account a compact table (event categories × severities, each cell the
// letters of every channel it reaches, each with a `*` when only part of the cell's alerts get
// there; a cell too wide for its column goes on over more lines rather than hiding any), the
// letters' legend, the rules, then what reaches nothing and what routes nothing. Also the routing
// changes of a plan and the answer of `routes test`.

import {
  type AccountRouting,
  type ChannelHealth,
  diffRouting,
  groupChanges,
  healthByName,
  healthWords,
  type PlanRouting,
  type RoutingCell,
  type RoutingMap,
  scopeWords,
  silencedCells,
  unreachedCells,
} from '../model/routing.js';
import { type ReadValues, renderMasked } from '../model/read-values.js';
import { inertText } from '../model/inert.js';
import { palette, type Palette } from './ansi.js';

/** Names come from files and the service: the terminal's neutraliser (src/model/inert.ts) shows them inert. */
const termText = inertText;

/** A, B, … Z, AA, AB, … */
export function letters(i: number): string {
  let n = i;
  let out = '';
  do {
    out = String.fromCharCode(65 + (n % 26)) + out;
    n = Math.floor(n / 26) - 1;
  } while (n >= 0);
  return out;
}

/** A cell's channels as letters, each with `*` when that channel gets only part of the cell's alerts and `!` when it fails; `-` for none. */
function cellTokens(cell: RoutingCell, code: ReadonlyMap<string, string>, failing: ReadonlySet<string>): string[] {
  if (cell.channels.length === 0) return ['-'];
  return cell.channels.map((c) => (code.get(c) ?? '?') + (cell.unscoped.includes(c) ? '' : '*') + (failing.has(c) ? '!' : ''));
}

/** Tokens joined by commas into lines of at most `width` columns, broken after a comma. */
function packTokens(tokens: readonly string[], width: number): string[] {
  const lines: string[] = [];
  let cur = '';
  tokens.forEach((t, i) => {
    const piece = i < tokens.length - 1 ? `${t},` : t;
    if (cur !== '' && cur.length + piece.length > width) {
      lines.push(cur);
      cur = '';
    }
    cur += piece;
  });
  lines.push(cur);
  return lines;
}

/** Narrowest a severity column gets when the table must shrink to the width. */
const MIN_COLUMN = 6;

export interface RoutesTextOptions {
  color: boolean;
  /** Columns the table may take (the terminal's width); 80 when absent. */
  width?: number;
  /** The routing the output is compared with (routes --base): each account ends with its changed cells. */
  base?: { ref: string; commit: string; map: RoutingMap };
}

export function accountRoutingLines(acc: AccountRouting, c: Palette, width = 80): string[] {
  const out: string[] = [];
  // One letter per name: the service lets two channels share a name.
  const code = new Map([...new Set(acc.channels.map((ch) => ch.name))].map((name, i) => [name, letters(i)]));
  const health = acc.health ? healthByName(acc.channels) : undefined;
  const failing = new Set([...(health ?? [])].filter(([, h]) => h.state === 'failing').map(([name]) => name));
  const tokens = acc.categories.map((_, r) => acc.severities.map((__, s) => cellTokens(acc.cells[r * acc.severities.length + s], code, failing)));
  const catWidth = Math.max(0, ...acc.categories.map((cat) => termText(cat).length));
  const natural = acc.severities.map((sev, s) => Math.max(sev.length, ...tokens.map((row) => row[s].join(',').length)));
  // Shrink the columns that need it to share what the width leaves; a cell then takes several lines.
  const room = width - 2 - catWidth - 2 * acc.severities.length;
  const fits = natural.reduce((a, b) => a + b, 0) <= room;
  const share = Math.max(MIN_COLUMN, Math.floor(room / Math.max(1, acc.severities.length)));
  const widths = natural.map((n, s) => (fits ? n : Math.max(acc.severities[s].length, Math.min(n, Math.max(share, ...tokens.map((row) => Math.max(...row[s].map((t) => t.length + 1))))))));
  const line = (cells: string[]) => '  ' + [cells[0].padEnd(catWidth), ...cells.slice(1).map((t, i) => t.padEnd(widths[i]))].join('  ').trimEnd();
  out.push(c.dim(line(['', ...acc.severities])));
  acc.categories.forEach((cat, r) => {
    const packed = tokens[r].map((t, s) => packTokens(t, widths[s]));
    const height = Math.max(...packed.map((p) => p.length));
    for (let k = 0; k < height; k++) out.push(line([k === 0 ? termText(cat) : '', ...packed.map((p) => p[k] ?? '')]));
  });
  if (acc.cells.some((cell) => cell.channels.some((ch) => !cell.unscoped.includes(ch)))) out.push(c.dim('  B*: channel B gets only part of the cell’s alerts (resource groups, other filters)'));
  if (failing.size > 0) out.push(c.dim('  A!: channel A fails (the service reports its delivery failing)'));
  if (acc.channels.length > 0) {
    out.push('  Channels:');
    const seen = new Set<string>();
    for (const ch of acc.channels) {
      const letter = code.get(ch.name)!;
      const again = seen.has(ch.name);
      seen.add(ch.name);
      out.push(`    ${again ? ' '.repeat(letter.length) : letter} ${termText(ch.name)} (${termText(ch.type || 'unknown type')})${ch.enabled ? '' : c.yellow(' disabled')}${ch.health ? healthText(ch.health, c) : ''}`);
    }
  }
  const rules = new Map<string, { channels: Set<string>; scope: string }>();
  for (const cell of acc.cells) {
    for (const r of cell.routes) {
      const entry = rules.get(r.rule) ?? { channels: new Set<string>(), scope: scopeWords(r) };
      entry.channels.add(r.channel);
      rules.set(r.rule, entry);
    }
  }
  if (rules.size > 0) {
    out.push('  Rules that route:');
    for (const [name, r] of [...rules].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
      out.push(`    ${termText(name)} → ${[...r.channels].sort().map(termText).join(', ')}${r.scope ? c.dim(` (only ${termText(r.scope)})`) : ''}`);
    }
  }
  const silent = acc.cells.filter((x) => x.delivery === 'silent');
  const degraded = acc.cells.filter((x) => x.delivery === 'degraded');
  if (silent.length > 0) out.push(c.red(`  Silent, every channel failing (${silent.length}): `) + silent.map((x) => termText(`${x.eventCategory}/${x.severity}`)).join(', '));
  if (degraded.length > 0) out.push(c.yellow(`  Degraded, a channel failing (${degraded.length}): `) + degraded.map((x) => termText(`${x.eventCategory}/${x.severity}`)).join(', '));
  const none = unreachedCells(acc);
  if (none.length > 0) out.push(c.yellow(`  Reach nothing (${none.length}): `) + none.map((x) => termText(`${x.eventCategory}/${x.severity}`)).join(', '));
  if (acc.unusedChannels.length > 0) out.push(c.yellow('  Channels no enabled rule uses: ') + acc.unusedChannels.map(termText).join(', '));
  if (acc.silentRules.length > 0) out.push(c.yellow('  Rules whose channels are all disabled: ') + acc.silentRules.map(termText).join(', '));
  if (acc.disabledRules.length > 0) out.push(c.dim('  Disabled rules: ') + acc.disabledRules.map(termText).join(', '));
  if (acc.unknownChannels.length > 0) out.push(c.red('  Channels rules name that the account does not have: ') + acc.unknownChannels.map((u) => termText(`${u.rule} → ${u.channel}`)).join(', '));
  return out;
}

/** ` — failing since its last success at …: <detail>` (the detail inert), coloured by state. */
function healthText(h: ChannelHealth, c: Palette): string {
  const words = ` — ${termText(healthWords(h))}`;
  return h.state === 'failing' ? c.red(words) : h.state === 'healthy' ? c.green(words) : c.dim(words);
}

export function renderRoutesText(shown: RoutingMap, options: RoutesTextOptions & { secrets?: ReadValues }): string {
  return renderMasked(options.secrets, shown, (map) => renderRoutesTextOf(map, options));
}

function renderRoutesTextOf(map: RoutingMap, options: RoutesTextOptions): string {
  const c = palette(options.color);
  const out: string[] = [];
  const base = options.base;
  const changes = base ? diffRouting(base.map, map) : [];
  for (const acc of map.accounts) {
    out.push(c.bold(`Account ${termText(acc.account)} (${map.source === 'live' ? 'live state' : 'configuration'})`), ...accountRoutingLines(acc, c, options.width));
    if (base) {
      const mine = changes.filter((ch) => ch.account === acc.account);
      if (mine.length === 0) out.push(`  No cell changes since ${termText(base.ref)}.`);
      else {
        out.push(c.bold(`  Changes since ${termText(base.ref)} (${mine.length} cell${mine.length === 1 ? '' : 's'}):`));
        for (const g of groupChanges(mine)) {
          const parts = [...g.gained.map((x) => c.green(`+${termText(x)}`)), ...g.lost.map((x) => c.red(`-${termText(x)}`))];
          out.push(`    ${parts.join(' ')}: ${termText(g.cells.join(', '))}${g.silenced ? c.red(' (reach nothing)') : ''}`);
        }
      }
    }
    out.push('');
  }
  if (map.accounts.length === 0) out.push('No account.');
  if (base) out.push(c.dim(`Compared with ${termText(base.ref)} (commit ${base.commit.slice(0, 12)}).`));
  return out.join('\n').replace(/\n+$/, '') + '\n';
}

/** The routing part of a plan's text: cells that gain or lose channels, a warning for the silenced ones. */
export function planRoutingLines(routing: PlanRouting | undefined, c: Palette): string[] {
  if (!routing) return [];
  const out: string[] = [];
  const silenced = silencedCells(routing.changes);
  if (silenced.length > 0) {
    out.push(c.red(c.bold(`Warning: after this plan ${silenced.length} cell${silenced.length === 1 ? '' : 's'} that reached a channel reach${silenced.length === 1 ? 'es' : ''} none:`)));
    for (const s of silenced) out.push(c.red(`  - ${termText(`${s.account} ${s.eventCategory}/${s.severity} (was ${s.before.join(', ')})`)}`));
  }
  for (const d of routing.delivery ?? []) {
    out.push(c.red(c.bold(`Delivery in ${termText(d.account)}: ${d.failing.length} channel${d.failing.length === 1 ? '' : 's'} failing`)));
    for (const f of d.failing) out.push(c.red(`  - ${termText(`${f.name} (${f.type || 'unknown type'}): ${healthWords(f.health)}`)}`));
    if (d.silent.length > 0) out.push(c.red(`  silent, every channel failing: ${termText(d.silent.join(', '))}`));
    if (d.degraded.length > 0) out.push(c.yellow(`  degraded, a channel failing: ${termText(d.degraded.join(', '))}`));
  }
  for (const f of routing.failing ?? []) {
    out.push(c.red(`Routing requirement ${termText(f.requirement)} fails after this plan${f.healthy ? ' (no healthy channel)' : ''}: ${termText(f.accounts.map((a) => `${a.account}: ${a.cells.join(', ')}`).join('; '))}`));
  }
  for (const f of routing.outages ?? []) {
    out.push(c.yellow(`Routing requirement ${termText(f.requirement)} has no healthy channel in cells this plan leaves as they were (an outage; not refused): ${termText(f.accounts.map((a) => `${a.account}: ${a.cells.join(', ')}`).join('; '))}`));
  }
  if (routing.changes.length > 0) {
    out.push(c.bold(`Routing changes (${routing.changes.length} cell${routing.changes.length === 1 ? '' : 's'}):`));
    // Cells that change alike share a line: `prod -oncall-pagerduty: Cloud/critical, Cloud/high`.
    for (const g of groupChanges(routing.changes)) {
      const parts = [...g.gained.map((x) => c.green(`+${termText(x)}`)), ...g.lost.map((x) => c.red(`-${termText(x)}`))];
      out.push(`  ${termText(g.account)} ${parts.join(' ')}: ${termText(g.cells.join(', '))}${g.silenced ? c.red(' (reach nothing)') : ''}`);
    }
  }
  return out.length > 0 ? [...out, ''] : [];
}

/** `routes test`: the cell's channels and the rules that bring each. */
export interface RouteTestView {
  account: string;
  eventCategory: string;
  severity: string;
  cell?: RoutingCell;
  /** With --live: the health of each channel the cell reaches. */
  health?: Record<string, ChannelHealth>;
  expect?: string[];
  missing?: string[];
  extra?: string[];
}

export function renderRouteTestText(shown: RouteTestView, options: { color: boolean; secrets?: ReadValues }): string {
  return renderMasked(options.secrets, shown, (view) => renderRouteTestTextOf(view, options));
}

function renderRouteTestTextOf(view: RouteTestView, options: { color: boolean }): string {
  const c = palette(options.color);
  const cell = view.cell;
  const what = termText(`${view.account} ${view.eventCategory}/${view.severity}`);
  const out: string[] = [];
  if (!cell || cell.channels.length === 0) out.push(`${what} reaches no channel.`);
  else {
    out.push(`${what} reaches ${cell.channels.length} channel${cell.channels.length === 1 ? '' : 's'}:`);
    for (const r of cell.routes) {
      const scope = scopeWords(r);
      const h = view.health?.[r.channel];
      out.push(`  ${termText(r.channel)} (${termText(r.channelType || 'unknown type')}) via rule ${termText(r.rule)}${scope ? c.dim(` (only ${termText(scope)})`) : ''}${h ? healthText(h, c) : ''}`);
    }
    const failing = cell.channels.filter((ch) => view.health?.[ch]?.state === 'failing');
    if (failing.length > 0) {
      const all = failing.length === cell.channels.length;
      out.push((all ? c.red : c.yellow)(`${all ? 'Silent' : 'Degraded'}: failing ${failing.length === 1 ? 'channel' : 'channels'} ${failing.map(termText).join(', ')}.`));
    }
  }
  if (view.expect) {
    const ok = (view.missing ?? []).length === 0 && (view.extra ?? []).length === 0;
    if (ok) out.push(c.green(`As expected: ${view.expect.length === 0 ? 'nothing' : [...view.expect].sort().map(termText).join(', ')}.`));
    else {
      out.push(c.red(`Not as expected (${[...view.expect].sort().map(termText).join(', ') || 'nothing'}):`));
      if ((view.missing ?? []).length > 0) out.push(c.red(`  missing: ${view.missing!.map(termText).join(', ')}`));
      if ((view.extra ?? []).length > 0) out.push(c.red(`  unexpected: ${view.extra!.map(termText).join(', ')}`));
    }
  }
  return out.join('\n') + '\n';
}
