// Wording and grouping shared by the text and Markdown renderings.

import { formatLocation, type Diagnostic, type SourcePosition } from '../model/diagnostics.js';
import type { CallStats, Action, BucketNeed, Change, LeaseReport, Plan, PlanSummary, Refusal, Rehearsal, UnreadKinds } from '../model/plan.js';

export const ACTION_SIGN: Record<Action, string> = { create: '+', update: '~', replace: '-/+', delete: '-' };
export const ACTION_WORD: Record<Action, string> = { create: 'create', update: 'update', replace: 'replace', delete: 'delete' };

/** `Plan: 2 to create, 1 to update, 0 to replace, 1 to delete.` or the no-changes sentence. */
export function planSummaryLine(s: PlanSummary): string {
  if (s.create + s.update + s.replace + s.delete === 0) return 'No changes. Live state matches the configuration.';
  return `Plan: ${s.create} to create, ${s.update} to update, ${s.replace} to replace, ${s.delete} to delete.`;
}

/**
 * What the rehearsal found, in one line (unescaped: each renderer neutralises it for its medium, the
 * emulator's messages being outside text): `rehearsed: 3 changes accepted, the result plans clean`.
 */
export function rehearsalLine(r: Rehearsal): string {
  const accepted = `${r.accepted} change${r.accepted === 1 ? '' : 's'} accepted`;
  switch (r.outcome) {
    case 'clean':
      return `rehearsed: ${accepted}, the result plans clean`;
    case 'unsettled': {
      if (r.remaining === undefined) return `rehearsed: ${accepted}, but ${r.message ?? 'the result could not be planned'}`;
      const n = r.remainingCount ?? r.remaining.length;
      const shown = r.remaining.map((c) => `${c.action} ${c.key}${c.message ? ` (${c.message})` : ''}`).join(', ');
      return `rehearsed: ${accepted}, but the result still plans ${n} change${n === 1 ? '' : 's'}: ${shown}${n > r.remaining.length ? ', …' : ''}`;
    }
    case 'refused': {
      const [first, ...more] = r.refused ?? [];
      const also = [more.length > 0 ? `${more.length} more refused` : '', r.notTried ? `${r.notTried} not tried after it` : '', accepted].filter((x) => x !== '').join('; ');
      return `rehearsal refused ${first ? `${first.action} ${first.key}: ${first.message}` : 'a change'} (${also}); nothing was sent to the service`;
    }
    case 'failed':
      return `rehearsal failed: ${r.message ?? 'it could not run'}`;
  }
}

/**
 * Items grouped by account: the configured accounts first in their order, then any other account
 * (alphabetically); the items keep their order (execution order for changes).
 */
export function groupByAccount<T extends { account: string }>(items: readonly T[], accountOrder: readonly string[]): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const list = groups.get(item.account);
    if (list) list.push(item);
    else groups.set(item.account, [item]);
  }
  const known = accountOrder.filter((a) => groups.has(a));
  const others = [...groups.keys()].filter((a) => !accountOrder.includes(a)).sort();
  return [...new Set([...known, ...others])].map((a) => [a, groups.get(a) as T[]]);
}

export function sourceText(source: SourcePosition | undefined): string {
  return source ? formatLocation(source) : '';
}

/** `1h 2m 3s`, `4m 0s`, `12s`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  if (h > 0) return `${h}h ${m}m ${r}s`;
  if (m > 0) return `${m}m ${r}s`;
  return `${r}s`;
}

/** `14 (GET AlertChannels 2, GET AlertRules 2)`: buckets sorted by name. */
export function callsText(calls: CallStats): string {
  const buckets = Object.keys(calls.byBucket).sort();
  if (buckets.length === 0) return String(calls.total);
  return `${calls.total} (${buckets.map((b) => `${b} ${calls.byBucket[b]}`).join(', ')})`;
}

/**
 * The kinds a plan did not read, one line per set of kinds: `KindA, KindB in prod, staging`.
 * Accounts past `maxAccounts` are counted, not named.
 */
