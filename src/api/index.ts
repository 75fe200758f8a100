// The service client's public surface.
export { createClient, TOKEN_PATH } from './client.js';
export { clientOptionsFromEnv, ENV_BASE_URL, ENV_KEY_ID, ENV_SECRET, type ClientOptions } from './options.js';
export { isLoopbackHost, normalizeBaseUrl } from './base-url.js';
export * from './types.js';
