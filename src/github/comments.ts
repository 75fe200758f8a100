// The pull-request comment: one per marker, updated in place on every run. The token goes to the
// configured API origin and nowhere else: pagination links and redirects to another origin are
// not followed, and comment ids (never comment URLs) build the update URL.

import { isLoopbackHost } from '../api/base-url.js';
import { escapeData } from '../render/diagnostics.js';
import type { GithubContext } from './context.js';

export type CommentOutcome = 'created' | 'updated' | 'skipped' | 'failed';

export class GithubApiError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'GithubApiError';
  }
}

const MAX_PAGES = 50;
const MAX_REDIRECTS = 3;

/** Creates or updates the comment carrying `marker` on the pull request; never throws. */
export async function upsertComment(ctx: GithubContext, marker: string, body: string): Promise<CommentOutcome> {
  const skip = (why: string): CommentOutcome => {
    ctx.log(`postureops: no pull-request comment: ${why}`);
    return 'skipped';
  };
  if (!ctx.comment) return skip('the comment input is false');
  if (ctx.pullNumber === undefined) return skip('this run is not for a pull request');
  if (!ctx.repository) return skip('GITHUB_REPOSITORY is not set');
  if (!ctx.token) return skip('no GitHub token (set the github-token input or GITHUB_TOKEN)');
  let origin: string;
  try {
    origin = apiOrigin(ctx.apiUrl);
  } catch (err) {
    return skip((err as Error).message);
  }

  const { owner, repo } = ctx.repository;
  const repoPath = `${ctx.apiUrl}/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}`;
  try {
    const existing = await findComment(ctx, origin, `${repoPath}/issues/${ctx.pullNumber}/comments?per_page=100`, marker);
    if (existing !== undefined) {
      await call(ctx, origin, 'PATCH', `${repoPath}/issues/comments/${existing}`, { body });
      ctx.log(`postureops: updated the plan comment on pull request #${ctx.pullNumber}`);
      return 'updated';
    }
    await call(ctx, origin, 'POST', `${repoPath}/issues/${ctx.pullNumber}/comments`, { body });
    ctx.log(`postureops: commented on pull request #${ctx.pullNumber}`);
    return 'created';
  } catch (err) {
    const hint = err instanceof GithubApiError && err.status === 403 ? ' (a pull request from a fork gets a read-only token; give the workflow `pull-requests: write`)' : '';
    const message = `could not comment on pull request #${ctx.pullNumber}: ${(err as Error).message}${hint}`;
    ctx.log(`postureops: ${message}`);
    ctx.command(`::warning title=postureops::${escapeData(message)}`);
    return 'failed';
  }
}

/** Origin of GITHUB_API_URL; HTTPS unless the host is this machine. */
export function apiOrigin(apiUrl: string): string {
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    throw new GithubApiError('GITHUB_API_URL is not a valid URL');
  }
  if (url.username !== '' || url.password !== '') throw new GithubApiError('GITHUB_API_URL must not hold credentials');
  if (url.protocol === 'https:') return url.origin;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url.origin;
  throw new GithubApiError(`GITHUB_API_URL must use https (plain http only to this machine), not ${url.protocol}//${url.host}`);
}

/** Ours start with the marker; a comment merely quoting it (someone else's) is left alone. */
async function findComment(ctx: GithubContext, origin: string, firstPage: string, marker: string): Promise<number | undefined> {
  let url: string | undefined = firstPage;
  for (let page = 0; url && page < MAX_PAGES; page++) {
    const res = await call(ctx, origin, 'GET', url);
    const list = (await res.json()) as unknown;
    if (!Array.isArray(list)) throw new GithubApiError('the comments list is not an array');
    const found = list.find(
      (c): c is { id: number; body: string } =>
        c !== null && typeof c === 'object' && typeof c.id === 'number' && typeof c.body === 'string' && c.body.startsWith(marker),
    );
    if (found) return found.id;
    const next = nextLink(res.headers.get('link'), url);
    if (next && new URL(next).origin !== origin) {
      ctx.log(`postureops: not following a comments page link to another host (${new URL(next).host}); a new comment is posted`);
      return undefined;
    }
    url = next;
  }
  return undefined;
}

/** `<https://...&page=2>; rel="next", <...>; rel="last"` → the next URL, resolved against the current one. */
export function nextLink(header: string | null, base: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(',')) {
    const m = /^<([^>]*)>\s*;(.*)$/.exec(part.trim());
    const rel = m ? /\brel="?([^";]*)"?/.exec(m[2]) : null;
    if (m && rel && rel[1].split(/\s+/).includes('next')) {
      try {
        return new URL(m[1], base).toString();
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

async function call(ctx: GithubContext, origin: string, method: string, url: string, body?: unknown): Promise<Response> {
  let target = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (new URL(target).origin !== origin) throw new GithubApiError(`refusing to send the token to ${new URL(target).host}`);
    const res = await ctx.fetch(target, {
      method,
      redirect: 'manual',
      headers: {
        accept: 'application/vnd.github+json',
        authorization: `Bearer ${ctx.token}`,
        'x-github-api-version': '2022-11-28',
        'user-agent': 'postureops',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300 && res.status < 400) {
      const location = res.headers.get('location');
      await res.body?.cancel();
      if (!location) throw new GithubApiError(`${method} answered ${res.status} without a location`, res.status);
      const next = new URL(location, target);
      if (next.origin !== origin) throw new GithubApiError(`${method} redirected to another host (${next.host}); not followed`, res.status);
      target = next.toString();
      continue;
    }
    if (!res.ok) {
      let message = '';
      try {
        const parsed = (await res.json()) as { message?: unknown };
        if (typeof parsed?.message === 'string') message = `: ${parsed.message}`;
      } catch {
        // not JSON: the status says enough
      }
      throw new GithubApiError(`${method} ${new URL(target).pathname} answered ${res.status}${message}`, res.status);
    }
    return res;
  }
  throw new GithubApiError(`${method} redirected more than ${MAX_REDIRECTS} times`);
}
