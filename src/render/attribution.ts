// Wording of drift attribution, shared by the text and Markdown renderings: who last changed a live
// record and when (from the record), and the audit log entries `plan --attribute` matched to it.

import type { AuditEntry, Attribution, LastChange } from '../model/plan.js';

/** `last changed by ops@example.com at 2026-11-22T10:15:00.000Z`; '' when the record said nothing. */
export function lastChangeText(lc: LastChange | undefined): string {
  if (!lc || (lc.by === undefined && lc.at === undefined)) return '';
  return ['last changed', lc.by !== undefined ? `by ${lc.by}` : '', lc.at !== undefined ? `at ${lc.at}` : ''].filter((p) => p !== '').join(' ');
}

/** `2026-11-22T10:15:00.000Z ops@example.com update: Updated alert channel ops (PROD_1)`. */
export function auditEntryText(e: AuditEntry): string {
  return `${e.at} ${e.user} ${e.action}: ${e.description}`;
}

/** A change or an unmanaged resource: its account, its live id, and the entries matched to it. */
export interface AuditedItem {
  account: string;
  liveId?: string;
  id?: string;
  audit?: AuditEntry[];
}

/**
 * When the audit log was read for this item's account: a title and its entries (none: the title says
 * so). Undefined when it was not read (`plan` without `--attribute`, or an account without drift).
 */
export function auditSection(item: AuditedItem, attribution: Attribution | undefined): { title: string; entries: string[] } | undefined {
  // Only a live record has a history: a create has none to show.
  if (!attribution || !attribution.accounts.includes(item.account) || (item.liveId ?? item.id) === undefined) return undefined;
  const entries = item.audit ?? [];
  if (entries.length === 0) return { title: `audit log: no entry in the last ${attribution.days} days`, entries: [] };
  return { title: entries.length < attribution.perResource ? 'audit log:' : `audit log (the ${attribution.perResource} newest):`, entries: entries.map(auditEntryText) };
}
