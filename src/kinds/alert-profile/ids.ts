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
