// Bearer tokens (token exchange and verification) and the choice of the addressed account, both
// following the role of the key's user (keys.ts).

import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { HttpError, type HandlerResult } from './http.js';
import { newBearerToken } from './ids.js';
import type { ApiKey } from './keys.js';
import { TOKEN_EXCHANGE } from './request-schemas.js';
import { check } from './validation.js';

export const UNAUTHORIZED = 'Unauthorized Access';
const DAY_MS = 86_400_000;

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export class Tokens {
  private readonly issued = new Map<string, { expiresAt: number; key: ApiKey }>();
  private readonly keys: ReadonlyMap<string, ApiKey>;
  private expiredAnswers = 0;

  constructor(keys: readonly ApiKey[]) {
    this.keys = new Map(keys.map((k) => [k.keyId, k]));
  }

  /** The key a token exchange body names, if it is one of ours (its user's bucket pays for the exchange). */
  keyNamed(body: unknown): ApiKey | undefined {
    const keyId = body !== null && typeof body === 'object' ? (body as Record<string, unknown>).keyId : undefined;
    return typeof keyId === 'string' ? this.keys.get(keyId) : undefined;
  }

  /**
   * POST /api/v2/access/tokens. A wrong key or secret is 401; the key of an account user, with the
   * right secret, is 403: the credentials are good, but the seed says such a user gets no token.
   */
  exchange(headers: IncomingHttpHeaders, body: unknown, now: number): HandlerResult {
    check(TOKEN_EXCHANGE, body);
    const { keyId, expiryTime } = body as { keyId: string; expiryTime?: number };
    const secret = header(headers, 'x-svc-uaks');
    const key = this.keys.get(keyId);
    if (secret === undefined || key === undefined || !sameSecret(secret, key.secret)) {
      throw new HttpError(401, UNAUTHORIZED);
    }
    if (key.role === 'account-user') {
      throw new HttpError(403, `User ${key.user} is an account user; account users may not create API access tokens (ask an administrator)`);
    }
    for (const [t, v] of this.issued) if (v.expiresAt + DAY_MS < now) this.issued.delete(t);
    const token = newBearerToken();
    const expiresAt = now + (expiryTime ?? 3600) * 1000;
    this.issued.set(token, { expiresAt, key });
    return { status: 201, body: { token, expiresAt: new Date(expiresAt).toISOString() } };
  }

  /** The key behind a bearer token, expired or not, without any effect (for the rate-limit headers of early answers). */
  peekKey(headers: IncomingHttpHeaders): ApiKey | undefined {
    const m = /^Bearer\s+(\S+)$/i.exec(header(headers, 'authorization') ?? '');
    return m ? this.issued.get(m[1])?.key : undefined;
  }

  /**
   * The key behind the request's valid bearer token; throws otherwise. The real service sometimes
   * answers an expired token with 403; the emulator does so on every third expired-token request, deterministically.
   */
  verify(headers: IncomingHttpHeaders, now: number): ApiKey {
    const auth = header(headers, 'authorization') ?? '';
    const m = /^Bearer\s+(\S+)$/i.exec(auth);
    const found = m ? this.issued.get(m[1]) : undefined;
    if (found === undefined) throw new HttpError(401, UNAUTHORIZED);
    if (now >= found.expiresAt) {
      this.expiredAnswers += 1;
      throw new HttpError(this.expiredAnswers % 3 === 0 ? 403 : 401, UNAUTHORIZED);
    }
    return found.key;
  }
}

export type Addressed = { kind: 'account'; name: string } | { kind: 'org' };

/** Whether `key` may act on `account` (of an organization whose primary account is `primary`). */
export function mayAccess(key: ApiKey, account: string): boolean {
  return key.role === 'org-admin' || key.accounts.includes(account);
}

/**
 * `Org-Access: true` (any case) addresses organization-level data on the endpoints that take the
 * organization headers, and Account-Name is then ignored; otherwise Account-Name (any case) picks
 * the account, and without it the account the token was created in: the primary account for an
 * organization admin, the first listed sub-account for a sub-account admin. A sub-account admin is
 * refused organization-level data and every account it does not administer with 403 (seed 000:
 * "Cannot read primary-account or organization-level data"; 403: authorization will not fix it).
 */
export function addressOf(headers: IncomingHttpHeaders, accounts: readonly string[], orgCapable: boolean, key: ApiKey): Addressed {
  if (orgCapable && (header(headers, 'org-access') ?? '').trim().toLowerCase() === 'true') {
    if (key.role !== 'org-admin') {
      throw new HttpError(403, `Organization-level data needs an organization admin; user ${key.user} is a sub-account admin of ${key.accounts.join(', ')}`);
    }
    return { kind: 'org' };
  }
  const wanted = header(headers, 'account-name');
  if (wanted === undefined || wanted.trim() === '') return { kind: 'account', name: key.role === 'org-admin' ? accounts[0] : key.accounts[0] };
  const found = accounts.find((a) => a.toLowerCase() === wanted.trim().toLowerCase());
  if (found === undefined) throw new HttpError(403, `Account ${wanted.trim()} is not part of this organization or not accessible with this key`);
  if (!mayAccess(key, found)) {
    const what = found === accounts[0] ? 'the primary account' : 'an account';
    throw new HttpError(403, `Account ${found} is ${what} that user ${key.user} does not administer (sub-account admin of ${key.accounts.join(', ')})`);
  }
  return { kind: 'account', name: found };
}
