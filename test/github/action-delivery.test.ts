// Issue 35 "Done when", the drift issue: the bundled Action's drift run against the emulator and a
// fake GitHub. When the service reports the pager failing, the issue opens leading with the cells
// that no longer get alerts (before any configuration drift), remembers when it first reported each
// (in the issue itself, read back as untrusted input), and closes when the channel heals.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { cli, releasedLeases, serviceEnv } from '../e2e/harness.js';
import { runBundle, writeFiles } from './action-harness.js';
import { startFakeGithub, type FakeGithub } from './fake-github.js';
import { readDeliveryBlock } from '../../src/github/delivery.js';
import { expectMarkdownSafe } from '../fixtures/hostile.js';

let emu: RunningEmulator;
let gh: FakeGithub;

beforeAll(async () => {
  [emu, gh] = await Promise.all([startEmulator({ accounts: ['health1'], rateLimit: 100_000 }), startFakeGithub()]);
  await releasedLeases(emu, ['health1']);
});
afterAll(async () => {
  await Promise.all([emu.close(), gh.close()]);
});

const env = () => ({ ...serviceEnv(emu), PD_KEY: 'pd-key-0815', HOOK_URL: 'https://hooks.example.com/team' });
const files = (description: string) => ({
  'postureops.yaml': 'accounts:\n  - name: health1\nvariables: [PD_KEY, HOOK_URL]\n',
  'alerts.yaml': `kind: AlertChannel\nname: pager\nspec:\n  type: PagerDutyApi\n  data:\n    apiIntgKey: \${env:PD_KEY}\n---\nkind: AlertChannel\nname: hook\nspec:\n  type: Webhook\n  data:\n    webhookUrl: \${env:HOOK_URL}\n---\nkind: AlertRule\nname: critical\nspec:\n  channels: [pager]\n  severity: [critical]\n  eventCategory: [Cloud]\n  description: ${description}\n---\nkind: AlertRule\nname: high\nspec:\n  channels: [pager, hook]\n  severity: [high]\n  eventCategory: [Cloud]\n`,
});

describe('the drift issue watches delivery', () => {
  it('opens leading with the silent and degraded cells, keeps when it first reported them, and closes when the pager heals', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'postureops-ws-'));
    const folder = join(ws, 'posture');
    writeFiles(folder, files('as applied'));
    const applied = await cli(['apply', folder, '--auto-approve', '--test-channels'], { env: env() });
    expect(applied.code, applied.stdout).toBe(0);
    const drift = () => runBundle({ workspace: ws, eventName: 'schedule', payload: {}, ref: 'refs/heads/main', inputs: { directory: 'posture', mode: 'drift' }, env: env(), apiUrl: gh.url });
    const ours = () => gh.issues.filter((i) => i.body.includes('folder=posture '));

    expect((await drift()).outputs).toMatchObject({ status: 'no-drift' });
    expect(ours()).toEqual([]);

    emu.failChannel('pager', 'routing key revoked @octocat');
    const first = await drift();
    expect(first.code, first.stdout).toBe(0);
    expect(first.outputs).toMatchObject({ status: 'drift', drift: 'false' });
    expect(first.stdout).toContain('::warning title=postureops%3A delivery::alerts do not arrive in posture: 2 cell(s) with a failing channel, 1 silent');
    const [issue] = ours();
    expect(issue.state).toBe('open');
    expect(issue.body).toContain('### Alerts that do not arrive (2 cells, 1 silent)');
    expect(issue.body).toContain('- health1 · Cloud/critical: **silent** (every channel failing), reported since');
    expect(issue.body).toContain('- health1 · Cloud/high: **degraded** (a channel failing)');
    expect(issue.body).toContain('No configuration drift');
    // The service's detail mentions nobody: a code span, which GitHub neither links nor notifies from.
    expect(issue.body).toContain('routing key revoked `@octocat`');
    expectMarkdownSafe(issue.body.replace(/<!-- postureops:[^\n]*-->/g, ''), 'drift issue');
    const remembered = readDeliveryBlock(issue.body);
    expect(remembered.map((r) => [r.cell, r.state])).toEqual([
      ['Cloud/critical', 'silent'],
      ['Cloud/high', 'degraded'],
    ]);

    // Configuration drift as well: delivery still comes first, and the first report's time is kept.
    writeFiles(folder, files('changed in git'));
    const second = await drift();
    expect(second.outputs).toMatchObject({ status: 'drift', drift: 'true' });
    const body = ours()[0].body;
    expect(body.indexOf('### Alerts that do not arrive')).toBeLessThan(body.indexOf('### What differs'));
    expect(readDeliveryBlock(body)).toEqual(remembered);

    // The pager heals; the configuration drift stays: the delivery part clears and says so.
    emu.healChannel('pager');
    const healed = await drift();
    expect(healed.outputs).toMatchObject({ status: 'drift' });
    expect(ours()[0].body).not.toContain('### Alerts that do not arrive');
    expect(ours()[0].body).toContain('Delivery restored since the last check: health1 · Cloud/critical, health1 · Cloud/high.');
    expect(readDeliveryBlock(ours()[0].body)).toEqual([]);

    // Failing again, then healed with the configuration matching: the issue closes.
    writeFiles(folder, files('as applied'));
    emu.failChannel('pager');
    await drift();
    expect(ours()[0].body).toContain('### Alerts that do not arrive');
    emu.healChannel('pager');
    const closed = await drift();
    expect(closed.outputs).toMatchObject({ status: 'no-drift' });
    expect(ours()[0]).toMatchObject({ state: 'closed', state_reason: 'completed' });
    const comments = gh.comments.get(issue.number) ?? [];
    expect(comments.at(-1)?.body).toContain('and every channel delivers. Delivery restored in 2 cells (health1 Cloud/critical, health1 Cloud/high). Closing.');
  });
});
