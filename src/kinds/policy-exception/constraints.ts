// An exception's constraints (api-facts.md "Policy exceptions"): in a file, a map from the field key
// to its values; in the service, a list of `{fieldKey, fieldValues}`. Values of a tag key
// (`KVTagPair`: resource tags, labels) are `{key, value: [..]}`; the older `{key, value: "one"}` is
// accepted by the service but does not take effect, so a file must give a list. Both sides are read
// into one canonical form: keys sorted, values sorted with repeats dropped (the service's meaning is
// a set), tag values sorted inside each tag.

import { isObject, type Json, type JsonObject } from '../../model/json.js';

/** Field keys the service types `KVTagPair` (api-facts.md: resource tags; GCP labels). */
export const TAG_KEYS: readonly string[] = ['resourceTags', 'resourceLabels'];

/** One constraint's values, canonical: strings sorted, or tags sorted by key with their values sorted. */
export function canonicalValues(values: readonly Json[]): Json[] {
  const out = values.map((v): Json => {
    if (!isObject(v)) return v;
    const tag: JsonObject = { ...v };
    if (Array.isArray(v.value)) tag.value = sortedUnique(v.value);
    return tag;
  });
  return sortedUnique(out);
}

function sortedUnique(items: readonly Json[]): Json[] {
  const keyed = new Map<string, Json>();
  for (const item of items) keyed.set(typeof item === 'string' ? `s${item}` : `j${JSON.stringify(item, Object.keys(isObject(item) ? item : {}).sort())}`, item);
  return [...keyed].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, v]) => v);
}

/** The canonical constraints map from a file's map (`{accountIds: [..]}`). */
export function fromFile(constraints: Json | undefined): JsonObject {
  const out: JsonObject = {};
  if (!isObject(constraints)) return out;
  for (const key of Object.keys(constraints).sort()) {
    const values = constraints[key];
    if (Array.isArray(values)) out[key] = canonicalValues(values);
  }
  return out;
}

/** The canonical constraints map from the service's list of `{fieldKey, fieldValues}` (a key given twice: its values joined). */
export function fromService(constraints: Json | undefined): JsonObject {
  const joined = new Map<string, Json[]>();
  for (const c of Array.isArray(constraints) ? constraints : []) {
    if (!isObject(c) || typeof c.fieldKey !== 'string') continue;
    joined.set(c.fieldKey, [...(joined.get(c.fieldKey) ?? []), ...(Array.isArray(c.fieldValues) ? c.fieldValues : [])]);
  }
  return Object.fromEntries([...joined].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([k, v]) => [k, canonicalValues(v)]));
}

/** The service's list form of a canonical map. */
export function toService(constraints: Json | undefined): JsonObject[] {
  return isObject(constraints) ? Object.entries(constraints).map(([fieldKey, fieldValues]) => ({ fieldKey, fieldValues })) : [];
}

/** A tag value written in the older one-value form (`value: "x"`), which the service keeps but ignores. */
export const isOlderTag = (v: Json): boolean => isObject(v) && typeof v.value === 'string';
