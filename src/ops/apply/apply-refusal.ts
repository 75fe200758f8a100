// A refused plan (over a safety threshold, stale, a protected delete...) is not applied unless the
// caller forces it, and `prevent-destroy` or a failed rehearsal not even then. The rule lives here,
// next to apply(), so no caller can forget it: every adapter gets the same typed error.

import type { Plan, Refusal } from '../../model/plan.js';

export class PlanRefusedError extends Error {
  constructor(
    readonly refusal: Refusal,
    /** Force would override it (every refusal but `prevent-destroy` and `rehearsal`). */
    readonly overridable: boolean,
  ) {
    super(`refused: ${refusal.message}`);
    this.name = 'PlanRefusedError';
  }
}

/** Throws PlanRefusedError when `plan` is refused and `force` does not override the refusal. */
export function refuseUnlessForced(plan: Pick<Plan, 'refusal' | 'rehearsal'>, force: boolean | undefined): void {
  const refusal = plan.refusal;
  if (!refusal) return;
  // A change the rehearsal saw refused would be refused by the service too: `--no-rehearse`, not
  // --force, whichever refusal came first.
  const rehearsalFailed = plan.rehearsal?.outcome === 'refused' || plan.rehearsal?.outcome === 'failed';
  const overridable = refusal.code !== 'prevent-destroy' && refusal.code !== 'rehearsal' && !rehearsalFailed;
  if (overridable && force === true) return;
  throw new PlanRefusedError(refusal, overridable);
}
