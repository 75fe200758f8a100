// The values the plan steps hand each other. Every step takes these and returns new ones; none
// changes what an earlier step returned, so each step can be read and tested on its own.

import type { Action, Change } from '../../model/plan.js';
import type { ChangeReasonCode } from '../../model/reasons.js';
import type { Diagnostic } from '../../model/diagnostics.js';
import type { DesiredResource, LiveResource } from '../../model/resource.js';
import type { Kind } from '../../kinds/types.js';
import type { ResourceDiff } from '../core/diff.js';

/** A declared resource with its kind and the one live resource of the same (account, kind, name). */
export interface Match {
  readonly key: string;
  readonly desired: DesiredResource;
  readonly kind: Kind;
  readonly live?: LiveResource;
  /** The live twin's name before this plan renames it (`previousNames`). */
  readonly renamedFrom?: string;
}

/** What the plan does with a declared resource; no action: it stays as it is. */
export interface Decision extends Match {
  readonly action?: Action;
  readonly diff?: ResourceDiff;
  /** Write-only secrets are pushed on purpose (`--rotate`). */
  readonly rotate: boolean;
  /** Why, when the action alone does not say (set together with `reasonCode`). */
  readonly reason?: string;
  readonly reasonCode?: ChangeReasonCode;
  /** Key of the parent whose create or replace carries this resource in its request. */
  readonly foldedInto?: string;
}

/** Declared resources by key, in the order of the desired state. */
export type Decisions = ReadonlyMap<string, Decision>;

/** A live resource nobody declares that the plan deletes. */
export interface Deletion {
  readonly live: LiveResource;
  readonly kind: Kind;
  readonly reason: string;
  readonly reasonCode: ChangeReasonCode;
}

/** A reference of a change's request: the live id when the target keeps one through this plan. */
export type Ref = NonNullable<Change['refs']>[number];

/** Where a diagnostic about a declared resource points. */
export const at = (d: DesiredResource): Pick<Diagnostic, 'file' | 'line' | 'column'> =>
  d.source ? { file: d.source.file, line: d.source.line, column: d.source.column } : {};

export const kindsByName = (kinds: readonly Kind[]): ReadonlyMap<string, Kind> => new Map(kinds.map((k) => [k.kind, k]));
