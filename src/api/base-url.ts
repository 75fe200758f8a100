// Where the client may send credentials: one origin, HTTPS unless the host is this machine.
import { API_PREFIX } from './buckets.js';
import { ClientConfigError } from './types.js';

export interface ServiceAddress {
  /** `https://host:port`: every request goes here and nowhere else. */
  origin: string;
  /** Path prefix in front of `/api/v2` (e.g. `/svc`), '' when none. */
  prefix: string;
  /** Host name for messages. */
  host: string;
}

/** 127.0.0.0/8, ::1 and localhost: plain HTTP there never leaves the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Checks a service base URL and returns it without a trailing slash. `source` names where the
 * value came from (`SVC_BASE_URL`, `--base-url`, `baseUrl`); the value itself is never echoed,
 * since a misplaced secret could sit in it.
 */
export function normalizeBaseUrl(raw: string, source: string): string {
  return formatAddress(parseServiceAddress(raw, source));
}

export function parseServiceAddress(raw: string, source: string): ServiceAddress {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ClientConfigError(`${source} is not a valid URL (expected e.g. https://example.net)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ClientConfigError(`${source} must be an https:// URL, not ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new ClientConfigError(`${source} must not carry a user name or password; use SVC_API_KEY_ID and SVC_API_SECRET`);
  }
  if (url.search !== '' || url.hash !== '') {
    throw new ClientConfigError(`${source} must not have a query or a fragment`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new ClientConfigError(`HTTPS is required for ${url.hostname} (plain http is allowed only for loopback hosts)`);
  }
  let prefix = url.pathname.replace(/\/+$/, '');
  // A base URL pasted together with the API prefix would double it on every path.
  if (prefix.endsWith(API_PREFIX)) prefix = prefix.slice(0, -API_PREFIX.length);
  return { origin: url.origin, prefix, host: url.hostname };
}

function formatAddress(address: ServiceAddress): string {
  return address.origin + address.prefix;
}

/**
 * Turns a request path into the path sent on the wire (prefix included), refusing anything that
 * could point elsewhere. An absolute URL is accepted only on the configured origin and prefix
 * (paging `nextPage` links are full URLs).
 */
export function resolveRequestPath(path: string, address: ServiceAddress): string {
  let apiPath = path;
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//')) {
    let url: URL;
    try {
      url = new URL(path);
    } catch {
      throw new ClientConfigError(`request path is not a valid URL: ${describePath(path)}`);
    }
    if (url.origin !== address.origin) {
      throw new ClientConfigError(`refusing to send credentials to ${url.host}: requests go only to ${address.origin}`);
    }
    if (url.username !== '' || url.password !== '' || url.hash !== '') {
      throw new ClientConfigError(`request URL must not carry a user, password or fragment: ${describePath(url.pathname)}`);
    }
    if (!url.pathname.startsWith(address.prefix + API_PREFIX)) {
      throw new ClientConfigError(`request URL is outside ${address.prefix}${API_PREFIX}: ${describePath(url.pathname)}`);
    }
    apiPath = url.pathname.slice(address.prefix.length) + url.search;
  }
  if (apiPath !== API_PREFIX && !apiPath.startsWith(API_PREFIX + '/') && !apiPath.startsWith(API_PREFIX + '?')) {
    throw new ClientConfigError(`request path must start with ${API_PREFIX}: ${describePath(apiPath)}`);
  }
  // Identifiers are URI-encoded by callers; raw spaces, controls or dot segments mean a bug upstream.
  const bare = apiPath.split('?')[0];
  if (/[\s\u0000-\u001f\u007f#\\]/.test(apiPath) || bare.split('/').some((s) => s === '.' || s === '..')) {
    throw new ClientConfigError(`request path has characters or segments that must be encoded: ${describePath(apiPath)}`);
  }
  return address.prefix + apiPath;
}

function describePath(path: string): string {
  const shown = path.replace(/[\u0000-\u001f\u007f]/g, '?');
  return JSON.stringify(shown.length > 120 ? shown.slice(0, 120) + '…' : shown);
}
