// The REST calls of the Action, through @actions/github's octokit (with the retry plugin: a 5xx or a
// dropped connection on a comment is worth a second try; the throttling plugin is left out, as a run
// makes a handful of requests, far below any rate limit). The token goes to GITHUB_API_URL and
// nowhere else: every request is checked against that origin before it is sent (a pagination link
// to another host is refused), and fetch drops the Authorization header on a cross-origin redirect.

import { getOctokit } from '@actions/github';
import { retry } from '@octokit/plugin-retry';
import { isLoopbackHost } from '../api/base-url.js';
import { type Body, type BodyKind, isOurs, readMarker } from './bodies.js';

export type Octokit = ReturnType<typeof getOctokit>;
export type WriteOutcome = 'created' | 'updated' | 'unchanged';

export const DELETE_LABEL = 'postureops:delete';

/** Origin of GITHUB_API_URL; HTTPS unless the host is this machine. */
export function apiOrigin(apiUrl: string): string {
  const url = new URL(apiUrl);
  if (url.username !== '' || url.password !== '') throw new Error('GITHUB_API_URL must not hold credentials');
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) return url.origin;
  throw new Error(`GITHUB_API_URL must use https (plain http only to this machine), not ${url.protocol}//${url.host}`);
}

export function createOctokit(token: string, apiUrl: string): Octokit {
  const origin = apiOrigin(apiUrl);
  const octokit = getOctokit(token, { baseUrl: apiUrl }, retry);
  octokit.hook.before('request', (options) => {
    const { url } = octokit.request.endpoint.parse(options as Parameters<typeof octokit.request.endpoint.parse>[0]);
    const target = new URL(url, apiUrl);
    if (target.origin !== origin) throw new Error(`refusing to send the GitHub token to ${target.host}`);
  });
  return octokit;
}

/** HTTP status of an octokit error, if it has one. */
export function statusOf(err: unknown): number | undefined {
  const s = (err as { status?: unknown } | null)?.status;
  return typeof s === 'number' ? s : undefined;
}

export interface IssueRef {
  owner: string;
  repo: string;
}

export interface CommentResult {
  outcome: WriteOutcome;
  /** Whether any postureops comment on the pull request (any folder, this one as now written) shows a deletion. */
  anyDeletes: boolean;
}

/**
 * Written by a bot account (the workflow's GITHUB_TOKEN acts as github-actions[bot]; an App token as
 * its app): anyone may comment on a public pull request, so a marker in a person's comment is not ours.
 */
function byBot(user: { type?: string } | null | undefined): boolean {
  return user?.type === 'Bot';
}

/**
 * One comment per folder: created once, updated in place, left alone when its digest is unchanged.
 * Two runs racing may both have created one: the oldest is kept and the others are deleted.
 */
export async function upsertComment(octokit: Octokit, ref: IssueRef, issueNumber: number, folder: string, body: Body): Promise<CommentResult> {
  let ours: { id: number; body?: string } | undefined;
  const extra: number[] = [];
  let othersDelete = false;
  for await (const page of octokit.paginate.iterator(octokit.rest.issues.listComments, { ...ref, issue_number: issueNumber, per_page: 100 })) {
    for (const c of page.data) {
      if (!byBot(c.user)) continue;
      if (isOurs('comment', folder, c.body)) {
        if (ours === undefined) ours = { id: c.id, body: c.body };
        else extra.push(c.id);
      } else if (readMarker('comment', c.body)?.deletes) othersDelete = true;
    }
  }
  for (const id of extra) await octokit.rest.issues.deleteComment({ ...ref, comment_id: id });
  const anyDeletes = othersDelete || body.deletes;
  if (ours === undefined) {
    await octokit.rest.issues.createComment({ ...ref, issue_number: issueNumber, body: body.text });
    return { outcome: 'created', anyDeletes };
  }
  if (readMarker('comment', ours.body)?.digest === body.digest) return { outcome: 'unchanged', anyDeletes };
  await octokit.rest.issues.updateComment({ ...ref, comment_id: ours.id, body: body.text });
  return { outcome: 'updated', anyDeletes };
}

/** The `postureops:delete` label on the pull request exactly while some postureops comment there shows a deletion. */
export async function syncDeleteLabel(octokit: Octokit, ref: IssueRef, issueNumber: number, wanted: boolean): Promise<'added' | 'removed' | 'unchanged'> {
  const labels = await octokit.paginate(octokit.rest.issues.listLabelsOnIssue, { ...ref, issue_number: issueNumber, per_page: 100 });
  const has = labels.some((l) => l.name === DELETE_LABEL);
  if (wanted && !has) {
    await octokit.rest.issues.addLabels({ ...ref, issue_number: issueNumber, labels: [DELETE_LABEL] });
    return 'added';
  }
  if (!wanted && has) {
    await octokit.rest.issues.removeLabel({ ...ref, issue_number: issueNumber, name: DELETE_LABEL });
    return 'removed';
  }
  return 'unchanged';
}

export async function findDriftIssue(octokit: Octokit, ref: IssueRef, folder: string): Promise<{ number: number; body?: string | null } | undefined> {
  const kind: BodyKind = 'drift';
  for await (const page of octokit.paginate.iterator(octokit.rest.issues.listForRepo, { ...ref, state: 'open', per_page: 100 })) {
    const found = page.data.find((i) => !i.pull_request && byBot(i.user) && isOurs(kind, folder, i.body));
    if (found) return { number: found.number, body: found.body };
  }
  return undefined;
}

/** One open issue per folder while there is drift: opened, updated in place, left alone when unchanged. */
export async function upsertDriftIssue(octokit: Octokit, ref: IssueRef, folder: string, title: string, body: Body): Promise<{ outcome: WriteOutcome; number: number }> {
  const open = await findDriftIssue(octokit, ref, folder);
  if (!open) {
    const created = await octokit.rest.issues.create({ ...ref, title, body: body.text });
    return { outcome: 'created', number: created.data.number };
  }
  if (readMarker('drift', open.body)?.digest === body.digest) return { outcome: 'unchanged', number: open.number };
  await octokit.rest.issues.update({ ...ref, issue_number: open.number, title, body: body.text });
  return { outcome: 'updated', number: open.number };
}

/** Closes the folder's open drift issue with a comment saying why; undefined when none is open. */
export async function closeDriftIssue(octokit: Octokit, ref: IssueRef, folder: string, comment: string): Promise<number | undefined> {
  const open = await findDriftIssue(octokit, ref, folder);
  if (!open) return undefined;
  await octokit.rest.issues.createComment({ ...ref, issue_number: open.number, body: comment });
  await octokit.rest.issues.update({ ...ref, issue_number: open.number, state: 'closed', state_reason: 'completed' });
  return open.number;
}
