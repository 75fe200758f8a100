// Alert profile ids the service reserves.

import type { JsonObject } from '../../model/json.js';

/** Predefined alert profiles carry this prefix (by default); custom profile ids may not use it. */
export const PREDEFINED_PROFILE_PREFIX = 'SVC_';
/** The root file setting that names another vendor prefix (api-facts.md: each vendor has its own). */
export const PREFIX_SETTING = 'predefinedProfilePrefix';

/** The prefix of predefined profiles: the root file's setting, else the default. */
export function predefinedPrefix(settings: Readonly<JsonObject> | undefined): string {
  const given = settings?.[PREFIX_SETTING];
  return typeof given === 'string' && given !== '' ? given : PREDEFINED_PROFILE_PREFIX;
}
/** The root base profile of the predefined ones: no alerts, may not be extended. */
export const ROOT_PROFILE_ID = 'SVC_BASE_PROFILE';

// The vendor prefix from the service's own structure rather than from names: the predefined profiles
// descend from one root base profile, the only profile without `extends`, and a custom profile may
// not extend that root (api-facts.md, seed 000). So the root and the profiles that extend it
// directly are the service's. Their longest common prefix, cut after its last `_`, is the vendor
// prefix (the root alone: its id up to the first `_`). A root without children (a broken record
// with no `extends`) does not count when another root has children.
export interface ProfileNode {
  name: string;
  parent?: string;
}

/** The vendor prefix the predefined profiles of one account show; undefined when they show none. */
export function detectPrefix(profiles: readonly ProfileNode[]): string | undefined {
  const names = new Set(profiles.map((p) => p.name));
  // A root: no parent, or a parent the list does not hold (a service that leaves its root out).
  const roots = new Set<string>();
  for (const p of profiles) {
    if (p.parent === undefined) roots.add(p.name);
    else if (!names.has(p.parent)) roots.add(p.parent);
  }
  const childrenOf = (root: string) => profiles.filter((p) => p.parent === root).map((p) => p.name);
  const fertile = [...roots].filter((r) => childrenOf(r).length > 0);
  const chosen = fertile.length > 0 ? fertile : [...roots];
  if (chosen.length === 0) return undefined;
  const members = [...chosen, ...chosen.flatMap(childrenOf)];
  if (members.length === 1) {
    const cut = members[0].indexOf('_');
    return cut > 0 ? members[0].slice(0, cut + 1) : undefined;
  }
  let common = members[0];
  for (const m of members) while (!m.startsWith(common)) common = common.slice(0, -1);
  const cut = common.lastIndexOf('_');
  return cut > 0 ? common.slice(0, cut + 1) : undefined;
}

