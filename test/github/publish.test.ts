import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/model/diagnostics.js';
import {
  annotationLines,
  detectMode,
  formatOutputs,
  githubContextFromEnv,
  nextLink,
  publishApply,
  publishDiagnostics,
  publishPlan,
  type Env,
  type GithubContext,
} from '../../src/github/index.js';
import { fixtureApplyReport, fixturePlan } from '../render/fixtures.js';
import { startFakeGithub, type FakeGithub } from './fake-github.js';

const TOKEN = 'ghs_FAKE_TOKEN_0123456789';
const MARKER = '<!-- postureops-plan -->';

let gh: FakeGithub;
let other: FakeGithub;
let dir: string;
let logs: string[];
let commands: string[];

beforeAll(async () => {
  gh = await startFakeGithub();
  other = await startFakeGithub();
});
afterAll(async () => {
  await gh.close();
  await other.close();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'postureops-gh-'));
  gh.requests.length = 0;
  other.requests.length = 0;
  gh.pages = [];
  gh.linkOverride.clear();
  gh.override.clear();
  logs = [];
  commands = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function env(extra: Env = {}): Env {
  const event = join(dir, 'event.json');
  writeFileSync(event, JSON.stringify({ action: 'synchronize', number: 42, pull_request: { number: 42 } }));
  return {
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: event,
    GITHUB_REPOSITORY: 'acme/posture',
    GITHUB_API_URL: gh.url,
    'INPUT_GITHUB-TOKEN': TOKEN,
    GITHUB_STEP_SUMMARY: join(dir, 'summary.md'),
    GITHUB_OUTPUT: join(dir, 'output.txt'),
    ...extra,
  };
}

function ctx(e: Env = env()): GithubContext {
  return githubContextFromEnv(e, { log: (m) => logs.push(m), command: (l) => commands.push(l) });
}

/** Parses `name<<delim\nvalue\ndelim\n` entries. */
function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<]+)<<(.+)$/.exec(lines[i]);
    if (!m) continue;
    const end = lines.indexOf(m[2], i + 1);
    out[m[1]] = lines.slice(i + 1, end).join('\n');
    i = end;
  }
  return out;
}

describe('context and mode', () => {
  it('reads repository, pull request, token, paths and inputs from the environment', () => {
    const c = ctx(env({ INPUT_COMMENT: 'false', GITHUB_API_URL: 'https://ghe.example.net/api/v3/' }));
    expect(c.repository).toEqual({ owner: 'acme', repo: 'posture' });
    expect(c.pullNumber).toBe(42);
    expect(c.token).toBe(TOKEN);
    expect(c.apiUrl).toBe('https://ghe.example.net/api/v3');
    expect(c.comment).toBe(false);
    expect(ctx({ GITHUB_TOKEN: 'fallback-token' }).token).toBe('fallback-token');
    expect(ctx({}).apiUrl).toBe('https://api.github.com');
  });

  it('a push has no pull request; a broken event file is a message, not a crash', () => {
    writeFileSync(join(dir, 'push.json'), JSON.stringify({ ref: 'refs/heads/main' }));
    expect(ctx(env({ GITHUB_EVENT_PATH: join(dir, 'push.json') })).pullNumber).toBeUndefined();
    expect(ctx(env({ GITHUB_EVENT_PATH: join(dir, 'missing.json') })).pullNumber).toBeUndefined();
    expect(logs.join('\n')).toContain('cannot read the event payload');
  });

  it('auto: apply on a push to the default branch, plan otherwise', () => {
    const onMain = { GITHUB_REF: 'refs/heads/main' };
    expect(detectMode(onMain, 'push', 'main')).toBe('apply');
    expect(detectMode({ GITHUB_REF: 'refs/heads/feature' }, 'push', 'main')).toBe('plan');
    expect(detectMode(onMain, 'push')).toBe('plan'); // default branch unknown: never guess an apply
    expect(detectMode(onMain, 'pull_request', 'main')).toBe('plan');
    expect(detectMode(onMain, 'schedule', 'main')).toBe('plan');
    expect(detectMode({ ...onMain, GITHUB_EVENT_NAME: 'push' }, undefined, 'main')).toBe('apply');
  });
});

