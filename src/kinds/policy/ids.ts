// Policy ids (api-facts.md "Policies"): the service derives a custom policy's id from a suffix the
// client sends, `<tenant>-<suffix>`, the suffix lower-case letters (at most 16), optionally `-` and
// digits (at most 8); without one it makes `<tenant>-default-<n>`, which has the same shape. A
// suffix cannot start with digits, so the suffix of an id is read from its end whatever the tenant
// is: the last `-letters`, with the `-digits` after it. The vendor's policies are
// `<vendor>-global-<n>`, the vendor's name in lower case, and their `owner` is that name.

import type { JsonObject } from '../../model/json.js';

export const SUFFIX = /^[a-z]{1,16}(?:-[0-9]{1,8})?$/;
export const SUFFIX_RULE = 'a name is lower-case letters (at most 16), optionally followed by `-` and digits (at most 8), such as `publicbucket` or `publicbucket-2`';
const ID_SUFFIX = /-([a-z]{1,16}(?:-[0-9]{1,8})?)$/;

/** The suffix (a Policy's name) of a custom policy's id; undefined when the id carries none. */
export function suffixOf(id: string): string | undefined {
  return ID_SUFFIX.exec(id)?.[1];
}

/** The vendor's own policy: `<owner in lower case>-global-<n>`, or a `Manual` one (users create none). */
export function isPredefinedPolicy(rec: JsonObject): boolean {
  const id = rec.policyId;
  if (typeof id !== 'string') return false;
  if (rec.policyType === 'Manual') return true;
  const owner = typeof rec.owner === 'string' ? rec.owner.toLowerCase() : undefined;
  return owner !== undefined && owner !== '' && id.startsWith(`${owner}-global-`) && /^[0-9]+$/.test(id.slice(owner.length + 8));
}
