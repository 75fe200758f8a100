// Engine-only values: the live state it reads and the progress hooks it calls. The Plan and its
// results are shared values in src/model/plan.ts.

import type { AccountConfig } from './account.js';
import type { CallStats, Change, ChangeResult, UnreadKinds } from './plan.js';
import type { Diagnostic } from './diagnostics.js';
import type { LiveResource } from './resource.js';

export interface LiveState {
  accounts: AccountConfig[];
  resources: LiveResource[];
  calls: CallStats;
  /** Warnings found while reading (a reference to an id that no live resource has: `dangling-reference`). */
  diagnostics?: Diagnostic[];
  /** Kinds left unread per account (FetchOptions.kindsOf). */
  unread?: UnreadKinds[];
  /**
   * With FetchOptions.keepLists: account → list path as read (`AlertChannels`, `Exceptions?policyId=P`)
   * → its records as the service answered them, every page (read-only; what a rehearsal seeds from).
   */
  lists?: Record<string, Record<string, readonly unknown[]>>;
}

/** Progress callbacks; the CLI shows them on a terminal only. */
export interface EngineHooks {
  onChangeStart?(change: Change): void;
  onChangeDone?(result: ChangeResult): void;
  /**
   * A credential the service issued for a created resource (an agent access token's value). The one
   * way it leaves the engine: never in a result, a report or an error.
   */
  onCredential?(change: Change, value: string): void;
  /** Called once per second of a rate-limit wait with the seconds left. */
  onWait?(bucket: string, secondsLeft: number): void;
}
