// Routing as one self-contained HTML page (`routes --format html`, the Action's artifact): per
// account a category × severity matrix whose cells name their channels and the rules (and scopes)
// behind each, filterable by account and by channel; with a base map, the cells that change are
// marked and say what they gain and lose. No network: the style and the one script are inline and
// allowed by hash in a Content-Security-Policy that refuses everything else. Every name is text
// (inertHtml), the script is constant and reads names only from data attributes, never as HTML.

import { createHash } from 'node:crypto';
import { inertHtml } from '../model/inert.js';
import {
  type AccountRouting,
  cellKey,
  type ChannelHealth,
  diffRouting,
  groupChanges,
  healthByName,
  healthWords,
  type Route,
  type RoutingCell,
  type RoutingCellChange,
  type RoutingMap,
  scopeWords,
  unreachedCells,
} from '../model/routing.js';

export interface RoutesHtmlOptions {
  /** What the page is about (the configuration folder's name): its title. */
  title: string;
  /** The routing the page is compared with: the configuration at a git ref. */
  base?: { ref: string; commit: string; map: RoutingMap };
}

const h = inertHtml;

const STYLE = `
:root { color-scheme: light dark; --line: #8886; --gained: #1a7f37; --lost: #cf222e; --changed: #bf870033; --muted: #888; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 1rem 2rem; }
h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 .5rem; }
.meta, .hint { color: var(--muted); margin: .25rem 0; }
form { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; margin: .75rem 0; position: sticky; top: 0; padding: .5rem 0; background: Canvas; }
table.matrix { border-collapse: collapse; }
.matrix th, .matrix td { border: 1px solid var(--line); padding: .3rem .45rem; vertical-align: top; text-align: left; }
.matrix thead th { position: sticky; top: 2.6rem; background: Canvas; }
td.cell { min-width: 9rem; }
td.cell ul { list-style: none; margin: 0; padding: 0; }
td.cell li { margin: 0 0 .2rem; }
.channel { font-weight: 600; overflow-wrap: anywhere; }
.via { display: block; color: var(--muted); font-size: .85em; overflow-wrap: anywhere; }
.tag { font-size: .75em; border: 1px solid currentColor; border-radius: .6em; padding: 0 .35em; margin-left: .25em; white-space: nowrap; }
li.gained .channel, li.gained .tag { color: var(--gained); }
li.lost .channel { color: var(--lost); text-decoration: line-through; }
li.lost .tag { color: var(--lost); }
td.changed { background: var(--changed); outline: 2px solid #bf8700; outline-offset: -2px; }
.mark { display: block; font-size: .75em; font-weight: 600; color: #9a6700; }
.empty { color: var(--muted); display: none; }
td.cell.none .empty { display: inline; }
td.cell.dim { opacity: .35; }
.notes li, .changes li { overflow-wrap: anywhere; }
.changes .plus { color: var(--gained); }
li.failing .channel { color: var(--lost); }
li.failing .tag { color: var(--lost); }
td.silent { background: #cf222e22; outline: 2px solid var(--lost); outline-offset: -2px; }
td.degraded { background: #bf870022; }
.delivery { display: block; font-size: .75em; font-weight: 600; }
td.silent .delivery { color: var(--lost); }
td.degraded .delivery { color: #9a6700; }
.changes .minus { color: var(--lost); }
`;

// Constant: names reach it only through data attributes and option values, compared as strings.
const SCRIPT = `
(() => {
  const account = document.getElementById('f-account');
  const channel = document.getElementById('f-channel');
  const changed = document.getElementById('f-changed');
  const status = document.getElementById('f-status');
  const apply = () => {
    const a = account.value;
    const c = channel.value;
    const onlyChanged = changed !== null && changed.checked;
    let accounts = 0;
    let cells = 0;
    for (const section of document.querySelectorAll('section.account')) {
      section.hidden = a !== '' && section.dataset.account !== a;
      if (!section.hidden) accounts += 1;
    }
    for (const item of document.querySelectorAll('td.cell li[data-channel]')) {
      item.hidden = c !== '' && item.dataset.channel !== c;
    }
    for (const cell of document.querySelectorAll('td.cell')) {
      const shown = Array.from(cell.querySelectorAll('li[data-channel]')).some((item) => !item.hidden);
      cell.classList.toggle('none', !shown);
      cell.classList.toggle('dim', (onlyChanged && !cell.classList.contains('changed')) || (c !== '' && !shown));
      if (shown && !cell.closest('section').hidden) cells += 1;
    }
    status.textContent = accounts + (accounts === 1 ? ' account, ' : ' accounts, ') + cells + (cells === 1 ? ' cell' : ' cells') + (c === '' ? ' reaching a channel' : ' reaching the channel');
  };
  account.addEventListener('change', apply);
  channel.addEventListener('change', apply);
  if (changed !== null) changed.addEventListener('change', apply);
  apply();
})();
`;