describe('pull-request comment', () => {
  it('creates a comment when none carries the marker', async () => {
    gh.pages = [[{ id: 1, body: 'LGTM' }]];
    const r = await publishPlan(ctx(), fixturePlan(), []);
    expect(r.comment).toBe('created');
    const post = gh.requests.find((q) => q.method === 'POST');
    expect(post?.url).toBe('/repos/acme/posture/issues/42/comments');
    expect((post?.body as { body: string }).body.startsWith(MARKER)).toBe(true);
    expect(gh.requests.every((q) => q.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('updates the comment with the marker, found on page 2', async () => {
    gh.pages = [Array.from({ length: 100 }, (_, i) => ({ id: i + 1, body: `comment ${i}` })), [{ id: 777, body: `${MARKER}\nold plan` }]];
    const r = await publishPlan(ctx(), fixturePlan(), []);
    expect(r.comment).toBe('updated');
    expect(gh.requests.map((q) => `${q.method} ${q.url}`)).toEqual([
      'GET /repos/acme/posture/issues/42/comments?per_page=100',
      'GET /repos/acme/posture/issues/42/comments?per_page=100&page=2',
      'PATCH /repos/acme/posture/issues/comments/777',
    ]);
    expect((gh.requests[2].body as { body: string }).body).toContain('Plan: 4 to create');
  });

  it('a comment that only quotes the marker is not ours to edit', async () => {
    gh.pages = [[{ id: 3, body: `> ${MARKER}\n> quoted plan` }]];
    expect((await publishPlan(ctx(), fixturePlan(), [])).comment).toBe('created');
    expect(gh.requests.some((q) => q.method === 'PATCH')).toBe(false);
  });

  it('an unreachable API is a warning, not a crash', async () => {
    const closed = await startFakeGithub();
    await closed.close();
    const r = await publishPlan(ctx(env({ GITHUB_API_URL: closed.url })), fixturePlan(), []);
    expect(r.comment).toBe('failed');
    expect(r.summaryWritten).toBe(true);
    expect(logs.join('\n')).toContain('could not comment on pull request #42');
    expect(logs.join('\n')).not.toContain(TOKEN);
  });

  it('without a token: no request, a message, the summary still written', async () => {
    const e = { ...env() };
    delete (e as Record<string, string | undefined>)['INPUT_GITHUB-TOKEN'];
    const r = await publishPlan(ctx(e), fixturePlan(), []);
    expect(r.comment).toBe('skipped');
    expect(gh.requests).toHaveLength(0);
    expect(logs.join('\n')).toMatch(/no pull-request comment: no GitHub token/);
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain(MARKER);
  });

  it('not in a pull request: no comment, a message', async () => {
    const r = await publishApply(ctx(env({ GITHUB_EVENT_NAME: 'push', GITHUB_EVENT_PATH: '' })), fixtureApplyReport());
    expect(r.comment).toBe('skipped');
    expect(gh.requests).toHaveLength(0);
    expect(logs.join('\n')).toContain('not for a pull request');
  });

  it('the token never goes to another host: a next-page link there is not followed', async () => {
    gh.pages = [[{ id: 1, body: 'x' }], [{ id: 2, body: MARKER }]];
    gh.linkOverride.set(1, `<${other.url}/repos/acme/posture/issues/42/comments?page=2>; rel="next"`);
    const r = await publishPlan(ctx(), fixturePlan(), []);
    expect(other.requests).toHaveLength(0);
    expect(r.comment).toBe('created');
    expect(logs.join('\n')).toContain('not following a comments page link to another host');
  });

  it('a comment whose url names another host is updated through the API host', async () => {
    gh.pages = [[{ id: 5, body: MARKER, url: `${other.url}/repos/acme/posture/issues/comments/5` }]];
    expect((await publishPlan(ctx(), fixturePlan(), [])).comment).toBe('updated');
    expect(other.requests).toHaveLength(0);
    expect(gh.requests.at(-1)?.url).toBe('/repos/acme/posture/issues/comments/5');
  });

  it('a redirect to another host is not followed', async () => {
    gh.pages = [[{ id: 5, body: MARKER }]];
    gh.override.set('PATCH /repos/acme/posture/issues/comments/5', { status: 307, headers: { location: `${other.url}/steal` } });
    const r = await publishPlan(ctx(), fixturePlan(), []);
    expect(r.comment).toBe('failed');
    expect(other.requests).toHaveLength(0);
    expect(commands.some((c) => c.startsWith('::warning title=postureops::could not comment'))).toBe(true);
  });

  it('an API error becomes a warning, not a crash', async () => {
    gh.override.set('GET /repos/acme/posture/issues/42/comments', { status: 403, body: { message: 'Resource not accessible by integration' } });
    const r = await publishPlan(ctx(), fixturePlan(), []);
    expect(r.comment).toBe('failed');
    expect(logs.join('\n')).toMatch(/answered 403: Resource not accessible by integration.*pull-requests: write/);
  });

  it('plain HTTP to a remote API host is refused before any request', async () => {
    let called = false;
    const c = githubContextFromEnv(env({ GITHUB_API_URL: 'http://github.example.net' }), {
      log: (m) => logs.push(m),
      command: () => {},
      fetch: (async () => {
        called = true;
        throw new Error('must not be called');
      }) as typeof fetch,
    });
    expect((await publishPlan(c, fixturePlan(), [])).comment).toBe('skipped');
    expect(called).toBe(false);
    expect(logs.join('\n')).toContain('must use https');
  });

  it('a secret value that slipped into the plan never reaches the comment or the summary', async () => {
    const secret = 'hooks-slack-FAKE-9c8b7a';
    const plan = fixturePlan();
    plan.changes = plan.changes.map((c) => (c.name === 'ops-slack' ? { ...c, reason: `careless reason ${secret}` } : c));
    const r = await publishPlan(ctx(env({ SLACK_URL: secret })), plan, []);
    expect(r.comment).toBe('created');
    const body = (gh.requests.find((q) => q.method === 'POST')?.body as { body: string }).body;
    expect(body).not.toContain(secret);
    expect(body).toContain('careless reason (sensitive)');
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).not.toContain(secret);
    expect(logs.join('\n')).toContain('the value of SLACK_URL appeared in the report and was masked');
    expect(logs.join('\n')).not.toContain(secret);
  });
});

describe('outputs, summary and annotations', () => {
  it('writes outputs with the multiline syntax and appends the summary', async () => {
    writeFileSync(join(dir, 'output.txt'), 'earlier=1\n');
    await publishPlan(ctx(env({ INPUT_COMMENT: 'false' })), fixturePlan(), []);
    const text = readFileSync(join(dir, 'output.txt'), 'utf8');
    expect(text.startsWith('earlier=1\n')).toBe(true);
    expect(text).toMatch(/^has-changes<<ghadelimiter_[0-9a-f-]{36}\ntrue\nghadelimiter_[0-9a-f-]{36}$/m);
    const out = parseOutputs(text);
    expect(out['has-changes']).toBe('true');
    expect(out.refused).toBe('false');
    expect(out.mode).toBe('plan');
    expect(JSON.parse(out.summary)).toEqual({ create: 4, update: 4, replace: 1, delete: 2, unmanaged: 1 });
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain('| **Total** | **4** | **4** | **1** | **2** |');

    await publishApply(ctx(env({ INPUT_COMMENT: 'false' })), fixtureApplyReport());
    const after = readFileSync(join(dir, 'output.txt'), 'utf8');
    const applyOut = parseOutputs(after.slice(text.length));
    expect(applyOut.failed).toBe('true');
    expect(JSON.parse(applyOut.summary).done).toBe(4);
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain('<!-- postureops-apply -->');
  });

  it('a value holding the delimiter cannot end its entry early', () => {
    expect(() => formatOutputs({ x: 'a\nD\nb' }, () => 'D')).toThrow(/delimiter/);
    expect(formatOutputs({ x: 'a\nb' }, () => 'D')).toBe('x<<D\na\nb\nD\n');
  });

  it('annotations: one workflow command per diagnostic, escaped, paths relative to the workspace, no duplicates', async () => {
    const d: Diagnostic = {
      severity: 'error',
      code: 'unknown-field',
      message: 'unknown member "slackUrll"\nin data',
      file: '/home/runner/work/repo/infra/channels.yaml',
      line: 7,
      column: 5,
      hint: 'did you mean slackUrl? 100%',
    };
    const lines = annotationLines({ workspace: '/home/runner/work/repo' }, [d, { ...d }]);
    expect(lines).toEqual(['::error file=infra/channels.yaml,line=7,col=5,title=unknown-field::unknown member "slackUrll"%0Ain data%0Adid you mean slackUrl? 100%25']);
    const plan = fixturePlan();
    await publishPlan(ctx(env({ INPUT_COMMENT: 'false' })), plan, plan.diagnostics);
    expect(commands).toEqual([
      '::warning file=profiles.yaml,line=16,col=16,title=unknown-placeholder::subject uses {{HOSTNAME}}, which the parent profile does not define%0Adid you mean {{MID}}?',
    ]);
  });

  it('configuration errors without a plan: annotations and a job summary', async () => {
    const r = await publishDiagnostics(ctx(), [{ severity: 'error', code: 'duplicate-resource', message: 'dup', file: 'a.yaml', line: 1, column: 1 }]);
    expect(r.annotations).toBe(1);
    expect(commands[0]).toBe('::error file=a.yaml,line=1,col=1,title=duplicate-resource::dup');
    expect(readFileSync(join(dir, 'summary.md'), 'utf8')).toContain('1 error and 0 warnings');
  });

  it('Link headers: the next page, resolved against the current URL', () => {
    expect(nextLink('<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=5>; rel="last"', 'https://api.github.com/x')).toBe('https://api.github.com/x?page=2');
    expect(nextLink('<https://api.github.com/x?page=1>; rel="prev"', 'https://api.github.com/x')).toBeUndefined();
    expect(nextLink(null, 'https://api.github.com/x')).toBeUndefined();
  });
});
