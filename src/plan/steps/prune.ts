// Step "prune": live resources nobody declares. A child of a declared parent goes (the parent's
// document lists all its children), unless a replaced owner takes it along; children of an
// undeclared owner go or stay with it; anything else is deleted where prune is on for its kind and
// listed as unmanaged where it is off. What the root file's `protect` selects is never deleted here:
// it is listed as unmanaged (protected). `deletionReason` says why, in one place.

import type { Diagnostic } from '../../model/diagnostics.js';
import type { UnmanagedResource } from '../../model/plan.js';
import type { ChangeReasonCode } from '../../model/reasons.js';
import type { LiveResource } from '../../model/resource.js';
import type { Kind } from '../../kinds/types.js';
import { parseSelector, selects } from '../core/selectors.js';
import { type LiveIndex, livesAt } from './live-index.js';
import { type Decisions, type Deletion, kindsByName } from './shared.js';
import { resourceKey } from '../../model/resource.js';

export interface PruneInput {
  readonly live: readonly LiveResource[];
  readonly index: LiveIndex;
  /** Keys of every declared resource in scope. */
  readonly declared: ReadonlySet<string>;
  readonly decisions: Decisions;
  /** Per kind name: delete what no file declares. */
  readonly prune: Readonly<Record<string, boolean>>;
  readonly kinds: readonly Kind[];
  readonly accountOrder: readonly string[];
  /** The root file's `protect` selectors: what matches one is never deleted here, only listed. */
  readonly protect?: readonly string[];
}

export interface Pruned {
  /** In the order of the live state. */
  readonly deletions: readonly Deletion[];
  /** Sorted by account order, kind order, name, id. */
  readonly unmanaged: readonly UnmanagedResource[];
  readonly diagnostics: readonly Diagnostic[];
}

/** Why a deletion is planned: its declared parent does not list it, or prune is on for its kind. */
export type DeletionCause = { readonly why: 'not-in-parent'; readonly parentKind: string } | { readonly why: 'prune' };

/** The reason a deletion carries: the one place that words it, given the kind it deletes. */
export function deletionReason(live: LiveResource, kind: Kind, cause: DeletionCause): string {
  const why = cause.why === 'prune' ? `not declared; prune is on for ${live.kind}` : `not declared in ${cause.parentKind} ${live.parent}`;
  // A kind whose delete is not a deletion (tokens are disabled) says so in the plan.
  return kind.lifecycle?.deleteMeans ? `${why}; ${kind.lifecycle?.deleteMeans}` : why;
}

const DELETION_CODE: Readonly<Record<DeletionCause['why'], ChangeReasonCode>> = {
  prune: 'delete-because-not-declared',
  'not-in-parent': 'delete-because-not-in-parent',
};

export function prune(input: PruneInput): Pruned {
  const kindOf = kindsByName(input.kinds);
  const deletions: Deletion[] = [];
  const unmanaged: UnmanagedResource[] = [];
  const diagnostics: Diagnostic[] = [];
  const reported = new Set<string>();
  const remove = (live: LiveResource, kind: Kind, cause: DeletionCause): void => {
    deletions.push({ live, kind, reason: deletionReason(live, kind, cause), reasonCode: DELETION_CODE[cause.why] });
  };
  // Stryker disable next-line ArrayDeclaration: a selector of one part without a slash selects nothing
  const protect = (input.protect ?? []).map(parseSelector);
  for (const r of input.live) {
    const kind = kindOf.get(r.kind);
    const key = resourceKey(r.account, r.kind, r.name);
    // A state-only kind's records are the service's: what no file selects is left alone, unlisted.
    if (!kind || r.managedByService || kind.lifecycle?.stateOnly || input.declared.has(key)) continue;
    const guarded = protect.some((s) => selects(s, r.account, r.kind, r.name));
    const leave = (): void => {
      unmanaged.push({ kind: r.kind, account: r.account, name: r.name, id: r.id, ...(guarded ? { protected: true } : {}), ...(r.lastChange ? { lastChange: { ...r.lastChange } } : {}) });
    };
    const parentKind = kind.hierarchy?.parentKind ? kindOf.get(kind.hierarchy?.parentKind) : undefined;
    if (parentKind && r.parent !== undefined) {
      const parent = input.decisions.get(resourceKey(r.account, parentKind.kind, r.parent));
      if (parent) {
        if (parentKind.hierarchy?.ownsChildren && parent.action === 'replace') continue;
        if (guarded) leave();
        else {
          // Stryker disable next-line StringLiteral: deletionReason tells only 'prune' apart from the rest
          remove(r, kind, { why: 'not-in-parent', parentKind: parentKind.kind });
        }
        continue;
      }
      if (parentKind.hierarchy?.ownsChildren) continue;
    }
    if (!input.prune[r.kind] || guarded) {
      leave();
      continue;
    }
    const lives = livesAt(input.index, key);
    if (lives.length <= 1) {
      remove(r, kind, { why: 'prune' });
      continue;
    }
    // Which of them would the user mean? Say so once per name.
    if (reported.has(key)) continue;
    reported.add(key);
    diagnostics.push({
      severity: 'error',
      code: 'ambiguous-live-name',
      message: `prune would delete ${lives.length} live ${r.kind} resources named ${r.name} in account ${r.account} (ids ${lives
        .map((m) => m.id)
        .sort()
        .join(', ')}); names must be unique to be managed`,
      hint: 'rename or delete them in the service',
    });
  }
  return { deletions, unmanaged: sortUnmanaged(unmanaged, input.accountOrder, input.kinds), diagnostics };
}

/** Unmanaged resources by account order, kind order, name, id (merging shards' plans sorts the same way). */
export function sortUnmanaged(list: readonly UnmanagedResource[], accountOrder: readonly string[], kinds: readonly Kind[]): UnmanagedResource[] {
  const accountIdx = (a: string): number => accountOrder.indexOf(a);
  const kindIdx = (k: string): number => kinds.findIndex((x) => x.kind === k);
  const text = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return [...list].sort(
    (a, b) => accountIdx(a.account) - accountIdx(b.account) || kindIdx(a.kind) - kindIdx(b.kind) || text(a.name, b.name) || text(a.id, b.id),
  );
}