const hash = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** Nothing but the inline style and script, each by its hash: no request, no other script, no form target. */
export const ROUTES_HTML_CSP = `default-src 'none'; style-src ${hash(STYLE)}; script-src ${hash(SCRIPT)}; img-src 'none'; base-uri 'none'; form-action 'none'`;

/** The channels one cell reaches, grouped by channel (each with its routes), plus those it lost. */
function cellHtml(cell: RoutingCell, change: RoutingCellChange | undefined, health: ReadonlyMap<string, ChannelHealth>): string {
  const byChannel = new Map<string, Route[]>();
  for (const r of cell.routes) byChannel.set(r.channel, [...(byChannel.get(r.channel) ?? []), r]);
  const items: string[] = [];
  for (const [channel, routes] of byChannel) {
    const gained = change?.gained.includes(channel) === true;
    const partial = !cell.unscoped.includes(channel);
    const via = routes.map((r) => {
      const scope = scopeWords(r);
      return `<span class="via">via rule ${h(r.rule)}${scope ? ` (only ${h(scope)})` : ''}</span>`;
    });
    const failing = health.get(channel)?.state === 'failing';
    const tags = `${partial ? '<span class="tag" title="only part of the cell’s alerts">part</span>' : ''}${gained ? '<span class="tag">gained</span>' : ''}${failing ? `<span class="tag" title="${h(healthWords(health.get(channel)!))}">failing</span>` : ''}`;
    const classes = [gained ? 'gained' : '', failing ? 'failing' : ''].filter((x) => x !== '').join(' ');
    items.push(`<li data-channel="${h(channel)}"${classes ? ` class="${classes}"` : ''}><span class="channel">${h(channel)}</span>${tags}${via.join('')}</li>`);
  }
  for (const channel of change?.lost ?? []) {
    items.push(`<li data-channel="${h(channel)}" class="lost"><span class="channel">${h(channel)}</span><span class="tag">lost</span></li>`);
  }
  const mark = change ? '<span class="mark">changed</span>' : '';
  const delivery = cell.delivery ? `<span class="delivery">${cell.delivery === 'silent' ? 'silent: every channel failing' : 'degraded: a channel failing'}</span>` : '';
  const label = `${cell.eventCategory}/${cell.severity}`;
  return `<td class="cell${change ? ' changed' : ''}${cell.delivery ? ` ${cell.delivery}` : ''}${items.length === 0 ? ' none' : ''}" data-cell="${h(label)}">${mark}${delivery}<ul>${items.join('')}</ul><span class="empty">—</span></td>`;
}

function accountHtml(acc: AccountRouting, changes: ReadonlyMap<string, RoutingCellChange>, accountChanges: readonly RoutingCellChange[], base: RoutesHtmlOptions['base']): string {
  const out: string[] = [`<section class="account" data-account="${h(acc.account)}">`, `<h2>Account ${h(acc.account)}</h2>`];
  out.push('<table class="matrix">', '<thead><tr><th scope="col">Event category</th>');
  for (const s of acc.severities) out.push(`<th scope="col">${h(s)}</th>`);
  out.push('</tr></thead><tbody>');
  const health = acc.health ? healthByName(acc.channels) : new Map<string, ChannelHealth>();
  acc.categories.forEach((cat, r) => {
    out.push(`<tr><th scope="row">${h(cat)}</th>`);
    acc.severities.forEach((sev, s) => out.push(cellHtml(acc.cells[r * acc.severities.length + s], changes.get(cellKey(cat, sev)), health)));
    out.push('</tr>');
  });
  out.push('</tbody></table>');
  if (base) {
    if (accountChanges.length === 0) out.push(`<p class="hint">No cell changes since ${h(base.ref)}.</p>`);
    else {
      out.push(`<h3>Changes since ${h(base.ref)} (${accountChanges.length} cell${accountChanges.length === 1 ? '' : 's'})</h3><ul class="changes">`);
      for (const g of groupChanges(accountChanges)) {
        const what = [...g.gained.map((x) => `<span class="plus">+${h(x)}</span>`), ...g.lost.map((x) => `<span class="minus">−${h(x)}</span>`)].join(' ');
        out.push(`<li>${what}: ${h(g.cells.join(', '))}${g.silenced ? ' <strong>(reach nothing)</strong>' : ''}</li>`);
      }
      out.push('</ul>');
    }
  }
  const notes: string[] = [];
  if (acc.channels.length > 0) {
    notes.push(`<li>Channels: ${acc.channels.map((c) => `${h(c.name)} (${h(c.type || 'unknown type')}${c.enabled ? '' : ', disabled'}${c.health ? `, ${h(c.health.state === 'unknown' ? 'health unknown' : c.health.state)}` : ''})`).join(', ')}</li>`);
  }
  const failing = [...health].filter(([, x]) => x.state === 'failing').sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  for (const [name, x] of failing) notes.push(`<li class="failing-channel"><strong>Failing channel ${h(name)}:</strong> ${h(healthWords(x))}</li>`);
  for (const d of ['silent', 'degraded'] as const) {
    const cells = acc.cells.filter((c) => c.delivery === d);
    if (cells.length > 0) notes.push(`<li><strong>${d === 'silent' ? 'Silent, every channel failing' : 'Degraded, a channel failing'} (${cells.length}):</strong> ${h(cells.map((c) => `${c.eventCategory}/${c.severity}`).join(', '))}</li>`);
  }
  const none = unreachedCells(acc);
  if (none.length > 0) notes.push(`<li><strong>Reach nothing (${none.length}):</strong> ${h(none.map((c) => `${c.eventCategory}/${c.severity}`).join(', '))}</li>`);
  if (acc.unusedChannels.length > 0) notes.push(`<li><strong>Channels no enabled rule uses:</strong> ${h(acc.unusedChannels.join(', '))}</li>`);
  if (acc.silentRules.length > 0) notes.push(`<li><strong>Rules whose channels are all disabled:</strong> ${h(acc.silentRules.join(', '))}</li>`);
  if (acc.disabledRules.length > 0) notes.push(`<li>Disabled rules: ${h(acc.disabledRules.join(', '))}</li>`);
  if (acc.unknownChannels.length > 0) notes.push(`<li><strong>Channels rules name that the account does not have:</strong> ${h(acc.unknownChannels.map((u) => `${u.rule} → ${u.channel}`).join(', '))}</li>`);
  if (notes.length > 0) out.push(`<ul class="notes">${notes.join('')}</ul>`);
  out.push('</section>');
  return out.join('\n');
}