export function unreadLines(unread: readonly UnreadKinds[], maxAccounts = 10): string[] {
  const groups = new Map<string, string[]>();
  for (const u of unread) {
    const key = u.kinds.join(', ');
    groups.set(key, [...(groups.get(key) ?? []), u.account]);
  }
  return [...groups].map(([kinds, accounts]) => {
    const named = accounts.slice(0, maxAccounts).join(', ');
    const more = accounts.length > maxAccounts ? ` and ${accounts.length - maxAccounts} more accounts` : '';
    return `${kinds} in ${named}${more}`;
  });
}

/** Why a plan leaves kinds unread, in one phrase. */
export const UNREAD_REASON = 'nothing of them is declared there, pruned, or referred to';

/** `12 min`, `8.6 min`, `30 s`: a refill interval. */
export function intervalText(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  return `${Math.round((seconds / 60) * 10) / 10} min`;
}

/** `84 min`, `45 s`: a wait, as rough as an estimate is. */
export function aboutText(seconds: number): string {
  return seconds < 90 ? `${Math.ceil(seconds)} s` : `${Math.round(seconds / 60)} min`;
}

/**
 * One bucket of the apply budget: `needs 2; 118 of 120 left`, and when apply would wait, what the
 * number is: `about 84 min: 7 requests at 1 per 12 min`.
 */
export function budgetText(b: BucketNeed): string {
  const parts = [`needs ${b.needed}`];
  if (b.estimated) parts.push(`not used yet: a full bucket holds ${b.limit}`);
  else if (b.remaining !== undefined) parts.push(b.limit !== undefined ? `${b.remaining} of ${b.limit} left` : `${b.remaining} left`);
  else parts.push('remaining budget unknown');
  if (b.waitSeconds > 0 && b.short !== undefined && b.refillSeconds !== undefined) {
    parts.push(`about ${aboutText(b.waitSeconds)}: ${b.short} request${b.short === 1 ? '' : 's'} at 1 per ${intervalText(b.refillSeconds)}`);
  } else if (b.waitSeconds > 0) {
    parts.push(`wait about ${duration(b.waitSeconds)}`);
  }
  if (b.estimated && b.drainedWaitSeconds !== undefined && b.drainedWaitSeconds > b.waitSeconds) {
    parts.push(`up to ${aboutText(b.drainedWaitSeconds)} if another run has just drained it`);
  }
  return parts.join('; ');
}

/** A count or a time a saved plan (untrusted) may carry: shown only when it is one. */
function amount(n: unknown): n is number {
  return typeof n === 'number' && Number.isFinite(n) && n >= 0;
}

/** `12 for the apply lease (taking it, renewing it while the writes wait, releasing it)`; undefined without a lease. */
export function leaseShareText(plan: Pick<Plan, 'leaseRequests'>): string | undefined {
  const n = plan.leaseRequests;
  if (!amount(n) || n === 0) return undefined;
  return `${Math.round(n)} for the apply lease (taking it, renewing it while the writes wait, releasing it)`;
}

/**
 * `up to 7m 0s more (2m 0s for a request safe to repeat, 5m 0s for a create whose outcome stays
 * unknown)`: what faults may add to the estimate, reserved against --max-duration; undefined without.
 */
export function retryReserveText(plan: Pick<Plan, 'retryReserve'>): string | undefined {
  const r = plan.retryReserve;
  if (r === null || typeof r !== 'object' || !amount(r.seconds) || r.seconds === 0) return undefined;
  const parts: string[] = [];
  if (amount(r.requestSeconds) && r.requestSeconds > 0) parts.push(`${duration(r.requestSeconds)} for a request safe to repeat`);
  if (amount(r.createSeconds) && r.createSeconds > 0) parts.push(`${duration(r.createSeconds)} for a create whose outcome stays unknown`);
  return `up to ${duration(r.seconds)} more${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`;
}

/** The longest single wait: buckets refill in parallel while apply works through them. */
export function longestWait(budget: readonly BucketNeed[]): number {
  return budget.reduce((m, b) => Math.max(m, b.waitSeconds), 0);
}

/** `channels.yaml:3:5: warning[unknown-field]: message (hint)` in one line, for plan and apply views. */
export function diagnosticLine(d: Diagnostic): string {
  const where = formatLocation(d);
  const field = d.field ? ` at ${d.field}` : '';
  const hint = d.hint ? ` (${d.hint})` : '';
  return `${where ? where + ': ' : ''}${d.severity}[${d.code}]: ${d.message}${field}${hint}`;
}

