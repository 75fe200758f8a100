// Step "target": `--target [account/]Kind/name` narrows a plan to the changes it selects (a child's
// change when its parent is selected), plus every change those depend on, however indirectly (a
// targeted rule takes along the channel it routes to when that channel is created or replaced). The
// changes keep their order; unmanaged resources are listed only when selected. Without selectors the
// plan is whole.

import type { Diagnostic } from '../../model/diagnostics.js';
import type { Change, UnmanagedResource } from '../../model/plan.js';
import type { Kind } from '../../kinds/types.js';
import { parseSelector, selects } from '../core/selectors.js';
import { kindsByName } from './shared.js';

export interface Targeted {
  /** The kept changes, in the order given. */
  readonly changes: readonly Change[];
  readonly keys: ReadonlySet<string>;
  readonly unmanaged: readonly UnmanagedResource[];
  /** The selectors, when there were any: the plan is partial. */
  readonly targets?: readonly string[];
  readonly diagnostics: readonly Diagnostic[];
}

/** A resource a selector may name: declared or live, in the plan's accounts. */
export interface Named {
  readonly account: string;
  readonly kind: string;
  readonly name: string;
}

/**
 * A selector that names no declared or live resource of the plan's accounts is an error (a typo
 * would otherwise plan "no changes" and exit 0); one that names resources without a change is a
 * warning.
 */
export function target(
  changes: readonly Change[],
  unmanaged: readonly UnmanagedResource[],
  selectorTexts: readonly string[],
  kinds: readonly Kind[],
  resources: Iterable<Named> = [],
): Targeted {
  if (selectorTexts.length === 0) return { changes, keys: new Set(changes.map((c) => c.key)), unmanaged, diagnostics: [] };
  const kindOf = kindsByName(kinds);
  const selectors = selectorTexts.map(parseSelector);
  const used = new Set<string>();
  const picks = (account: string, kind: string, name: string): boolean => {
    const hits = selectors.filter((s) => selects(s, account, kind, name));
    for (const s of hits) used.add(s.text);
    return hits.length > 0;
  };
  const byKey = new Map(changes.map((c) => [c.key, c]));
  const keys = new Set<string>();
  const take = (key: string): void => {
    if (keys.has(key) || !byKey.has(key)) return;
    keys.add(key);
    for (const dep of byKey.get(key)!.dependsOn) take(dep);
  };
  for (const c of changes) {
    const parentKind = kindOf.get(c.kind)?.hierarchy?.parentKind;
    const own = picks(c.account, c.kind, c.name);
    const viaParent = parentKind !== undefined && c.parent !== undefined && picks(c.account, parentKind, c.parent);
    if (own || viaParent) take(c.key);
  }
  const kept = unmanaged.filter((u) => picks(u.account, u.kind, u.name));
  const unused = selectors.filter((s) => !used.has(s.text));
  const named = new Set<string>();
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut; with no unused selector the loop adds nothing
  if (unused.length > 0) {
    for (const r of resources) for (const s of unused) if (selects(s, r.account, r.kind, r.name)) named.add(s.text);
  }
  const diagnostics: Diagnostic[] = unused.map((s) =>
    named.has(s.text)
      ? { severity: 'warning', code: 'target-no-change', message: `--target ${s.text} selects no change of this plan: what it names is up to date` }
      : {
          severity: 'error',
          code: 'target-no-match',
          message: `--target ${s.text} names no declared or live resource of the accounts planned`,
          hint: 'selectors look like [account/]Kind/name; * matches within a part; check the spelling and --account',
        },
  );
  return { changes: changes.filter((c) => keys.has(c.key)), keys, unmanaged: kept, targets: [...selectorTexts], diagnostics };
}
