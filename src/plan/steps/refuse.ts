// Step "refuse": whether the plan may be applied. `lifecycle.preventDestroy` refuses a plan that
// deletes or replaces such a resource, whatever --force says. Two more checks that --force overrides
// (a live resource still uses what the plan removes; too large a share of a kind changes at once) are
// reported together with it, so one run names every reason.

import type { SafetySettings } from '../../model/account.js';
import type { LiveResource } from '../../model/resource.js';
import type { Change, Refusal } from '../../model/plan.js';
import type { Kind } from '../../kinds/types.js';
import type { PlannedChange } from '../core/order.js';
import { inUseRefusal, safetyRefusal } from '../core/safety.js';

export interface RefuseInput {
  readonly items: readonly PlannedChange[];
  /** The ordered changes. */
  readonly changes: readonly Change[];
  readonly live: readonly LiveResource[];
  readonly declared: ReadonlySet<string>;
  readonly kinds: readonly Kind[];
  readonly accountOrder: readonly string[];
  readonly force: boolean;
  /** Keys of the declared resources whose lifecycle says preventDestroy. */
  readonly preventDestroy?: ReadonlySet<string>;
  /** The root file's `safety` thresholds (defaults where absent). */
  readonly safety?: SafetySettings;
}

export function refuse(input: RefuseInput): Refusal | undefined {
  const kept = preventDestroyRefusal(input.changes, input.preventDestroy ?? new Set());
  if (input.force) return kept;
  const inUse = inUseRefusal(input.items, input.live, input.kinds, input.declared);
  const threshold = safetyRefusal(input.changes, input.live, input.accountOrder, input.kinds, input.safety);
  return combine(kept, combine(inUse, threshold));
}

/**
 * A change that deletes or replaces a resource declared with preventDestroy, or deletes the old place
 * of one (a move to another account, a delete linked to its create by an equal spec).
 */
export function preventDestroyRefusal(changes: readonly Change[], keys: ReadonlySet<string>): Refusal | undefined {
  // Stryker disable next-line ConditionalExpression: with no keys the loop finds no owner either; this only skips it
  if (keys.size === 0) return undefined;
  const details: string[] = [];
  for (const c of changes) {
    if (c.action !== 'delete' && c.action !== 'replace') continue;
    // Stryker disable next-line ConditionalExpression: `keys.has(undefined)` is false too (keys are strings); the test narrows the type
    const owner = [c.key, c.movedTo, c.sameSpecAs].find((k) => k !== undefined && keys.has(k));
    if (owner === undefined) continue;
    details.push(owner === c.key ? `${c.key} (${c.action})` : `${c.key} (delete; its document is now ${owner})`);
  }
  if (details.length === 0) return undefined;
  return {
    code: 'prevent-destroy',
    message: `the plan deletes or replaces ${details.length === 1 ? 'a resource' : `${details.length} resources`} whose lifecycle says preventDestroy; --force does not override this`,
    details,
  };
}

/** One refusal with the first one's code and both messages and details. */
export function combine(first: Refusal | undefined, second: Refusal | undefined): Refusal | undefined {
  if (!first || !second) return first ?? second;
  return { code: first.code, message: `${first.message}; also, ${second.message}`, details: [...first.details, ...second.details] };
}
