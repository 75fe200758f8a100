// What one run of the Action is about, read once: the inputs (through @actions/core) and the event
// (through @actions/github's context). Pure decisions (mode, fork, folder) are plain functions.

import * as core from '@actions/core';
import { context } from '@actions/github';
import path from 'node:path';
import { parseShard, type Shard } from '../plan/core/shard.js';
import { DURATION_EXPECTED, parseDuration } from '../model/duration.js';
import { inertText } from '../model/inert.js';
import { LAST_APPLIED } from './changes.js';

export type Mode = 'plan' | 'apply' | 'drift' | 'merge';
export type ModeInput = 'auto' | Mode;

export interface Settings {
  mode: Mode;
  /** The configuration folder as given, normalised (`.` for the workspace root): the comment's and the issue's key. */
  folder: string;
  /** Absolute path of the folder. */
  dir: string;
  accounts: string[];
  /** `target`: plan (and apply) only these `[account/]Kind/name` selectors and what they depend on (`--target`). */
  targets: string[];
  /** `rotate`: push the write-only secrets of these selectors again (`--rotate`). */
  rotate: string[];
  token: string;
  comment: boolean;
  labels: boolean;
  failOnRefusal: boolean;
  /** Drift mode: read the audit log of the drifted accounts (`plan --attribute`) for the issue. */
  attribute: boolean;
  /** Plan and apply modes: rehearse the plan on the emulator seeded with the live state (false: `--no-rehearse`). */
  rehearse: boolean;
  /** `max-duration`, in seconds: a run the rate-limit budget cannot finish within it reads nothing. */
  maxDuration?: number;
  /** Plan only the accounts whose documents changed since this commit or ref (`--changed-since`), or since each account's last apply (`last-applied`); everything when absent. */
  changedSince?: string;
  /** This run's shard (`--shard I/N`): no comment or issue of its own; `plan-out` hands its plan to the merge job. */
  shard?: Shard;
  /** Absolute path to save the plan to (`plan --out`), for an artifact. */
  planOut?: string;
  /** Merge mode: the shards' plan files (a folder of *.json, or files separated by newlines or commas), absolute. */
  plans: string[];
  /** Mode apply on a run that may not apply (another branch, a tag, a pull request): why, in one line. Nothing is read. */
  applyRefused?: string;
  eventName: string;
  repo: { owner: string; repo: string };
  /** The pull request of this run, if any. */
  pullNumber?: number;
  /** A pull request's base commit: what its routing report compares with. */
  baseSha?: string;
  /** A pull request whose head lives in another repository: no secrets, a read-only token. */
  fork: boolean;
  sha: string;
  /** Link to this workflow run (the same for every attempt of it). */
  runUrl: string;
  apiUrl: string;
  workspace: string;
}

const MODES: readonly ModeInput[] = ['auto', 'plan', 'apply', 'drift', 'merge'];

/** A bad input: the user's to fix (the step fails with this message, not as an internal error). */
export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}

/** The YAML 1.2 booleans @actions/core accepts; an empty input takes the default. */
function boolInput(name: string, fallback: boolean): boolean {
  if (core.getInput(name) === '') return fallback;
  try {
    return core.getBooleanInput(name);
  } catch {
    throw new InputError(`input ${name}: expected true or false (true, True, TRUE, false, False, FALSE), got ${JSON.stringify(core.getInput(name))}`);
  }
}

/** One of `choices`, as written (no case folding: `Apply` is a typo, not a guess). */
export function choiceInput<T extends string>(name: string, choices: readonly T[], fallback: T): T {
  const v = core.getInput(name);
  if (v === '') return fallback;
  if (!(choices as readonly string[]).includes(v)) throw new InputError(`input ${name}: expected one of ${choices.join(', ')}, got ${JSON.stringify(v)}`);
  return v as T;
}

/** Applying is never a guess: only a push to the default branch (or a branch of `apply-branches`) applies under `auto`. */
export function detectMode(input: ModeInput, eventName: string, ref: string | undefined, defaultBranch: unknown, named: readonly string[] = []): Mode {
  if (input !== 'auto') return input;
  return eventName === 'push' && branchOf(ref, applyBranches(defaultBranch, named)) !== undefined ? 'apply' : 'plan';
}

/** The events that run on a branch someone chose to apply from: a push to it, or a manual run on it. */
const APPLY_EVENTS: readonly string[] = ['push', 'workflow_dispatch'];

/**
 * A branch name as git allows it (git check-ref-format, less its rarer corners): no control
 * characters, spaces, `~^:?*[\`, no `..`, `@{`, `//`, no leading or trailing `/` or `.`, no `.lock`.
 */
