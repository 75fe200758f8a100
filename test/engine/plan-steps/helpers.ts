// Builders for the plan-step tests: matches and decisions over the fake kinds, and a deep freeze so
// that a step that changes its input fails the test instead of passing by accident.

import type { DesiredResource, LiveResource } from '../../../src/model/resource.js';
import type { Decision, Decisions, Match } from '../../../src/plan/steps/shared.js';
import { FAKE_KINDS } from '../plan-fakes.js';
import { resourceKey } from '../../../src/model/resource.js';

export function frozen<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    if (value instanceof Map) {
      for (const [k, v] of value) {
        frozen(k);
        frozen(v);
      }
      const map = value as Map<unknown, unknown>;
      map.set = map.delete = map.clear = () => {
        throw new TypeError('a step changed a Map it was given');
      };
    } else if (value instanceof Set) {
      for (const v of value) frozen(v);
      const set = value as Set<unknown>;
      set.add = set.delete = set.clear = () => {
        throw new TypeError('a step changed a Set it was given');
      };
    } else {
      for (const v of Object.values(value)) frozen(v);
    }
    Object.freeze(value);
  }
  return value;
}

export function matchOf(d: DesiredResource, l?: LiveResource): Match {
  const kind = FAKE_KINDS.find((k) => k.kind === d.kind)!;
  return { key: resourceKey(d.account, d.kind, d.name), desired: d, kind, ...(l ? { live: l } : {}) };
}

export function decisionOf(d: DesiredResource, extra: Partial<Decision> = {}): Decision {
  return { ...matchOf(d), rotate: false, ...extra };
}

export function decisionsOf(list: Decision[]): Decisions {
  return frozen(new Map(list.map((d) => [d.key, d])));
}
