// Issue 29, through the built CLI (node dist/cmd/postureops.js) against the emulator on 127.0.0.1:
// a configuration reads only the variables postureops.yaml declares, only in values under `spec`;
// every value it reads is masked in every output (text, JSON, Markdown, plan files, diagnostics,
// routing maps and cells, the log file), escaped or split as it may be; text from the service is
// never interpolated (`$${env:` is the literal text); saved plans and YAML are bounded.

import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { packageRoot } from '../../src/util/package-root.js';
import { oneLine, rawApi, releasedLeases, serviceEnv } from './harness.js';

const CLI = join(packageRoot(), 'dist', 'cmd', 'postureops.js');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function postureops(args: string[], env: Record<string, string>, cwd = tmp): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env }, cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

async function repo(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmp, 'repo-'));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

const all = (r: Ran) => r.stdout + r.stderr;

/** Every form a value may take in an output: as is, JSON-escaped, each line of it. */
function expectNowhere(text: string, value: string, what: string): void {
  expect(text, what).not.toContain(value);
  expect(text, what).not.toContain(JSON.stringify(value).slice(1, -1));
  for (const line of value.split('\n')) if (line.length >= 6) expect(text, `${what}: a line of it`).not.toContain(line);
}

let tmp: string;
let emu: RunningEmulator;
let env: Record<string, string>;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'postureops-declared-'));
  emu = await startEmulator({ accounts: ['prod'], rateLimit: 100_000 });
  // The built bin's applies find a released lease (as after an earlier apply): taken at once.
  await releasedLeases(emu, ['prod']);
  env = serviceEnv(emu);
});
afterAll(async () => {
  await emu.close();
});

const ROOT = (variables: string) => `accounts:\n  - name: prod\nvariables: ${variables}\n`;
const CHANNEL = 'kind: AlertChannel\nname: hook\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://alerts.example/hook\n';

describe('a configuration reads only what it declares', () => {
  it('an undeclared variable is an error at its file:line saying what to add to `variables:`', async () => {
    const dir = await repo({ 'postureops.yaml': ROOT('[OTHER]'), 'c.yaml': CHANNEL + '---\nkind: AlertChannel\nname: s\nspec:\n  type: SlackChannel\n  data:\n    slackUrl: ${env:SLACK_OPS_URL}\n' });
    const r = await postureops(['validate', dir], { SLACK_OPS_URL: 'https://hooks.slack.com/services/T/B/undeclared-value' });
    expect(r.code).toBe(1);
    expect(oneLine(r.stdout)).toMatch(/c\.yaml:13:15: error\[env-undeclared\]: environment variable SLACK_OPS_URL is not declared/);
    expect(oneLine(r.stdout)).toContain('add it to postureops.yaml: `variables: [SLACK_OPS_URL]`');
    expect(all(r)).not.toContain('undeclared-value');
    // --no-env checks declarations too.
    const offline = await postureops(['validate', dir, '--no-env'], {});
    expect(offline.code).toBe(1);
    expect(offline.stdout).toContain('error[env-undeclared]');
  });

  it.each([
    ['SVC_API_SECRET', 'is one of SVC_*'],
    ['"*"', 'could cover'],
    ['"S*"', 'could cover SVC_*'],
    ['"GITHUB*"', 'could cover GITHUB_*'],
    ['github_token', 'is one of GITHUB_*'],
    ['"Input_*"', 'is one of INPUT_*'],
    ['"RUNNER_TEMP"', 'is one of RUNNER_*'],
    ['"ACTIONS_RUNTIME_TOKEN"', 'is one of ACTIONS_*'],
    ['"POSTUREOPS_PLAN_KEY"', 'is one of POSTUREOPS_*'],
  ])('declaring %s is refused at the root file\'s line', async (declared, says) => {
    const dir = await repo({ 'postureops.yaml': `accounts:\n  - name: prod\nvariables:\n  - OK_ONE\n  - ${declared}\n`, 'c.yaml': CHANNEL });
    const r = await postureops(['validate', dir], {});
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/postureops\.yaml:5:5: error\[variable-forbidden\]/);
    expect(oneLine(r.stdout)).toContain(says);
  });

  it('a forbidden variable cannot be read even by a document that names it', async () => {
    const dir = await repo({ 'postureops.yaml': ROOT('[SLACK_*]'), 'c.yaml': 'kind: AlertRule\nname: r\nspec:\n  channels: [hook]\n  eventCategory: ["${env:SVC_API_SECRET}"]\n  severity: [critical]\n---\n' + CHANNEL });
    const r = await postureops(['validate', dir], env);
    expect(r.code).toBe(1);
    expect(oneLine(r.stdout)).toMatch(/c\.yaml:5:19: error\[env-forbidden\]: environment variable SVC_API_SECRET/);
    expectNowhere(all(r), env.SVC_API_SECRET, 'validate');
  });

  it('${env:...} in names, accounts, previousNames, references, lifecycle and the root file is an error at file:line', async () => {
    const dir = await repo({
      'postureops.yaml': 'accounts:\n  - name: prod\nvariables: [NAME_X]\ndefaults:\n  account: "${env:NAME_X}"\n',
      'c.yaml':
        'kind: AlertChannel\nname: "${env:NAME_X}"\nspec:\n  type: Webhook\n  data: {webhookUrl: "https://a.example/h"}\n---\n' +
        'kind: AlertRule\nname: r\naccount: "${env:NAME_X}"\npreviousNames: ["${env:NAME_X}"]\nlifecycle:\n  preventDestroy: "${env:NAME_X}"\nspec:\n  channels: ["${env:NAME_X}"]\n  resourceGroups: ["${env:NAME_X}"]\n  severity: [critical]\n',
    });
    const r = await postureops(['validate', dir], { NAME_X: 'prod' });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/postureops\.yaml:5:12: error\[env-not-here\]/);
    // Without a usable root the documents are still read, and their misplaced references reported.
    const fixed = await repo({ 'postureops.yaml': ROOT('[NAME_X]'), 'c.yaml': (await readFile(join(dir, 'c.yaml'), 'utf8')) });
    const d = await postureops(['validate', fixed], { NAME_X: 'prod' });
    expect(d.code).toBe(1);
    for (const line of [2, 9, 10, 12, 14, 15]) expect(d.stdout).toMatch(new RegExp(`c\\.yaml:${line}:\\d+: error\\[env-not-here\\]`));
  });
});

