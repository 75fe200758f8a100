// The bundled Action is strict on its inputs (a bad one fails the step with a message that names it
// and what it accepts, never as an internal error), runs without a job summary file, and folds the
// rendered plan in the job log.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { serviceEnv } from '../e2e/harness.js';
import { pullPayload, runBundle, writeFiles } from './action-harness.js';
import { startFakeGithub, type FakeGithub } from './fake-github.js';

let emu: RunningEmulator;
let gh: FakeGithub;
let ws: string;

beforeAll(async () => {
  [emu, gh] = await Promise.all([startEmulator({ accounts: ['in1'], rateLimit: 100_000 }), startFakeGithub()]);
  ws = mkdtempSync(join(tmpdir(), 'postureops-ws-'));
  writeFiles(join(ws, 'posture'), {
    'postureops.yaml': 'accounts:\n  - name: in1\n',
    'hook.yaml': 'kind: AlertChannel\nname: hook\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/in1\n',
  });
});
afterAll(async () => {
  await Promise.all([emu.close(), gh.close()]);
});

const pr = (inputs: Record<string, string>, env: Record<string, string> = {}) =>
  runBundle({ workspace: ws, eventName: 'pull_request', payload: pullPayload(5), inputs: { directory: 'posture', ...inputs }, env: { ...serviceEnv(emu), ...env }, apiUrl: gh.url });

describe('inputs', () => {
  it.each([
    [{ comment: 'yes' }, 'input comment: expected true or false (true, True, TRUE, false, False, FALSE), got "yes"'],
    [{ labels: '1' }, 'input labels: expected true or false'],
    [{ 'fail-on-refusal': 'no' }, 'input fail-on-refusal: expected true or false'],
    [{ mode: 'Apply' }, 'input mode: expected one of auto, plan, apply, drift, merge, got "Apply"'],
    [{ 'max-duration': 'soon' }, 'input max-duration:'],
    [{ shard: '3/2' }, 'input shard:'],
  ])('%j fails the step with a message naming the input and what it accepts', async (inputs, message) => {
    const requests = gh.requests.length;
    const r = await pr(inputs);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`::error::postureops: ${message}`);
    expect(r.stdout).not.toContain('internal error');
    expect(gh.requests.length).toBe(requests); // nothing posted
  });

  it('TRUE and False are booleans as YAML 1.2 spells them', async () => {
    const r = await pr({ comment: 'False', 'fail-on-refusal': 'TRUE' });
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain('no pull-request comment (the comment input is false)');
  });
});

describe('job summary and log', () => {
  it('no summary file (unset, or a path that cannot be written) is not a failure; the plan is folded in the log', async () => {
    for (const summary of ['', join(ws, 'missing', 'dir', 'summary.md')]) {
      const r = await pr({ comment: 'false' }, { GITHUB_STEP_SUMMARY: summary });
      expect(r.code, r.stdout).toBe(0);
      expect(r.outputs).toMatchObject({ mode: 'plan', status: 'planned', 'count-create': '1' });
      expect(r.stdout).toMatch(summary === '' ? /GITHUB_STEP_SUMMARY is not set; no job summary/ : /::warning::postureops: no job summary \(Unable to access summary file/);
    }
    const r = await pr({ comment: 'false' });
    const log = r.stdout.split('\n');
    const open = log.indexOf('::group::postureops: plan: 1 to create, 0 to update, 0 to replace, 0 to delete');
    const close = log.indexOf('::endgroup::', open);
    expect(open).toBeGreaterThan(-1);
    expect(log.slice(open, close).join('\n')).toMatch(/create AlertChannel hook/);
  });
});
