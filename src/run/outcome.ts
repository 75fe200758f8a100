// What a run's end means as an exit code, written once: the CLI exits with it, the Action sets its
// `refused` and `failed` outputs from the same verdict.

import type { ApplyReport } from '../model/plan.js';
import type { RunProblem } from './errors.js';

export const EXIT = { ok: 0, error: 1, changes: 2, refused: 3, leaseHeld: 4, sigint: 130, sigterm: 143 } as const;

/** What a run ended with: done, an error, a refusal (nothing written: the user's call), or a lease held by another apply. */
export type Verdict = 'ok' | 'error' | 'refused' | 'lease-held';

const CODES: Record<Verdict, number> = { ok: EXIT.ok, error: EXIT.error, refused: EXIT.refused, 'lease-held': EXIT.leaseHeld };

/** The verdict of a run that stopped with `problem`. */
export function problemVerdict(problem: RunProblem): Verdict {
  switch (problem.kind) {
    case 'too-long':
    case 'refused':
    case 'saved-literals':
    case 'saved-foreign':
    case 'saved-differs':
      return 'refused';
    case 'lease-held':
      return 'lease-held';
    case 'lease-wait-stopped':
    case 'invalid':
    case 'client-config':
    case 'unknown-account':
    case 'scope':
    case 'no-plan':
    case 'unset-env':
      return 'error';
  }
}

/** The verdict of an apply that ran: a lost lease says so; a failed change, an early stop or a failed test of a required channel is an error. */
export function reportVerdict(report: Pick<ApplyReport, 'summary' | 'stopped' | 'failedTests'>): Verdict {
  if (report.stopped?.cause === 'lease-lost') return 'lease-held';
  // A channel a requirement relies on that fails its test: applied, but the alerts do not arrive.
  return report.summary.failed > 0 || report.stopped || (report.failedTests ?? []).length > 0 ? 'error' : 'ok';
}

export function exitCodeOf(verdict: Verdict): number {
  return CODES[verdict];
}
