// Alert profile ids the service reserves.

/** Predefined alert profiles carry this prefix; custom profile ids may not use it. */
export const PREDEFINED_PROFILE_PREFIX = 'SVC_';
/** The root base profile of the predefined ones: no alerts, may not be extended. */
export const ROOT_PROFILE_ID = 'SVC_BASE_PROFILE';