/** What it takes to get past a refusal: a stale plan needs planning again, the others --force. */
export function refusalRemedy(refusal: Refusal): string {
  if (refusal.code === 'prevent-destroy') return 'Apply refuses this plan even with --force: change the plan, or remove lifecycle.preventDestroy first.';
  if (refusal.code === 'rehearsal') {
    return 'Apply refuses this plan even with --force: the service would most likely refuse it too, half-way through. Fix the change the rehearsal names; only if you know the service accepts it, skip the rehearsal with --no-rehearse.';
  }
  return refusal.code === 'stale'
    ? 'The live state changed since this plan was made: plan again.'
    : 'Apply refuses this plan unless --force is given.';
}

/** `Partial plan (--target a, --target b): ...`, or undefined for a whole plan. */
export function partialText(targets: readonly string[] | undefined): string | undefined {
  if (targets === undefined) return undefined;
  return `Partial plan (${targets.map((t) => `--target ${t}`).join(', ')}): only the selected changes and those they depend on; the rest of the configuration is not planned.`;
}

/** The other change a change goes with (a rename, a move, a look-alike delete and create), and what the kind says of it (an issued credential), in words. */
export function linkNotes(change: Change): string[] {
  const out: string[] = [];
  if (change.issued !== undefined) out.push(change.issued);
  if (change.withheld !== undefined && change.withheld.length > 0) {
    out.push(
      `leaves out ${change.withheld.join(', ')}, which the service shows hidden (masked or empty) and the file does not set: sending the mask back would overwrite the secret, and a service that replaces \`data\` whole drops what is left out; give ${change.withheld.length === 1 ? 'it' : 'them'} as \${env:NAME} to keep ${change.withheld.length === 1 ? 'it' : 'them'}`,
    );
  }
  if (change.renamedFrom !== undefined) out.push(`renamed from ${change.renamedFrom} (same id)`);
  if (change.movedFrom !== undefined) out.push(`moved from ${change.movedFrom}: created here first, then deleted there`);
  if (change.movedTo !== undefined) out.push(`moved to ${change.movedTo}: deleted here once it is created there`);
  if (change.sameSpecAs !== undefined) {
    out.push(
      change.action === 'create'
        ? `same spec as ${change.sameSpecAs}, deleted by this plan: a rename? previousNames keeps the id`
        : `same spec as ${change.sameSpecAs}, created by this plan: a rename? previousNames keeps the id`,
    );
  }
  return out;
}

/** One line on the apply lease: where it was held, how long this run waited, and what else happened. */
export function leaseText(lease: LeaseReport): string {
  const held = lease.accounts.length > 0 ? `held on ${lease.accounts.join(', ')}` : 'not needed';
  const waited = lease.waitedSeconds > 0 ? `, waited ${duration(lease.waitedSeconds)} for another apply` : '';
  const notes = lease.notes.length > 0 ? `; ${lease.notes.join('; ')}` : '';
  return `Apply lease: ${held}${waited}${notes}`;
}

/**
 * The scope of a plan narrowed by --changed-since or --shard: a headline, and the skipped accounts
 * grouped by reason (reasons in order of first appearance, accounts in the root file's order).
 */
export function scopeText(plan: Plan): { headline: string; groups: [string, string[]][] } | undefined {
  const scope = plan.scope;
  if (!scope) return undefined;
  const how: string[] = [];
  if (scope.changedSince) {
    const { ref, commit } = scope.changedSince;
    const short = commit.slice(0, 7);
    how.push(`--changed-since ${ref === commit || (ref.length >= 7 && commit.startsWith(ref)) ? short : `${ref} (${short})`}`);
  }
  if (scope.shard) how.push(`--shard ${scope.shard.index}/${scope.shard.count}`);
  const planned = plan.accounts.length;
  const total = planned + scope.skipped.length;
  const skipped = scope.skipped.length > 0 ? `; ${scope.skipped.length} skipped (not read, not planned, not pruned)` : '';
  const groups = new Map<string, string[]>();
  for (const s of scope.skipped) groups.set(s.reason, [...(groups.get(s.reason) ?? []), s.account]);
  return {
    headline: `Scope${how.length > 0 ? ` (${how.join(', ')})` : ''}: ${planned} of ${total} account${total === 1 ? '' : 's'} planned${skipped}.`,
    groups: [...groups],
  };
}
