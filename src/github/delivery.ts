// What the drift issue says of delivery (issue 35): the cells whose channels the service reports
// failing, silent (every channel) or degraded (some), first in the issue, and when each was first
// reported. The issue keeps what it reported in itself: a hidden block at the end of its body, read
// back on the next check. The body is anyone's to edit, so the block is untrusted when read back:
// bounded before it is decoded, validated entry by entry, anything else ignored.

import type { Plan } from '../model/plan.js';
import { escapeMd } from '../render/markdown.js';
import { deliveryMd } from '../render/routing-markdown.js';

/** A cell reported silent or degraded, and since which check. */
export interface DeliveryRecord {
  account: string;
  /** `Category/severity`. */
  cell: string;
  state: 'silent' | 'degraded';
  /** ISO 8601: the check that first reported it. */
  since: string;
}

/** Most cells the block keeps (the rest are reported, not remembered). */
export const DELIVERY_MAX_CELLS = 200;
/** Longest block read back (characters of its base64 text). */
const BLOCK_MAX = 40_000;
const TEXT_MAX = 200;
const BLOCK = /^<!-- postureops:delivery ([A-Za-z0-9_-]{1,40000}) -->/;

/** The cells the plan's live state leaves silent or degraded, in the plan's account order. */
export function deliveryNow(plan: Plan): Omit<DeliveryRecord, 'since'>[] {
  return (plan.routing?.delivery ?? []).flatMap((d) => [
    ...d.silent.map((cell) => ({ account: d.account, cell, state: 'silent' as const })),
    ...d.degraded.map((cell) => ({ account: d.account, cell, state: 'degraded' as const })),
  ]);
}

/** The records of an issue body's block; [] when it has none or it is not one postureops wrote. */
export function readDeliveryBlock(body: string | null | undefined): DeliveryRecord[] {
  const text = body ?? '';
  const at = text.lastIndexOf('<!-- postureops:delivery ');
  if (at < 0 || text.length - at > BLOCK_MAX + 4_000) return [];
  const m = BLOCK.exec(text.slice(at));
  if (!m) return [];
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(m[1], 'base64url').toString('utf8'));
  } catch {
    return [];
  }
  if (typeof value !== 'object' || value === null || (value as { v?: unknown }).v !== 1 || !Array.isArray((value as { cells?: unknown }).cells)) return [];
  const out: DeliveryRecord[] = [];
  const seen = new Set<string>();
  for (const e of (value as { cells: unknown[] }).cells.slice(0, DELIVERY_MAX_CELLS)) {
    if (typeof e !== 'object' || e === null) continue;
    const { a: account, c: cell, s: state, t: since } = e as Record<string, unknown>;
    const short = (s: unknown): s is string => typeof s === 'string' && s !== '' && s.length <= TEXT_MAX;
    if (!short(account) || !short(cell) || (state !== 'silent' && state !== 'degraded') || !short(since) || Number.isNaN(Date.parse(since))) continue;
    const key = JSON.stringify([account, cell]);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ account, cell, state, since: new Date(Date.parse(since)).toISOString() });
  }
  return out;
}

/** The hidden block holding `records` (base64url JSON: nothing in it can end the comment or be read as Markdown). */
export function deliveryBlock(records: readonly DeliveryRecord[]): string {
  if (records.length === 0) return '';
  const json = JSON.stringify({ v: 1, cells: records.slice(0, DELIVERY_MAX_CELLS).map((r) => ({ a: r.account, c: r.cell, s: r.state, t: r.since })) });
  return `<!-- postureops:delivery ${Buffer.from(json, 'utf8').toString('base64url')} -->`;
}

/** This check against what the issue reported: each current cell with its first report, and the cells healed since. */
export function followDelivery(previous: readonly DeliveryRecord[], now: readonly Omit<DeliveryRecord, 'since'>[], at: string): { records: DeliveryRecord[]; healed: DeliveryRecord[] } {
  const before = new Map(previous.map((r) => [JSON.stringify([r.account, r.cell]), r]));
  const records = now.map((r) => ({ ...r, since: before.get(JSON.stringify([r.account, r.cell]))?.since ?? at }));
  const current = new Set(now.map((r) => JSON.stringify([r.account, r.cell])));
  return { records, healed: previous.filter((r) => !current.has(JSON.stringify([r.account, r.cell]))) };
}

/** The issue's delivery section ('' when nothing is silent, degraded or healed): first in the issue. */
export function deliverySection(plan: Plan, records: readonly DeliveryRecord[], healed: readonly DeliveryRecord[]): string {
  const parts: string[] = [];
  if (records.length > 0) {
    const silent = records.filter((r) => r.state === 'silent').length;
    const lines = records.slice(0, 100).map((r) => `- ${escapeMd(`${r.account} · ${r.cell}`)}: **${r.state}** (${r.state === 'silent' ? 'every channel failing' : 'a channel failing'}), reported since ${escapeMd(r.since.slice(0, 16).replace('T', ' '))} UTC`);
    if (records.length > 100) lines.push(`- … ${records.length - 100} more`);
    parts.push(
      `### Alerts that do not arrive (${records.length} cell${records.length === 1 ? '' : 's'}${silent > 0 ? `, ${silent} silent` : ''})`,
      'The service reports these channels failing: alerts of the cells below reach no channel that delivers (silent) or fewer than they should (degraded). Repair the destinations (a revoked webhook, a rotated key); this part clears itself when they heal.',
      deliveryMd(plan.routing?.delivery ?? []),
      lines.join('\n'),
    );
  }
  if (healed.length > 0) parts.push(`Delivery restored since the last check: ${escapeMd(healed.map((r) => `${r.account} · ${r.cell}`).join(', '))}.`);
  return parts.join('\n\n');
}
