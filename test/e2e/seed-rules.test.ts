// Issue 29, through the built CLI (node dist/cmd/postureops.js) against the emulator on 127.0.0.1:
// what the seeds say the service refuses, validate refuses at file:line (a SlackChannel slackUrl
// that is not https, an alert rule without channels, a name only of spaces); an export of legacy
// records that break those rules still validates: they are left out, with a warning saying why.

import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { packageRoot } from '../../src/util/package-root.js';
import { oneLine, serviceEnv } from './harness.js';

const CLI = join(packageRoot(), 'dist', 'cmd', 'postureops.js');

function postureops(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env }, cwd: tmp, encoding: 'utf8' }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

let tmp: string;
let emu: RunningEmulator;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'postureops-seed-rules-'));
  emu = await startEmulator({ accounts: ['prod'], rateLimit: 100_000 });
});
afterAll(async () => {
  await emu.close();
});

describe('what the service refuses, validate refuses', () => {
  it('an http slackUrl (literal or from the environment), a rule without channels or with an empty list, a name of spaces: errors at file:line', async () => {
    const dir = join(tmp, 'refused');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'postureops.yaml'), 'accounts:\n  - name: prod\nvariables: [SLACK_URL]\nsecrets:\n  literals: allow\n');
    await writeFile(
      join(dir, 'c.yaml'),
      [
        'kind: AlertChannel\nname: literal\nspec:\n  type: SlackChannel\n  data:\n    slackUrl: http://hooks.slack.com/services/T/B/x\n',
        'kind: AlertChannel\nname: from-env\nspec:\n  type: SlackChannel\n  data:\n    slackUrl: ${env:SLACK_URL}\n',
        'kind: AlertRule\nname: no-list\nspec:\n  severity: [critical]\n',
        'kind: AlertRule\nname: empty-list\nspec:\n  channels: []\n  severity: [critical]\n',
        'kind: AlertChannel\nname: "   "\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://a.example/h\n',
      ].join('---\n'),
    );
    const r = await postureops(['validate', dir], { SLACK_URL: 'http://hooks.slack.com/services/T/B/secret-part' });
    expect(r.code).toBe(1);
    expect(oneLine(r.stdout)).toMatch(/c\.yaml:6:15: error\[format\]: `spec\.data\.slackUrl`: expected an https:\/\/ URL.*the service's schema of this type requires one/);
    expect(oneLine(r.stdout)).toMatch(/c\.yaml:13:15: error\[format\]/);
    expect(oneLine(r.stdout)).toMatch(/c\.yaml:18:3: error\[no-channels\]: AlertRule "no-list" names no channel: the service refuses a rule without one/);
    expect(oneLine(r.stdout)).toMatch(/c\.yaml:23:13: error\[no-channels\]: AlertRule "empty-list"/);
    expect(oneLine(r.stdout)).toMatch(/c\.yaml:27:7: error\[invalid-value\]: `name` must not be only spaces/);
    expect(r.stdout + r.stderr).not.toContain('secret-part');
  });
  it('a name on two lines (the seed: one line, not only spaces) and a template name twice in a profile: errors at file:line', async () => {
    const dir = join(tmp, 'lines');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'postureops.yaml'), 'accounts:\n  - name: prod\n');
    await writeFile(
      join(dir, 'c.yaml'),
      [
        'kind: AlertChannel\nname: "hook\\nsecond"\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://a.example/h\n',
        'kind: AlertChannel\nname: |\n  folded\n  name\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://a.example/h\n',
        'kind: AlertChannel\nname: renamed\npreviousNames: ["old\\rname"]\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://a.example/h\n',
        'kind: AlertProfile\nname: P1\nspec:\n  extends: SVC_HE_FILES_DEFAULT_PROFILE\n  alerts:\n' +
          '    - {name: File_Changed, eventName: e, subject: s, description: d}\n' +
          '    - {name: File_Changed, eventName: e, subject: s, description: d}\n' +
          '    - {name: "x\\ny", eventName: e, subject: s, description: d}\n',
      ].join('---\n'),
    );
    const r = await postureops(['validate', dir], {});
    expect(r.code).toBe(1);
    const out = oneLine(r.stdout);
    expect(out).toMatch(/c\.yaml:2:7: error\[invalid-value\]: `name` must be one line \(it holds a line break\)/);
    expect(out).toMatch(/c\.yaml:9:7: error\[invalid-value\]: `name` must be one line/);
    expect(out).toMatch(/c\.yaml:19:17: error\[invalid-value\]: `previousNames\[0\]` must be one line/);
    expect(out).toMatch(/c\.yaml:31:14: error\[duplicate-template\]: alert template `File_Changed` is declared twice in this profile/);
    expect(out).toMatch(/c\.yaml:32:14: error\[invalid-value\]: `spec\.alerts\[2\]\.name` must be one line/);
  });
});

describe('an export of legacy records still validates', () => {
  it('a Slack channel with an http URL and a rule without channels are left out with a warning; the folder validates and plans clean', async () => {
    emu.seed('prod', 'AlertChannels', [
      { intgGuid: 'PROD_LEGACY_SLACK', name: 'legacy-slack', type: 'SlackChannel', enabled: 1, data: { slackUrl: 'http://hooks.slack.com/services/T/B/legacy-secret' } },
      { intgGuid: 'PROD_GOOD_HOOK', name: 'good-hook', type: 'Webhook', enabled: 1, data: { webhookUrl: 'https://a.example/h' } },
    ]);
    emu.seed('prod', 'AlertRules', [
      { mcGuid: 'PROD_LEGACY_RULE', type: 'Event', intgGuidList: [], filters: { name: 'legacy-rule', enabled: 1, severity: [1], eventCategory: ['Cloud'], resourceGroups: [] } },
      { mcGuid: 'PROD_GOOD_RULE', type: 'Event', intgGuidList: ['PROD_GOOD_HOOK'], filters: { name: 'good-rule', enabled: 1, severity: [1], eventCategory: ['Cloud'], resourceGroups: [] } },
    ]);
    const env = serviceEnv(emu);
    const out = join(tmp, 'exported');
    const exported = await postureops(['export', '--out', out, '--account', 'prod', '--kind', 'AlertChannel', '--kind', 'AlertRule'], env);
    expect(exported.code, exported.stdout + exported.stderr).toBe(0);
    expect(oneLine(exported.stderr)).toMatch(/AlertChannel "legacy-slack" in account prod: its spec\/data\/slackUrl breaks a rule of the service .*a legacy record; left out of the export/);
    expect(oneLine(exported.stderr)).toMatch(/AlertRule "legacy-rule" in account prod: .*names no channel.*left out of the export/);
    expect(exported.stderr).not.toContain('legacy-secret');
    const note = await readFile(join(out, 'SECRETS.md'), 'utf8');
    expect(note).toContain('legacy-slack');
    const validate = await postureops(['validate', out], env);
    expect(validate.code, validate.stdout).toBe(0);
    const plan = await postureops(['plan', out, '--detailed-exitcode'], env);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });
});
