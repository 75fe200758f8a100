// Step "assemble": the Plan value, or none when any step found an error. Diagnostics are sorted so
// the output does not depend on which step found what first; the summary counts what the plan holds.

import type { JsonObject } from '../../model/json.js';
import type { PlanRouting } from '../../model/routing.js';
import type { AccountConfig } from '../../model/account.js';
import { type Diagnostic, hasErrors, sortDiagnostics } from '../../model/diagnostics.js';
import { type Action, type BucketNeed, type CallStats, type Change, type Plan, PLAN_FORMAT_VERSION, type PlanResult, type PlanScope, type Refusal, type UnmanagedResource, type UnreadKinds } from '../../model/plan.js';

export interface AssembleInput {
  readonly accounts: readonly AccountConfig[];
  /** In execution order. */
  readonly changes: readonly Change[];
  readonly unmanaged: readonly UnmanagedResource[];
  readonly diagnostics: readonly Diagnostic[];
  readonly refusal?: Refusal;
  readonly apiCalls?: CallStats;
  readonly budget: readonly BucketNeed[];
  /** `--target` selectors of a partial plan. */
  readonly targets?: readonly string[];
  /** The root file's kind settings the plan was read with. */
  readonly settings?: JsonObject;
  /** Kinds the read left out, per account. */
  readonly unread?: readonly UnreadKinds[];
  /** `--changed-since` / `--shard`: the accounts left out and why. */
  readonly scope?: PlanScope;
  /** Routing before and after the plan. */
  readonly routing?: PlanRouting;
}

export function assemble(input: AssembleInput): PlanResult {
  const diagnostics = sortDiagnostics(input.diagnostics);
  if (hasErrors(diagnostics)) return { diagnostics };
  const count = (action: Action): number => input.changes.filter((c) => c.action === action).length;
  const plan: Plan = {
    formatVersion: PLAN_FORMAT_VERSION,
    accounts: [...input.accounts],
    changes: [...input.changes],
    summary: { create: count('create'), update: count('update'), replace: count('replace'), delete: count('delete'), unmanaged: input.unmanaged.length },
    unmanaged: [...input.unmanaged],
    diagnostics,
    ...(input.targets ? { targets: [...input.targets] } : {}),
    ...(input.settings && Object.keys(input.settings).length > 0 ? { settings: structuredClone(input.settings) } : {}),
    ...(input.scope ? { scope: structuredClone(input.scope) } : {}),
    ...(input.refusal ? { refusal: input.refusal } : {}),
    ...(input.routing ? { routing: input.routing } : {}),
    apiCalls: input.apiCalls ?? { total: 0, byBucket: {} },
    budget: [...input.budget],
    ...(input.unread && input.unread.length > 0 ? { unread: input.unread.map((u) => ({ account: u.account, kinds: [...u.kinds] })) } : {}),
  };
  return { plan, diagnostics };
}