describe('a value read from the environment is masked wherever it flows', () => {
  // Long enough to be masked inside any text; a character JSON escapes, and `_` that Markdown escapes.
  const CATEGORY = 'Cloud_x9"Q7secret/category';
  const files = () => ({
    'postureops.yaml': ROOT('[CAT_*, DESC]'),
    'c.yaml':
      CHANNEL +
      '---\nkind: AlertRule\nname: leaky\nspec:\n  channels: [hook]\n  severity: [critical]\n' +
      // The YAML escapes of `$`: the loader reads each as ${env:...}.
      '  eventCategory: ["\\x24{env:CAT_A}", "\\u0024{env:CAT_B}", "\\U00000024{env:CAT_C}", Cloud]\n' +
      '  description: |\n    multi ${env:DESC}\n' +
      '---\nkind: AlertRule\nname: sent\nspec:\n  channels: [hook]\n  severity: [critical]\n  eventCategory: [Cloud]\n  description: "${env:DESC}"\n',
  });
  const values = { CAT_A: CATEGORY, CAT_B: 'Compliance-but-Sec/ret"B', CAT_C: 'third<script>_val', DESC: 'line one of the DESCRIPTION\nsecond LINE of the description' };

  let dir: string;
  const runEnv = () => ({ ...env, ...values, POSTUREOPS_LOG_FILE: join(tmp, 'log.txt'), POSTUREOPS_LOG: 'info' });
  const expectMasked = (what: string, text: string) => {
    for (const v of Object.values(values)) expectNowhere(text, v, what);
  };
  beforeAll(async () => {
    dir = await repo(files());
  });

  it('validate: text, JSON, GitHub annotations', async () => {
    for (const format of ['text', 'json', 'github']) {
      const r = await postureops(['validate', dir, '--format', format], runEnv());
      expect(r.code, all(r)).toBe(0);
      expectMasked(`validate ${format}`, all(r));
    }
  });

  it.each(['text', 'json', 'markdown'])('plan --format %s (JSON: and the plan file)', async (format) => {
    const planFile = join(tmp, 'masked-plan.json');
    const r = await postureops(['plan', dir, '--format', format, ...(format === 'json' ? ['--out', planFile] : [])], runEnv());
    // The rehearsal meets the service's refusal of the unknown categories (its message may echo them): refused, masked.
    expect(r.code, all(r)).toBe(3);
    expect(oneLine(r.stdout)).toMatch(format === 'json' ? /"refused": \[ \{ "key": "prod\/AlertRule\/leaky"/ : /rehearsal refused create prod\/AlertRule\/leaky/);
    // The unknown categories are carried (a warning) into the plan's routing cells: shown masked.
    expect(r.stdout).toContain('(sensitive)');
    expectMasked(`plan ${format}`, all(r));
    if (format === 'json') expectMasked('plan file', await readFile(planFile, 'utf8'));
  });

  it.each(['text', 'json', 'markdown'])('routes --format %s: the carried category is a masked cell', async (format) => {
    const r = await postureops(['routes', dir, '--format', format], runEnv());
    expect(r.code, all(r)).toBe(0);
    expect(r.stdout).toContain('(sensitive)');
    expectMasked(`routes ${format}`, all(r));
  });

  it('routes test of the category itself', async () => {
    const t = await postureops(['routes', 'test', dir, '--account', 'prod', '--category', CATEGORY, '--severity', 'critical', '--format', 'json'], runEnv());
    expect(t.code, all(t)).toBe(0);
    expectMasked('routes test', all(t));
  });

  it('apply sends the values; the service refusing the unknown categories, its report and the log file show none', async () => {
    // Past the rehearsal (which stops it: the plan tests above), to the service's own answer.
    const r = await postureops(['apply', dir, '--auto-approve', '--no-rehearse'], runEnv());
    // The service refuses a category it does not know (its message may echo the value).
    expect(r.code, all(r)).toBe(1);
    expect(r.stdout).toMatch(/FAILED +\+ create AlertRule leaky/);
    expectMasked('apply', all(r));
    expectMasked('log file', await readFile(join(tmp, 'log.txt'), 'utf8'));
    const rules = (await rawApi(emu, 'GET', '/api/v2/AlertRules', { account: 'prod' })).body as { data: { filters: { name: string; description: string } }[] };
    expect(rules.data.find((r) => r.filters.name === 'sent')?.filters.description).toBe(values.DESC);
  });
});

describe('text from the service is never interpolated', () => {
  it('a live webhook URL holding ${env:SVC_API_SECRET} is exported escaped, validates, plans clean, and apply sends the text unchanged', async () => {
    const account = 'prod';
    const hostile = 'https://evil.example/c?k=${env:SVC_API_SECRET}&j=${env:JOB_TOKEN}';
    const created = await rawApi(emu, 'POST', '/api/v2/AlertChannels', { account, body: { name: 'console-hook', type: 'Webhook', enabled: 1, data: { webhookUrl: hostile } } });
    expect(created.status).toBe(201);
    const out = join(tmp, 'exported');
    const exported = await postureops(['export', '--out', out, '--account', account, '--kind', 'AlertChannel'], env);
    expect(exported.code, all(exported)).toBe(0);
    expect(exported.stderr).toContain('written escaped');
    const files = await readdir(join(out, account));
    const text = (await Promise.all(files.map((f) => readFile(join(out, account, f), 'utf8')))).join('\n');
    expect(text).toContain('webhookUrl: https://evil.example/c?k=$${env:SVC_API_SECRET}&j=$${env:JOB_TOKEN}');
    const root = await readFile(join(out, 'postureops.yaml'), 'utf8');
    const jobToken = 'job-token-value-0123456789';
    const runEnv = { ...env, JOB_TOKEN: jobToken };
    expect((await postureops(['validate', out], runEnv)).code).toBe(0);
    const plan = await postureops(['plan', out, '--detailed-exitcode'], runEnv);
    expect(plan.code, all(plan)).toBe(0);
    // A change elsewhere in the record: apply sends the URL back as the text it is.
    await writeFile(join(out, 'postureops.yaml'), root);
    const channels = join(out, account, files.find((f) => f.startsWith('alert-channels'))!);
    await writeFile(channels, (await readFile(channels, 'utf8')).replace(/name: console-hook\n(\w+: .*\n)*spec:\n/, (m) => m).replace('enabled: true', 'enabled: false'));
    const applied = await postureops(['apply', out, '--auto-approve'], runEnv);
    expect(applied.code, all(applied)).toBe(0);
    const live = (await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account })).body as { data: { name: string; data: { webhookUrl?: string } }[] };
    expect(live.data.find((c) => c.name === 'console-hook')?.data.webhookUrl).toBe(hostile);
    for (const r of [exported, plan, applied]) {
      expectNowhere(all(r), env.SVC_API_SECRET, 'export, plan, apply');
      expectNowhere(all(r), jobToken, 'export, plan, apply');
    }
  });
});

