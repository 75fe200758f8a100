// Bearer tokens (token exchange and verification) and the choice of the addressed account.

import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { HttpError, type HandlerResult } from './http.js';
import { newBearerToken } from './ids.js';
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
  private readonly issued = new Map<string, number>();
  private expiredAnswers = 0;

  constructor(
    private readonly keyId: string,
    private readonly secret: string,
  ) {}

  /** POST /api/v2/access/tokens. */
  exchange(headers: IncomingHttpHeaders, body: unknown, now: number): HandlerResult {
    check(TOKEN_EXCHANGE, body);
    const { keyId, expiryTime } = body as { keyId: string; expiryTime?: number };
    const secret = header(headers, 'x-svc-uaks');
    if (secret === undefined || keyId !== this.keyId || !sameSecret(secret, this.secret)) {
      throw new HttpError(401, UNAUTHORIZED);
    }
    for (const [t, exp] of this.issued) if (exp + DAY_MS < now) this.issued.delete(t);
    const token = newBearerToken();
    const expiresAt = now + (expiryTime ?? 3600) * 1000;
    this.issued.set(token, expiresAt);
    return { status: 201, body: { token, expiresAt: new Date(expiresAt).toISOString() } };
  }

  /**
   * Throws unless the request carries a valid bearer token. The real service sometimes answers an
   * expired token with 403; the emulator does so on every third expired-token request, deterministically.
   */
  verify(headers: IncomingHttpHeaders, now: number): void {
    const auth = header(headers, 'authorization') ?? '';
    const m = /^Bearer\s+(\S+)$/i.exec(auth);
    const expiresAt = m ? this.issued.get(m[1]) : undefined;
    if (expiresAt === undefined) throw new HttpError(401, UNAUTHORIZED);
    if (now >= expiresAt) {
      this.expiredAnswers += 1;
      throw new HttpError(this.expiredAnswers % 3 === 0 ? 403 : 401, UNAUTHORIZED);
    }
  }
}

export type Addressed = { kind: 'account'; name: string } | { kind: 'org' };

/**
 * `Org-Access: true` (any case) addresses organization-level data on the endpoints that take the
 * organization headers, and Account-Name is then ignored; otherwise Account-Name (any case) picks
 * the account, and without it the primary account (the first configured) is used.
 */
export function addressOf(headers: IncomingHttpHeaders, accounts: readonly string[], orgCapable: boolean): Addressed {
  if (orgCapable && (header(headers, 'org-access') ?? '').trim().toLowerCase() === 'true') return { kind: 'org' };
  const wanted = header(headers, 'account-name');
  if (wanted === undefined || wanted.trim() === '') return { kind: 'account', name: accounts[0] };
  const found = accounts.find((a) => a.toLowerCase() === wanted.trim().toLowerCase());
  if (found === undefined) throw new HttpError(403, `Account ${wanted.trim()} is not part of this organization or not accessible with this key`);
  return { kind: 'account', name: found };
}
