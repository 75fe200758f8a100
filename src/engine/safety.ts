// Refusals that --force overrides: a plan touching too large a share of what exists (octoDNS), and
// deleting a resource that a live resource the plan leaves alone still references.

import type { Kind } from '../kinds/types.js';
import type { LiveResource } from '../model/resource.js';
import { type PlannedChange, referencedNames, resourceKey } from './order.js';
import type { Change, Refusal } from '../model/plan.js';

/** Below this many user-managed live resources of a kind in an account, no threshold applies. */
export const SAFETY_MIN_RESOURCES = 10;
/** Share of them a plan may delete, update or replace without --force. */
export const SAFETY_MAX_SHARE = 0.3;

/** Per account and kind: more than 30 % of 10 or more live resources deleted, updated or replaced. */
export function safetyRefusal(changes: readonly Change[], live: readonly LiveResource[], accountOrder: readonly string[], kinds: readonly Kind[]): Refusal | undefined {
  const groups = new Map<string, { account: string; kind: string; total: number; delete: number; update: number; replace: number }>();
  const group = (account: string, kind: string) => {
    const key = JSON.stringify([account, kind]);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { account, kind, total: 0, delete: 0, update: 0, replace: 0 }));
    return g;
  };
  for (const r of live) if (!r.managedByService) group(r.account, r.kind).total++;
  for (const c of changes) if (c.action !== 'create') group(c.account, c.kind)[c.action]++;

  const accountIdx = (a: string): number => accountOrder.indexOf(a);
  const kindIdx = (k: string): number => kinds.findIndex((x) => x.kind === k);
  const over = [...groups.values()]
    .filter((g) => g.total >= SAFETY_MIN_RESOURCES && g.delete + g.update + g.replace > g.total * SAFETY_MAX_SHARE)
    .sort((a, b) => accountIdx(a.account) - accountIdx(b.account) || kindIdx(a.kind) - kindIdx(b.kind));
  if (over.length === 0) return undefined;
  const pct = Math.round(SAFETY_MAX_SHARE * 100);
  return {
    code: 'safety-threshold',
    message: `the plan deletes, updates or replaces more than ${pct}% of the live resources of ${over.length === 1 ? 'a kind' : `${over.length} kinds`}; review it and use --force to apply`,
    details: over.map((g) => {
      const n = g.delete + g.update + g.replace;
      return `${g.account}/${g.kind}: ${n} of ${g.total} live (${Math.round((n / g.total) * 100)}%): ${g.delete} delete, ${g.update} update, ${g.replace} replace`;
    }),
  };
}

/**
 * Deleting (or replacing) a resource that another live resource still references, when the plan
 * neither deletes that referrer nor updates the reference away. Generic over kind references.
 */
export function inUseRefusal(
  items: readonly PlannedChange[],
  live: readonly LiveResource[],
  kinds: readonly Kind[],
  declared: ReadonlySet<string>,
): Refusal | undefined {
  const changeOf = new Map<string, PlannedChange>();
  const idKey = (account: string, kind: string, id: string): string => JSON.stringify([account, kind, id]);
  for (const item of items) {
    if (item.live) changeOf.set(idKey(item.live.account, item.live.kind, item.live.id), item);
  }
  const details: string[] = [];
  for (const target of items) {
    const { change } = target;
    if (change.action !== 'delete' && change.action !== 'replace') continue;
    for (const referrer of live) {
      if (referrer.account !== change.account) continue;
      const kind = kinds.find((k) => k.kind === referrer.kind);
      for (const ref of kind?.references ?? []) {
        if (ref.kind !== change.kind || !referencedNames(referrer.spec, ref.pointer).includes(change.name)) continue;
        const own = changeOf.get(idKey(referrer.account, referrer.kind, referrer.id));
        if (own && stopsReferring(own, ref.pointer, change)) continue;
        const managed = declared.has(resourceKey(referrer.account, referrer.kind, referrer.name));
        details.push(
          `${change.account}/${change.kind}/${change.name} (${change.action}) is still used by ${referrer.kind} ${referrer.name}` +
            (managed ? '' : ' (not declared in this configuration)'),
        );
      }
    }
  }
  if (details.length === 0) return undefined;
  const sorted = [...new Set(details)].sort();
  return {
    code: 'in-use',
    message: `the plan removes ${sorted.length === 1 ? 'a resource' : 'resources'} that other resources still reference; change or delete those first, or use --force`,
    details: sorted,
  };
}

function stopsReferring(own: PlannedChange, pointer: string, target: Change): boolean {
  if (own.change.action === 'delete') return true;
  if (!own.desired) return false;
  // Apply replaces by deleting first: a referrer re-pointed to the new id still blocks that delete.
  return !referencedNames(own.desired.spec, pointer).includes(target.name);
}
