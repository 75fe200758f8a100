// Why a run stopped before it wrote anything, as data: each adapter renders its own words (the CLI
// an exit code and a line on stderr, the Action a comment and an annotation) from the same problem.

// From model, not the pre-flight: validate loads this file, and the pre-flight's graph (lease, apply) is a plan's.
import { durationText } from '../model/duration.js';
import type { Diagnostic } from '../model/diagnostics.js';
import type { Plan, Refusal } from '../model/plan.js';

export type RunProblem =
  /**
   * The configuration has errors (shown as diagnostics): nothing was written, and nothing was sent
   * unless `sent` says how many requests read the live state while the files loaded (read-ahead.ts).
   */
  | { kind: 'invalid'; diagnostics: Diagnostic[]; sent?: number }
  /** The service address or credentials are missing or malformed (no value is echoed). */
  | { kind: 'client-config'; message: string }
  /** Accounts asked for that postureops.yaml does not declare. */
  | { kind: 'unknown-account'; unknown: string[]; declared: string[] }
  /** What changed could not be found (changed-since: git, a missing commit). */
  | { kind: 'scope'; message: string }
  /** The pre-flight estimate is over the run's maximum duration. */
  | { kind: 'too-long'; too: TooLong }
  /** The plan has errors (or, for a saved plan, its changes cannot be derived again). */
  | { kind: 'no-plan'; diagnostics: Diagnostic[]; saved?: true }
  /** A saved plan names accounts the repository does not declare (names as the file has them: untrusted). */
  | { kind: 'saved-foreign'; names: string[] }
  /** A saved plan takes literal values from the repository that changed since. */
  | { kind: 'saved-literals'; message: string; details: string[] }
  /** A saved plan is stale, or not the plan the repository and the live state ask for. */
  | { kind: 'saved-differs'; stale?: { message: string; details: string[] }; differences: string[] }
  /** The engine refuses the plan (a safety threshold, a resource in use, prevent-destroy); `overridable` by force. */
  | { kind: 'refused'; plan: Plan; refusal: Refusal; overridable: boolean }
  /** Variables the plan reads are not set: found before the lease and the first write, so nothing was applied. */
  | { kind: 'unset-env'; names: string[] }
  /** Another apply holds the lease (checked before the live state is read): nothing was read or changed. */
  | { kind: 'lease-held'; message: string; account?: string }
  /** A signal ended the wait for the lease: nothing was changed. */
  | { kind: 'lease-wait-stopped'; message: string };

/** The pre-flight refusal: the estimate, the bound, and what was spent before it (all in seconds, and as text). */
export interface TooLong {
  /** `read`, `apply`, `read and apply`. */
  what: string;
  /** The estimate as one line (requests, buckets, the wait). */
  line: string;
  seconds: number;
  maxDuration: number;
  spentSeconds: number;
  /** Nothing at all was sent (else: nothing written). */
  nothingSent: boolean;
  text: { seconds: string; maxDuration: string; spent: string };
  /**
   * The refusal rests only on figures an earlier run remembered (this run's own would fit): where
   * they are kept, and how old the oldest is. They expire an hour after they were seen.
   */
  remembered?: { file?: string; oldestSeconds: number };
}

export class RunError extends Error {
  constructor(readonly problem: RunProblem) {
    super(problem.kind);
    this.name = 'RunError';
  }
}

/**
 * What a refusal that rests only on remembered figures adds (empty for any other): that it does,
 * when they expire, and how to clear them. Not a probe: a request would spend the budget the
 * refusal is about, and a figure at most an hour old may well be true (another run draining the key).
 */
export function rememberedNote(too: TooLong): string {
  const r = too.remembered;
  if (r === undefined) return '';
  const where = r.file !== undefined ? `, kept in ${r.file}` : '';
  const clear = r.file !== undefined ? `; if no other run uses this key meanwhile, delete that file and run again` : '';
  return ` (this estimate rests only on rate-limit figures an earlier run saw ${durationText(r.oldestSeconds)} ago${where}: they expire an hour after they were seen${clear})`;
}
