// Refusals that --force overrides: a plan touching too large a share of what exists (octoDNS's update
// and delete thresholds, set in postureops.yaml), and deleting a resource that a live resource the plan
// leaves alone still references.

import type { Kind } from '../../kinds/types.js';
import type { SafetySettings, SafetyThresholds } from '../../model/account.js';
import type { LiveResource } from '../../model/resource.js';
import { ownerNames, type PlannedChange, referencedNames } from './order.js';
import { resourceKey } from '../../model/resource.js';
import type { Change, Refusal } from '../../model/plan.js';
import type { Json } from '../../model/json.js';

/** The thresholds where postureops.yaml sets none. */
export const SAFETY_DEFAULTS: Required<SafetyThresholds> = { minResources: 10, updatePercent: 30, deletePercent: 30 };

/** The thresholds of one account, or of one kind in it: the most specific setting of each wins. */
export function thresholdsFor(settings: SafetySettings | undefined, account: string, kind?: string): Required<SafetyThresholds> {
  const own = settings?.accounts?.[account];
  // Stryker disable next-line ConditionalExpression: without a kind, `kinds[undefined]` finds nothing either; the guard is for the type checker
  const layers: (SafetyThresholds | undefined)[] = [settings, kind === undefined ? undefined : settings?.kinds?.[kind], own, kind === undefined ? undefined : own?.kinds?.[kind]];
  const out = { ...SAFETY_DEFAULTS };
  for (const layer of layers) {
    if (layer?.minResources !== undefined) out.minResources = layer.minResources;
    if (layer?.updatePercent !== undefined) out.updatePercent = layer.updatePercent;
    if (layer?.deletePercent !== undefined) out.deletePercent = layer.deletePercent;
  }
  return out;
}

interface Counts {
  account: string;
  kind?: string;
  total: number;
  delete: number;
  update: number;
  replace: number;
}

/**
 * Per account and kind, from `minResources` live resources on: more than `updatePercent` of them
 * updated or replaced, or more than `deletePercent` deleted. Per account, whatever the count: every
 * live resource deleted, or more than `deletePercent` of them, so that a plan emptying an account (an
 * empty configuration with prune on) is always refused. Live resources the service manages
 * (predefined ones) do not count, nor state-only records in the account's share.
 */
export function safetyRefusal(
  changes: readonly Change[],
  live: readonly LiveResource[],
  accountOrder: readonly string[],
  kinds: readonly Kind[],
  settings?: SafetySettings,
): Refusal | undefined {
  const groups = new Map<string, Counts>();
  const accounts = new Map<string, Counts>();
  const group = (account: string, kind: string): Counts => {
    const key = JSON.stringify([account, kind]);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { account, kind, total: 0, delete: 0, update: 0, replace: 0 }));
    return g;
  };
  const whole = (account: string): Counts => {
    let g = accounts.get(account);
    if (!g) accounts.set(account, (g = { account, total: 0, delete: 0, update: 0, replace: 0 }));
    return g;
  };
  // State-only records (the predefined policies) are never deleted: their kind's update share counts
  // them, the account's share of what a plan may delete does not.
  const stateOnly = new Set(kinds.filter((k) => k.lifecycle?.stateOnly).map((k) => k.kind));
  for (const r of live) {
    if (r.managedByService) continue;
    group(r.account, r.kind).total++;
    if (!stateOnly.has(r.kind)) whole(r.account).total++;
  }
  for (const c of changes) {
    // Stryker disable next-line ConditionalExpression,StringLiteral: a create would only add a `create` count that nothing reads
    if (c.action === 'create') continue;
    group(c.account, c.kind)[c.action]++;
    if (!stateOnly.has(c.kind)) whole(c.account)[c.action]++;
  }

  const over: { counts: Counts; why: string }[] = [];
  for (const g of groups.values()) {
    const t = thresholdsFor(settings, g.account, g.kind);
    if (g.total === 0 || g.total < t.minResources) continue;
    const changed = g.update + g.replace;
    if (changed * 100 > g.total * t.updatePercent) over.push({ counts: g, why: `${share(changed, g.total)} updated or replaced, more than ${t.updatePercent}%` });
    if (g.delete * 100 > g.total * t.deletePercent) over.push({ counts: g, why: `${share(g.delete, g.total)} deleted, more than ${t.deletePercent}%` });
  }
  for (const a of accounts.values()) {
    const t = thresholdsFor(settings, a.account);
    if (a.total === 0) continue;
    if (a.delete === a.total) over.push({ counts: a, why: `all ${a.total} live resources of the account deleted` });
    else if (a.delete * 100 > a.total * t.deletePercent) over.push({ counts: a, why: `${share(a.delete, a.total)} of the account deleted, more than ${t.deletePercent}%` });
  }
  if (over.length === 0) return undefined;

  const accountIdx = (a: string): number => accountOrder.indexOf(a);
  // The whole account (no kind) finds no kind: -1, before its kinds.
  const kindIdx = (k: string | undefined): number => kinds.findIndex((x) => x.kind === k);
  over.sort((a, b) => accountIdx(a.counts.account) - accountIdx(b.counts.account) || kindIdx(a.counts.kind) - kindIdx(b.counts.kind));
  return {
    code: 'safety-threshold',
    message: `the plan changes more of what exists than the safety thresholds allow (${over.length === 1 ? 'one threshold' : `${over.length} thresholds`}); review it and use --force to apply`,
    details: over.map(({ counts: g, why }) => `${g.kind === undefined ? g.account : `${g.account}/${g.kind}`}: ${why} (${g.delete} delete, ${g.update} update, ${g.replace} replace)`),
  };
}

const share = (n: number, total: number): string => `${n} of ${total} live (${Math.round((n / total) * 100)}%)`;

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
      if (!kind) continue;
      // Plain references, and member references (`<resource>.<member>`) by the resource they name.
      const refs = [...(kind.references ?? []).map((r) => ({ ...r, names: referencedNames })), ...(kind.memberReferences ?? []).map((r) => ({ ...r, names: ownerNames }))];
      for (const ref of refs) {
        if (ref.kind !== change.kind || !ref.names(referrer.spec, ref.pointer).includes(change.name)) continue;
        const own = changeOf.get(idKey(referrer.account, referrer.kind, referrer.id));
        if (own && stopsReferring(own, ref.pointer, change, ref.names)) continue;
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

function stopsReferring(own: PlannedChange, pointer: string, target: Change, names: (spec: Json | undefined, pointer: string) => string[] = referencedNames): boolean {
  if (own.change.action === 'delete') return true;
  if (!own.desired) return false;
  // Apply replaces by deleting first: a referrer re-pointed to the new id still blocks that delete.
  return !names(own.desired.spec, pointer).includes(target.name);
}
