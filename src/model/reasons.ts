// Why a change exists or a result is what it is, as a code from a closed set (Terraform's typed
// ActionReason) beside the message people read. Counts, exit decisions and renderings key on the
// code; the message is prose, free to change, and never parsed.

/** Why the plan holds a change (when its action alone does not say): `Change.reasonCode`. */
export type ChangeReasonCode =
  | 'replace-because-cannot-update'
  | 'update-because-reference-replaced'
  | 'delete-because-not-declared'
  | 'delete-because-not-in-parent';

/** Why a result of apply is what it is: `ChangeResult.reasonCode`. */
export type ResultReasonCode =
  // done, with a note
  | 'created-after-unknown-outcome'
  | 'already-gone'
  // skipped
  | 'not-started'
  | 'dependency-failed'
  // failed
  | 'dependency-cycle'
  | 'request-failed'
  | 'outcome-unknown'
  | 'interrupted'
  | 'replacement-failed'
  | 'missing-value'
  | 'no-longer-live'
  | 'invalid-change'
  | 'change-failed';

export type ReasonCode = ChangeReasonCode | ResultReasonCode;

/** One line per code: what it means (docs/commands.md lists the same). Records, so that a new code cannot go undocumented. */
export const CHANGE_REASON_CODES: Readonly<Record<ChangeReasonCode, string>> = {
  'replace-because-cannot-update': 'a member the service cannot change in place differs: delete, then create',
  'update-because-reference-replaced': 'it names a resource this plan replaces: the reference is sent again with the new id',
  'delete-because-not-declared': 'no file declares it and prune is on for its kind',
  'delete-because-not-in-parent': 'its declared parent (a profile) does not list it',
};

export const RESULT_REASON_CODES: Readonly<Record<ResultReasonCode, string>> = {
  'created-after-unknown-outcome': 'done: the answer to the create was lost; a fresh read found it created, so it was not repeated',
  'already-gone': 'done: the resource to delete was no longer there',
  'not-started': 'skipped: the run stopped (interrupted, service unreachable, lease lost) before it started',
  'dependency-failed': 'skipped: a change it depends on failed or was not done',
  'dependency-cycle': 'failed: its dependencies form a cycle, so it could not start',
  'request-failed': 'failed: the service refused or failed a request (status and message say which)',
  'outcome-unknown': 'failed: whether a create took effect is unknown (answer lost, not found, or found twice)',
  'interrupted': 'failed: the run stopped while it was under way; part of it may have been applied',
  'replacement-failed': 'failed: the old resource was deleted, but creating its replacement failed',
  'missing-value': 'failed: a value it needs is not available (an environment variable, a secret, a referenced id)',
  'no-longer-live': 'failed: the resource to change is no longer live',
  'invalid-change': 'failed: the plan does not give what the change needs (a live id, a spec, a known kind)',
  'change-failed': 'failed: any other error while carrying it out (the message says which)',
};

export const REASON_CODES: Readonly<Record<ReasonCode, string>> = { ...CHANGE_REASON_CODES, ...RESULT_REASON_CODES };

export const isChangeReasonCode = (v: unknown): v is ChangeReasonCode => typeof v === 'string' && Object.hasOwn(CHANGE_REASON_CODES, v);
export const isResultReasonCode = (v: unknown): v is ResultReasonCode => typeof v === 'string' && Object.hasOwn(RESULT_REASON_CODES, v);

/** A code with its message: what a change or result carries (both or neither). */
export interface Reasoned<C extends ReasonCode> {
  reasonCode: C;
  reason: string;
}

/** The members a change or result spreads in: `{...because('already-gone', 'already gone')}`. */
export function because<C extends ReasonCode>(code: C, message: string): Reasoned<C> {
  return { reasonCode: code, reason: message };
}
