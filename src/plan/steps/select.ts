// Step "select": documents that select live records rather than name them (Kind.select: the
// predefined policies' state by policy id or by tag) become the resources they select, one per live
// record, before anything else looks at the desired state. The kind expands the resources of one
// account against that account's live records; every other resource passes through in its place.
// Selections of an account that was not read select nothing (scope says when that account mattered).

import type { Diagnostic } from '../../model/diagnostics.js';
import type { DesiredResource } from '../../model/resource.js';
import type { LiveState } from '../../model/live.js';
import type { Kind } from '../../kinds/types.js';
import { kindsByName } from './shared.js';

export function select(
  desired: readonly DesiredResource[],
  live: Pick<LiveState, 'accounts' | 'resources'>,
  kinds: readonly Kind[],
): { desired: readonly DesiredResource[]; diagnostics: Diagnostic[] } {
  const kindOf = kindsByName(kinds);
  const selecting = (d: DesiredResource): boolean => kindOf.get(d.kind)?.select !== undefined;
  // An account not read (a saved plan re-derived for the accounts it changes) has nothing to select from.
  const fetched = new Set(live.accounts.map((a) => a.name));
  if (!desired.some(selecting)) return { desired, diagnostics: [] };
  const groups = new Map<string, DesiredResource[]>();
  const groupKey = (d: DesiredResource): string => JSON.stringify([d.account, d.kind]);
  for (const d of desired.filter(selecting)) groups.set(groupKey(d), [...(groups.get(groupKey(d)) ?? []), d]);
  const diagnostics: Diagnostic[] = [];
  const out: DesiredResource[] = [];
  const done = new Set<string>();
  for (const d of desired) {
    if (!selecting(d)) {
      out.push(d);
      continue;
    }
    // The first resource of an (account, kind) stands for the group: its selection goes in its place.
    const key = groupKey(d);
    if (done.has(key) || !fetched.has(d.account)) continue;
    done.add(key);
    const expanded = kindOf.get(d.kind)!.select!.expand(groups.get(key)!, live.resources.filter((r) => r.account === d.account));
    out.push(...expanded.resources);
    diagnostics.push(...expanded.diagnostics);
  }
  return { desired: out, diagnostics };
}
