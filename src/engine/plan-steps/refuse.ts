// Step "refuse": whether the plan may be applied without --force. Two independent checks (a live
// resource still uses what the plan removes; too large a share of a kind changes at once), reported
// together so one run names every reason.

import type { LiveResource } from '../../model/resource.js';
import type { Change, Refusal } from '../../model/plan.js';
import type { Kind } from '../../kinds/types.js';
import type { PlannedChange } from '../order.js';
import { inUseRefusal, safetyRefusal } from '../safety.js';

export interface RefuseInput {
  readonly items: readonly PlannedChange[];
  /** The ordered changes. */
  readonly changes: readonly Change[];
  readonly live: readonly LiveResource[];
  readonly declared: ReadonlySet<string>;
  readonly kinds: readonly Kind[];
  readonly accountOrder: readonly string[];
  readonly force: boolean;
}

export function refuse(input: RefuseInput): Refusal | undefined {
  if (input.force) return undefined;
  const inUse = inUseRefusal(input.items, input.live, input.kinds, input.declared);
  const threshold = safetyRefusal(input.changes, input.live, input.accountOrder, input.kinds);
  return combine(inUse, threshold);
}

/** One refusal with the first one's code and both messages and details. */
export function combine(first: Refusal | undefined, second: Refusal | undefined): Refusal | undefined {
  if (!first || !second) return first ?? second;
  return { code: first.code, message: `${first.message}; also, ${second.message}`, details: [...first.details, ...second.details] };
}
