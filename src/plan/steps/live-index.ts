// Step "index": the live resources of the scope looked up by key and by account. Several steps ask
// "which live resources have this name" (match, prune, references); a name may be shared by more
// than one live resource, so each key holds a list and the steps decide what that means.

import type { LiveResource } from '../../model/resource.js';
import { resourceKey } from '../../model/resource.js';

export interface LiveIndex {
  /** By `account/kind/name`, in the order of the live state. */
  readonly byKey: ReadonlyMap<string, readonly LiveResource[]>;
  readonly byAccount: ReadonlyMap<string, readonly LiveResource[]>;
}

export function indexLive(live: readonly LiveResource[]): LiveIndex {
  const byKey = new Map<string, LiveResource[]>();
  const byAccount = new Map<string, LiveResource[]>();
  for (const r of live) {
    append(byKey, resourceKey(r.account, r.kind, r.name), r);
    append(byAccount, r.account, r);
  }
  return { byKey, byAccount };
}

/** Live resources named `key`; none when there is none. */
export const livesAt = (index: LiveIndex, key: string): readonly LiveResource[] => index.byKey.get(key) ?? [];

function append<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