export function renderRoutesHtml(map: RoutingMap, options: RoutesHtmlOptions): string {
  const base = options.base;
  const changes = base ? diffRouting(base.map, map) : [];
  const byAccount = new Map<string, Map<string, RoutingCellChange>>();
  for (const c of changes) {
    const m = byAccount.get(c.account) ?? new Map<string, RoutingCellChange>();
    m.set(cellKey(c.eventCategory, c.severity), c);
    byAccount.set(c.account, m);
  }
  // Every channel a cell shows: those of the accounts, and those a cell lost since the base.
  const channels = [...new Set([...map.accounts.flatMap((a) => a.channels.map((c) => c.name)), ...changes.flatMap((c) => c.lost)])].sort();
  const source = map.source === 'live' ? 'the live state' : 'the configuration';
  const onlyInBase = base ? base.map.accounts.map((a) => a.account).filter((a) => !map.accounts.some((m) => m.account === a)) : [];
  const meta = [`Routing of ${source}: which channels an alert of each event category and severity reaches, and through which rules.`];
  if (base) meta.push(`Compared with ${h(base.ref)} (commit ${h(base.commit.slice(0, 12))}): ${changes.length} cell${changes.length === 1 ? '' : 's'} change; changed cells are marked “changed”, with the channels they gain and lose.`);
  if (onlyInBase.length > 0) meta.push(`Accounts only at ${h(base!.ref)}: ${h(onlyInBase.join(', '))}.`);
  const parts = [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${ROUTES_HTML_CSP}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>postureops routing: ${h(options.title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>postureops routing: ${h(options.title)}</h1>`,
    ...meta.map((m) => `<p class="meta">${m}</p>`),
    '<form id="filters">',
    `<label>Account <select id="f-account"><option value="">every account</option>${map.accounts.map((a) => `<option value="${h(a.account)}">${h(a.account)}</option>`).join('')}</select></label>`,
    `<label>Channel <select id="f-channel"><option value="">every channel</option>${channels.map((c) => `<option value="${h(c)}">${h(c)}</option>`).join('')}</select></label>`,
    ...(base ? ['<label><input type="checkbox" id="f-changed"> changed cells only</label>'] : []),
    '<output id="f-status"></output>',
    '</form>',
    '<p class="hint">Each cell lists its channels and, under each, the rules that reach it (with their resource groups or other filters: “part” marks a channel reached for only part of the cell’s alerts). — : the cell reaches nothing.</p>',
    ...map.accounts.map((a) => accountHtml(a, byAccount.get(a.account) ?? new Map(), changes.filter((c) => c.account === a.account), base)),
    ...(map.accounts.length === 0 ? ['<p>No account.</p>'] : []),
    `<script>${SCRIPT}</script>`,
    '</body>',
    '</html>',
  ];
  return parts.join('\n') + '\n';
}
