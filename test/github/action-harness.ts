// Runs the committed Action bundle (`node action-dist/index.js`) as the runner would: inputs as
// INPUT_* variables, an event payload file, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, and
// GITHUB_API_URL at a loopback fake. Asynchronous, so the fakes in this process keep answering.

import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { packageRoot } from '../../src/util/package-root.js';

export const BUNDLE = join(packageRoot(), 'action-dist', 'index.js');
export const TOKEN = 'ghs_FAKE_github_token_0123456789';
export const SLACK_URL = 'https://hooks.slack.com/services/T000/B000/fake-slack-SECRET-4711';

export interface ActionResult {
  code: number;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
}

export interface RunOptions {
  workspace: string;
  eventName: 'pull_request' | 'push' | 'schedule' | 'workflow_dispatch';
  payload: object;
  inputs: Record<string, string>;
  env: Record<string, string>;
  apiUrl: string;
  sha?: string;
  ref?: string;
}

/** A pull_request payload: `fork` puts the head in another repository. */
export function pullPayload(number: number, fork = false, headSha?: string): object {
  const base = { repo: { full_name: 'acme/posture' } };
  const head = { ...(headSha !== undefined ? { sha: headSha } : {}), repo: { full_name: fork ? 'someone/posture' : 'acme/posture' } };
  return { action: 'synchronize', number, pull_request: { number, base, head }, repository: { default_branch: 'main' } };
}

export function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<=]+)<<(.+)$/.exec(lines[i]);
    if (!m) continue;
    const end = lines.indexOf(m[2], i + 1);
    out[m[1]] = lines.slice(i + 1, end).join('\n');
    i = end;
  }
  return out;
}

export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
}

export function runBundle(o: RunOptions): Promise<ActionResult> {
  const runDir = mkdtempSync(join(tmpdir(), 'postureops-run-'));
  const files = { event: join(runDir, 'event.json'), output: join(runDir, 'output'), summary: join(runDir, 'summary.md') };
  writeFileSync(files.event, JSON.stringify(o.payload));
  writeFileSync(files.output, '');
  writeFileSync(files.summary, '');
  const inputs = Object.fromEntries(Object.entries({ 'github-token': TOKEN, ...o.inputs }).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v]));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: o.eventName,
    GITHUB_EVENT_PATH: files.event,
    GITHUB_REPOSITORY: 'acme/posture',
    GITHUB_API_URL: o.apiUrl,
    GITHUB_SERVER_URL: 'https://github.example',
    GITHUB_RUN_ID: '777',
    GITHUB_SHA: o.sha ?? 'c0ffee0000000000000000000000000000000001',
    GITHUB_REF: o.ref ?? 'refs/pull/1/merge',
    GITHUB_WORKSPACE: o.workspace,
    GITHUB_OUTPUT: files.output,
    GITHUB_STEP_SUMMARY: files.summary,
    // The runner's own temporary folder, one per run: files the Action writes there (the routing
    // report) never meet another test's.
    RUNNER_TEMP: join(runDir, 'temp'),
    ...inputs,
    ...o.env,
  };
  return new Promise((resolve) => {
    execFile(process.execPath, [BUNDLE], { env, cwd: o.workspace, encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr, outputs: parseOutputs(readFileSync(files.output, 'utf8')), summary: readFileSync(files.summary, 'utf8') });
    });
  });
}
