// Everything the Action adapter needs from its surroundings, read once from the environment the
// runner sets up, with effects (log, workflow commands, HTTP) injectable for tests.

import { readFileSync } from 'node:fs';

export type Env = Readonly<Record<string, string | undefined>>;
export type GithubMode = 'auto' | 'plan' | 'apply';

export interface GithubContext {
  /** GITHUB_EVENT_NAME: `pull_request`, `push`, `schedule`, ... */
  eventName?: string;
  /** GITHUB_REPOSITORY split at the slash. */
  repository?: { owner: string; repo: string };
  /** The pull request's number, from the event payload at GITHUB_EVENT_PATH. */
  pullNumber?: number;
  /** `repository.default_branch` of the event payload: auto mode applies only on a push to it. */
  defaultBranch?: string;
  /** GITHUB_API_URL without a trailing slash (default https://api.github.com). */
  apiUrl: string;
  /** From the `github-token` input (INPUT_GITHUB-TOKEN / INPUT_GITHUB_TOKEN) or GITHUB_TOKEN; sent only to apiUrl. */
  token?: string;
  /** GITHUB_STEP_SUMMARY: a file the job summary Markdown is appended to. */
  stepSummaryPath?: string;
  /** GITHUB_OUTPUT: a file step outputs are appended to. */
  outputPath?: string;
  /** GITHUB_WORKSPACE: annotation paths are made relative to it. */
  workspace?: string;
  /** The `comment` input: post or update the pull-request comment (default true). */
  comment: boolean;
  /** The environment, to recognise a secret value that must not leave (see redact.ts). */
  env: Env;
  /** Messages for the person reading the job log (stderr). Never given a secret. */
  log: (message: string) => void;
  /** Workflow commands (`::warning ...`), which the runner reads from stdout. */
  command: (line: string) => void;
  fetch: typeof fetch;
}

export interface GithubDeps {
  log?: (message: string) => void;
  command?: (line: string) => void;
  fetch?: typeof fetch;
  readFile?: (path: string) => string;
}

/** The value of an action input as a composite action passes it (either spelling of the name). */
export function input(env: Env, name: string): string | undefined {
  const upper = name.toUpperCase();
  const value = env[`INPUT_${upper}`] ?? env[`INPUT_${upper.replace(/-/g, '_')}`];
  return value === undefined ? undefined : value.trim();
}

/** `true`/`false` input; anything else (or nothing) is the default. */
export function booleanInput(env: Env, name: string, fallback: boolean): boolean {
  const v = input(env, name)?.toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  return fallback;
}

export function githubContextFromEnv(env: Env, deps: GithubDeps = {}): GithubContext {
  const log = deps.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const readFile = deps.readFile ?? ((p: string) => readFileSync(p, 'utf8'));
  const [owner, repo, ...rest] = (env.GITHUB_REPOSITORY ?? '').split('/');
  const token = nonEmpty(input(env, 'github-token')) ?? nonEmpty(env.GITHUB_TOKEN);
  const payload = readEvent(env.GITHUB_EVENT_PATH, readFile, log);
  const defaultBranch = (payload as { repository?: { default_branch?: unknown } } | undefined)?.repository?.default_branch;
  return {
    eventName: nonEmpty(env.GITHUB_EVENT_NAME),
    repository: owner && repo && rest.length === 0 ? { owner, repo } : undefined,
    pullNumber: pullNumberOf(payload),
    defaultBranch: typeof defaultBranch === 'string' && defaultBranch !== '' ? defaultBranch : undefined,
    apiUrl: (nonEmpty(env.GITHUB_API_URL) ?? 'https://api.github.com').replace(/\/+$/, ''),
    token,
    stepSummaryPath: nonEmpty(env.GITHUB_STEP_SUMMARY),
    outputPath: nonEmpty(env.GITHUB_OUTPUT),
    workspace: nonEmpty(env.GITHUB_WORKSPACE),
    comment: booleanInput(env, 'comment', true),
    env,
    log,
    command: deps.command ?? ((line: string) => process.stdout.write(`${line}\n`)),
    fetch: deps.fetch ?? fetch,
  };
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function readEvent(path: string | undefined, readFile: (p: string) => string, log: (m: string) => void): unknown {
  if (!path) return undefined;
  try {
    return JSON.parse(readFile(path));
  } catch (err) {
    log(`postureops: cannot read the event payload at ${path}: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

/** `pull_request.number` (or `number`, or `issue.number` of a PR comment) from the event payload. */
function pullNumberOf(payload: unknown): number | undefined {
  const p = payload as { pull_request?: { number?: unknown }; number?: unknown; issue?: { number?: unknown; pull_request?: unknown } } | undefined;
  const candidates = [p?.pull_request?.number, p?.issue?.pull_request ? p.issue.number : undefined, p?.pull_request ? p.number : undefined];
  const n = candidates.find((c) => Number.isSafeInteger(c) && (c as number) > 0);
  return n as number | undefined;
}

/**
 * What `mode: auto` means for an event: apply on a push to the default branch (GITHUB_REF against the
 * payload's repository.default_branch), plan on everything else (pull requests, pushes to other
 * branches, the nightly drift check, manual runs): applying is never a guess.
 */
export function detectMode(env: Env, eventName: string | undefined = env.GITHUB_EVENT_NAME, defaultBranch?: string): 'plan' | 'apply' {
  if (eventName !== 'push' || !defaultBranch) return 'plan';
  return env.GITHUB_REF === `refs/heads/${defaultBranch}` ? 'apply' : 'plan';
}

