// The bearer token: fetched once, shared by concurrent requests, renewed shortly before it expires.

export interface IssuedToken {
  token: string;
  /** `expiresAt` as sent by the service, epoch ms; NaN when it was missing or unreadable. */
  expiresAt: number;
}

/** Renew this long before expiry (less for very short lifetimes, see `renewAt`). */
export const RENEW_MARGIN_MS = 60_000;

export class TokenCache {
  private current: { token: string; renewAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly fetchToken: () => Promise<IssuedToken>,
    private readonly now: () => number,
    private readonly lifetimeSeconds: number,
  ) {}

  /** A token that is not about to expire; concurrent callers share one exchange. */
  get(): Promise<string> {
    if (this.current && this.now() < this.current.renewAt) return Promise.resolve(this.current.token);
    return this.refresh();
  }

  /**
   * The service refused `rejected`. Exchange again unless another request already did (then its
   * newer token is returned), so a burst of 401s costs one exchange.
   */
  renew(rejected: string): Promise<string> {
    if (this.current && this.current.token !== rejected && this.now() < this.current.renewAt) {
      return Promise.resolve(this.current.token);
    }
    this.current = undefined;
    return this.refresh();
  }

  private refresh(): Promise<string> {
    if (this.pending) return this.pending;
    const requestedAt = this.now();
    this.pending = this.fetchToken()
      .then((issued) => {
        this.current = { token: issued.token, renewAt: this.renewAt(requestedAt, issued.expiresAt) };
        return issued.token;
      })
      .finally(() => {
        this.pending = undefined;
      });
    return this.pending;
  }

  /**
   * Trust the service's `expiresAt` only to shorten the lifetime asked for: a clock behind ours
   * would otherwise make a fresh token look expired and cause an exchange on every request.
   */
  private renewAt(requestedAt: number, expiresAt: number): number {
    const asked = requestedAt + this.lifetimeSeconds * 1000;
    const expiry = Number.isFinite(expiresAt) && expiresAt > requestedAt ? Math.min(expiresAt, asked) : asked;
    const lifetime = expiry - requestedAt;
    return expiry - Math.min(RENEW_MARGIN_MS, lifetime / 2);
  }
}