describe('bounded inputs', () => {
  it('a saved plan larger than the limit is refused before it is read, naming the file and the limit', async () => {
    const file = join(tmp, 'huge-plan.json');
    await writeFile(file, '{');
    // Sparse: the size of 300 MB, nothing written.
    await truncate(file, 300 * 1024 * 1024);
    const r = await postureops(['show', file], {});
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toContain(`plan file ${file} is larger than 64 MB`);
  });

  it('a plan file nested 100,000 deep is a clear diagnostic naming the file', async () => {
    const file = join(tmp, 'deep-plan.json');
    await writeFile(file, '{"formatVersion":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}');
    const r = await postureops(['show', file], {});
    expect(r.code).toBe(1);
    expect(oneLine(all(r))).toContain(`plan file ${file} nests values more than 100 deep`);
    expect(all(r)).not.toMatch(/call stack|at .*\.js:\d+/);
  });

  it.each([
    ['flow sequences', 'x: ' + '['.repeat(100_000) + ']'.repeat(100_000) + '\n'],
    ['flow mappings', 'x: ' + '{a: '.repeat(100_000) + '1' + '}'.repeat(100_000) + '\n'],
    ['block sequences on one line', 'x:\n  ' + '- '.repeat(100_000) + 'y\n'],
  ])('YAML of %s nested 100,000 deep is a clear diagnostic at file:line', async (_what, deep) => {
    const dir = await repo({ 'postureops.yaml': ROOT('[]'), 'c.yaml': CHANNEL, 'deep.yaml': `kind: AlertChannel\nname: deep\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://a.example/h\n` + deep });
    const r = await postureops(['validate', dir], {});
    expect(r.code).toBe(1);
    expect(oneLine(r.stdout)).toMatch(/deep\.yaml:\d+:\d+: error\[yaml-too-deep\]: collections nested more than 100 deep/);
    expect(all(r)).not.toMatch(/call stack|at .*\.js:\d+/);
  });
});
