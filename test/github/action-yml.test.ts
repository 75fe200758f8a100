import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const action = parse(readFileSync(join(root, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: { id?: string; run?: string; env?: Record<string, string>; uses?: string; 'working-directory'?: string }[] };
};
const runStep = action.runs.steps.find((s) => s.id === 'run')!;

describe('action.yml', () => {
  it('is a composite action with the documented inputs and outputs', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs)).toEqual(['directory', 'mode', 'accounts', 'github-token', 'comment', 'fail-on-refusal']);
    expect(action.inputs.directory.default).toBe('.');
    expect(action.inputs.mode.default).toBe('auto');
    expect(action.inputs['github-token'].default).toBe('${{ github.token }}');
    expect(action.inputs.comment.default).toBe('true');
    for (const name of ['has-changes', 'summary', 'refused']) expect(action.outputs[name].value).toBe(`\${{ steps.run.outputs.${name} }}`);
  });

  it('installs in the action folder and never pastes an input into a script', () => {
    const install = action.runs.steps.find((s) => s.run?.includes('npm ci'));
    expect(install?.['working-directory']).toBe('${{ github.action_path }}');
    for (const step of action.runs.steps) expect(step.run ?? '').not.toContain('${{');
    expect(runStep.run).toContain('dist/cmd/postureops.js');
  });
});

describe('the run script', () => {
  const dir = mkdtempSync(join(tmpdir(), 'postureops-action-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  // A stand-in `node` first on PATH: records its arguments (one a line) and exits with FAKE_EXIT.
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin', 'node'), '#!/bin/sh\nprintf \'%s\\n\' "$@" > "$ARGS_FILE"\nexit "$FAKE_EXIT"\n', { mode: 0o755 });

  const run = (inputs: Record<string, string>, exit = 0) => {
    const argsFile = join(dir, `args-${Math.random().toString(36).slice(2)}.json`);
    const env = { PATH: `${join(dir, 'bin')}:${process.env.PATH ?? ''}`, GITHUB_ACTION_PATH: dir, ARGS_FILE: argsFile, FAKE_EXIT: String(exit), ...inputs };
    const r = spawnSync('bash', ['-e', '-c', runStep.run!], { env, encoding: 'utf8' });
    const [script, ...args] = readFileSync(argsFile, 'utf8').split('\n').slice(0, -1);
    expect(script).toBe(join(dir, 'dist/cmd/postureops.js'));
    return { status: r.status, stdout: r.stdout, args };
  };
  const defaults = { INPUT_DIRECTORY: 'posture dir', INPUT_MODE: 'auto', INPUT_ACCOUNTS: '', INPUT_COMMENT: 'true', INPUT_FAIL_ON_REFUSAL: 'true' };

  it('passes directory, mode and each account', () => {
    expect(run(defaults).args).toEqual(['github', 'posture dir', '--mode', 'auto']);
    expect(run({ ...defaults, INPUT_MODE: 'plan', INPUT_ACCOUNTS: ' prod, staging ,,' }).args).toEqual(['github', 'posture dir', '--mode', 'plan', '--account', 'prod', '--account', 'staging']);
  });

  it('a refused plan fails the step unless fail-on-refusal is false; other failures always fail', () => {
    expect(run(defaults, 3).status).toBe(3);
    const lenient = run({ ...defaults, INPUT_FAIL_ON_REFUSAL: 'false' }, 3);
    expect(lenient.status).toBe(0);
    expect(lenient.stdout).toContain('::notice title=postureops::the plan was refused');
    expect(run({ ...defaults, INPUT_FAIL_ON_REFUSAL: 'false' }, 1).status).toBe(1);
  });
});
