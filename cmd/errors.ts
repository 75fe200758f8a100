// Failures of the service client said for a person: where (the address, the account), what to set
// (the variable or flag), and what to do next. The ApiError's own message stays for logs and reports.

import type { ApiError, ServiceUnreachable } from '../src/api/types.js';

const ADDRESS_HINT = 'set SVC_BASE_URL or --base-url';

/** Plain words for the network codes people meet; others are shown as they are. */
const NETWORK_WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed',
};

const TLS_WORDS: Record<string, string> = {
  CERT_HAS_EXPIRED: 'its certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its certificate chain holds a self-signed certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate cannot be verified',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'the issuer of its certificate is not trusted here',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its certificate is for another host name',
  HOSTNAME_MISMATCH: 'its certificate is for another host name',
  ERR_SSL_WRONG_VERSION_NUMBER: 'it does not speak TLS on that port',
};

/** The message when the client gave up on a service it could not connect to, several times in a row. */
export function explainUnreachable(err: ServiceUnreachable): string {
  const words = NETWORK_WORDS[err.code] ?? err.code;
  const next = err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN' ? `is the service address right? ${ADDRESS_HINT}` : `check the address (${ADDRESS_HINT}) and the network, then try again`;
  return `cannot reach ${err.address} (${words}; ${err.failures} attempts in a row): ${next}`;
}

/** The message for an ApiError; undefined when its own message says enough (other 4xx, 5xx). */
export function explainApiError(err: ApiError): string | undefined {
  const address = err.address ?? 'the service';
  if (err.status === undefined) {
    const code = err.networkCode;
    if (err.kind === 'permanent' && code !== undefined && (code in TLS_WORDS || /^(ERR_TLS|CERT_|ERR_SSL)|SELF_SIGNED|^UNABLE_TO_/.test(code))) {
      const why = TLS_WORDS[code] ?? `TLS failure ${code}`;
      const certificate = code !== 'ERR_SSL_WRONG_VERSION_NUMBER';
      return (
        `cannot reach ${address} securely (${why}): is the service address right? ${ADDRESS_HINT}` +
        (certificate ? '; if the service uses a private certificate authority, give its certificate with NODE_EXTRA_CA_CERTS=FILE' : '')
      );
    }
    if (err.timedOut) return `cannot reach ${address} (no answer in time): check the address (${ADDRESS_HINT}) and the network, then try again`;
    if (code === undefined || (code.startsWith('UND_ERR_') && !(code in NETWORK_WORDS))) return undefined;
    const words = NETWORK_WORDS[code] ?? code;
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
      return `cannot reach ${address} (${words}): is the service address right? ${ADDRESS_HINT}`;
    }
    return `cannot reach ${address} (${words}): check the address (${ADDRESS_HINT}) and the network, then try again`;
  }
  const said = err.serviceMessage && err.serviceMessage !== 'credentials refused' ? `: ${err.serviceMessage}` : '';
  // The token exchange refusing the key (401 or 403), or any request refused as unauthenticated.
  if (err.status === 403 && err.path.endsWith('/access/tokens') && err.serviceMessage !== 'credentials refused') {
    return `the service at ${address} refused a token for this API key (403${said}): use a key of an administrator (organization, or of the accounts this repository manages)`;
  }
  if (err.status === 401 || (err.serviceMessage === 'credentials refused' && err.status === 403)) {
    return `the service at ${address} refused the API key (${err.status}${said}): check SVC_API_KEY_ID and SVC_API_SECRET (the key may be disabled, or its secret rotated)`;
  }
  if (err.status === 403) {
    const scope = err.account !== undefined ? `account ${err.account}` : 'organization-level data (Org-Access)';
    const next = err.account !== undefined ? `use a key whose role covers ${err.account}, or leave ${err.account} out with --account` : 'use a key of an organization administrator';
    return `the API key's role lacks the right for ${scope} (403 on ${err.method} ${err.path}${said}): ${next}`;
  }
  return undefined;
}
