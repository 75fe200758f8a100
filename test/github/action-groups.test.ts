// The Action's job log (issue 24): each phase of a run folded in a `::group::`, in order, every group
// closed, and the plan and the apply report inside their own groups.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { serviceEnv, releasedLeases } from '../e2e/harness.js';
import { runBundle, writeFiles } from './action-harness.js';
import { startFakeGithub, type FakeGithub } from './fake-github.js';

let emu: RunningEmulator;
let gh: FakeGithub;

beforeAll(async () => {
  [emu, gh] = await Promise.all([startEmulator({ accounts: ['prod'], rateLimit: 100_000 }), startFakeGithub()]);
  // Applies find a released lease (as after an earlier apply): taken at once.
  await releasedLeases(emu, ['prod']);
});
afterAll(async () => {
  await Promise.all([emu.close(), gh.close()]);
});

/** The lines of each group, by title; and the group lines in order. */
function groups(log: string): { order: string[]; inside: Map<string, string[]> } {
  const order: string[] = [];
  const inside = new Map<string, string[]>();
  let open: string | undefined;
  for (const line of log.split('\n')) {
    const start = /^::group::(.*)$/.exec(line);
    if (start) {
      expect(open, `a group opened inside ${open}`).toBeUndefined();
      open = start[1];
      order.push(open);
      inside.set(open, []);
    } else if (line === '::endgroup::') {
      expect(open, 'an endgroup without a group').toBeDefined();
      open = undefined;
    } else if (open !== undefined) inside.get(open)!.push(line);
  }
  expect(open, 'a group left open').toBeUndefined();
  return { order, inside };
}

describe('the job log, phase by phase', () => {
  it('a push: loading, reading, the plan, the apply and its report, each in its own group', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'postureops-ws-'));
    writeFiles(join(ws, 'posture'), {
      'postureops.yaml': 'accounts:\n  - name: prod\n',
      'channels.yaml': 'kind: AlertChannel\nname: ops-hook\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/ops\n',
    });
    const r = await runBundle({
      workspace: ws,
      eventName: 'push',
      payload: { ref: 'refs/heads/main', repository: { default_branch: 'main' } },
      ref: 'refs/heads/main',
      inputs: { directory: 'posture' },
      env: serviceEnv(emu),
      apiUrl: gh.url,
    });
    expect(r.code, r.stdout).toBe(0);
    const { order, inside } = groups(r.stdout);
    expect(order).toEqual([
      'Load the configuration',
      'Read the live state and plan',
      'postureops: plan: 1 to create, 0 to update, 0 to replace, 0 to delete',
      'Apply 1 change(s)',
      'postureops: apply report: 1 done, 0 failed, 0 skipped',
    ]);
    expect(inside.get('postureops: plan: 1 to create, 0 to update, 0 to replace, 0 to delete')!.join('\n')).toMatch(/\+ create AlertChannel ops-hook/);
    expect(inside.get('postureops: apply report: 1 done, 0 failed, 0 skipped')!.join('\n')).toMatch(/done +\+ create AlertChannel ops-hook/);
    // The run's own opening line stays outside every group.
    const opening = r.stdout.indexOf('postureops: apply of');
    expect(opening).toBeGreaterThanOrEqual(0);
    expect(opening).toBeLessThan(r.stdout.indexOf('::group::'));
  });
});