export function isBranchName(name: string): boolean {
  return (
    name !== '' &&
    name.length <= 255 &&
    !/[\x00-\x20\x7f~^:?*[\\]/.test(name) &&
    !/\.\.|@\{|\/\/|\/\.|\.lock(?:\/|$)/.test(name) &&
    !/^[/.-]|[/.]$/.test(name) &&
    name !== '@'
  );
}

/**
 * The branches an apply may run on: the repository's default branch (from the event payload, which
 * is untrusted: anything but a branch name is ignored) and those the `apply-branches` input names.
 */
export function applyBranches(defaultBranch: unknown, named: readonly string[]): string[] {
  const all = typeof defaultBranch === 'string' && isBranchName(defaultBranch) ? [defaultBranch, ...named] : [...named];
  return [...new Set(all)];
}

/** The branch of `ref` when it is one of `branches` (exact: `refs/heads/main-evil` is not `main`). */
function branchOf(ref: string | undefined, branches: readonly string[]): string | undefined {
  if (ref === undefined || !ref.startsWith('refs/heads/')) return undefined;
  const name = ref.slice('refs/heads/'.length);
  return branches.includes(name) ? name : undefined;
}

/** Shown in a line of the log: quoted, its controls escaped, its length bounded. */
function shown(text: string): string {
  return inertText(JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text));
}

/**
 * Why this run may not apply (undefined when it may): an apply needs a push to, or a manual run on,
 * one of `branches` (the default branch and the `apply-branches` input): the branch that was
 * reviewed and that the repository's rules protect. Whatever `mode` says.
 */
export function applyRefusal(eventName: string, ref: string | undefined, branches: readonly string[]): string | undefined {
  const allowed = branches.length > 0 ? branches.map(shown).join(', ') : 'none (the event names no default branch and apply-branches is empty)';
  const fix = `apply runs only on a push to, or a manual run (workflow_dispatch) on, one of the branches ${allowed}; protect them with the repository's rules, and name others with the apply-branches input`;
  const where = `${eventName === '' ? 'an unknown event' : `a ${shown(eventName)} event`} on ${ref === undefined || ref === '' ? 'no ref' : shown(ref)}`;
  if (!APPLY_EVENTS.includes(eventName)) return `this run is ${where}: ${fix}`;
  if (branchOf(ref, branches) === undefined) return `this run is ${where}, not a branch apply may run on: ${fix}`;
  return undefined;
}

interface PullPayload {
  number?: number;
  head?: { sha?: string; repo?: { full_name?: string } | null };
  base?: { sha?: string; repo?: { full_name?: string } };
}

/**
 * The commit `--changed-since` compares with. `none`: everything; another value: that ref. `auto` (the
 * default): a pull request's base commit; an apply, `last-applied` (each account since its last
 * successful apply, recorded in the service: whatever runs were cancelled or failed in between);
 * drift, merge and other events: everything.
 */
export function changedSinceFor(input: string, mode: Mode, pull: PullPayload | undefined): string | undefined {
  const value = input.trim();
  if (value === 'none') return undefined;
  if (value !== '' && value !== 'auto') return value;
  if (mode === 'drift' || mode === 'merge') return undefined;
  if (pull) return typeof pull.base?.sha === 'string' && pull.base.sha !== '' ? pull.base.sha : undefined;
  // Not the push's own range (`before`): a cancelled or failed run would leave its range unapplied.
  if (mode === 'apply') return LAST_APPLIED;
  return undefined;
}

/** Head repository differs from the base (or is gone): GitHub gives such runs no secrets and a read-only token. */
export function isForkPull(pull: PullPayload | undefined): boolean {
  if (!pull) return false;
  const head = pull.head?.repo?.full_name;
  const base = pull.base?.repo?.full_name;
  return head === undefined || head !== base;
}

/** `./posture/` → `posture`; the workspace itself → `.`. */
export function normalizeFolder(folder: string): string {
  const n = path.posix.normalize(folder.trim().replace(/\\/g, '/') || '.').replace(/\/+$/, '');
  return n === '' ? '.' : n;
}

/** Selectors, one per line (a name may hold a comma); blank lines are ignored. */
function linesInput(name: string): string[] {
  return core
    .getInput(name)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

/**
 * The run's page (its job summary), from GITHUB_SERVER_URL, GITHUB_REPOSITORY and GITHUB_RUN_ID,
 * each checked for its shape: the URL goes into comments and issues as a link, so a value that is
 * not an HTTPS origin, an owner/name or a number gives no link (''), never someone else's.
 */
export function runUrlOf(env: NodeJS.ProcessEnv): string {
  let server: URL;
  try {
    server = new URL(env.GITHUB_SERVER_URL || 'https://github.com');
  } catch {
    return '';
  }
  const bare = server.protocol === 'https:' && server.username === '' && server.password === '' && server.search === '' && server.hash === '' && /^\/*$/.test(server.pathname);
  const repository = env.GITHUB_REPOSITORY ?? '';
  const id = env.GITHUB_RUN_ID ?? '';
  if (!bare || !/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/.test(repository) || /^\.\.?$/.test(repository.split('/')[1]!) || !/^[1-9][0-9]{0,19}$/.test(id)) return '';
  return `${server.origin}/${repository}/actions/runs/${id}`;
}

/** `apply-branches`: branch names, one per line, exactly as git spells them (no globs, no `refs/heads/`). */
function branchesInput(name: string): string[] {
  const names = linesInput(name);
  for (const b of names) {
    if (b.startsWith('refs/')) throw new InputError(`input ${name}: name the branch, not the ref (${JSON.stringify(b.replace(/^refs\/heads\//, ''))}, not ${JSON.stringify(b)})`);
    if (!isBranchName(b)) throw new InputError(`input ${name}: ${JSON.stringify(b)} is not a branch name (one exact name per line; no globs, spaces or ~^:?*[\\)`);
  }
  return names;
}

export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const modeInput = choiceInput('mode', MODES, 'auto');
  // The payload is untrusted: its default branch counts only when it is a branch name.
  const payload = context.payload as { pull_request?: PullPayload; repository?: { default_branch?: unknown } };
  const pull = payload.pull_request;
  const named = branchesInput('apply-branches');
  const branches = applyBranches(payload.repository?.default_branch, named);
  const workspace = env.GITHUB_WORKSPACE || process.cwd();
  const folder = normalizeFolder(core.getInput('directory') || '.');
  const mode = detectMode(modeInput, context.eventName, context.ref, payload.repository?.default_branch, named);
  const applyRefused = mode === 'apply' ? applyRefusal(context.eventName ?? '', context.ref, branches) : undefined;
  const shardInput = core.getInput('shard').trim();
  const shard = shardInput === '' ? undefined : parseShard(shardInput);
  if (typeof shard === 'string') throw new InputError(`input shard: ${shard}`);
  const changedSince = changedSinceFor(core.getInput('changed-since'), mode, pull);
  const planOut = core.getInput('plan-out').trim();
  const maxDurationInput = core.getInput('max-duration').trim();
  const maxDuration = maxDurationInput === '' ? undefined : parseDuration(maxDurationInput);
  if (maxDuration === undefined && maxDurationInput !== '') throw new InputError(`input max-duration: ${DURATION_EXPECTED}, got ${JSON.stringify(maxDurationInput)}`);
  const plans = core
    .getInput('plans')
    .split(/[\n,]/)
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .map((p) => path.resolve(workspace, p));
  if (mode === 'merge' && plans.length === 0) throw new InputError('input plans: mode merge needs the folder (or files) holding the shards\' plan files');
  return {
    mode,
    ...(applyRefused !== undefined ? { applyRefused } : {}),
    ...(changedSince !== undefined ? { changedSince } : {}),
    ...(shard ? { shard } : {}),
    ...(planOut !== '' ? { planOut: path.resolve(workspace, planOut) } : {}),
    ...(maxDuration !== undefined ? { maxDuration } : {}),
    plans,
    folder,
    dir: path.resolve(workspace, folder),
    accounts: core
      .getInput('accounts')
      .split(',')
      .map((a) => a.trim())
      .filter((a) => a !== ''),
    targets: linesInput('target'),
    rotate: linesInput('rotate'),
    token: core.getInput('github-token') || env.GITHUB_TOKEN || '',
    comment: boolInput('comment', true),
    labels: boolInput('labels', false),
    failOnRefusal: boolInput('fail-on-refusal', true),
    attribute: boolInput('attribute', false),
    rehearse: boolInput('rehearse', true),
    eventName: context.eventName ?? '',
    repo: context.repo,
    pullNumber: typeof pull?.number === 'number' ? pull.number : undefined,
    ...(typeof pull?.base?.sha === 'string' && pull.base.sha !== '' ? { baseSha: pull.base.sha } : {}),
    fork: isForkPull(pull),
    // On pull_request events GITHUB_SHA is the merge commit; reviewers know the head commit.
    sha: (typeof pull?.head?.sha === 'string' && pull.head.sha !== '' ? pull.head.sha : context.sha) ?? '',
    runUrl: runUrlOf(env),
    apiUrl: context.apiUrl.replace(/\/+$/, ''),
    workspace,
  };
}
