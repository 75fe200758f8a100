// Issue 9, items 1 and 6, through the real CLI against one emulator: literal secrets the service
// returns in clear (accepted with a warning, masked everywhere, planned, saved, applied), the
// `secrets.literals` policy, write-only literals still refused, `.env` beside the root and
// --dotenv with the environment winning, and `export --dotenv-out` planning to no changes.

import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { ClientOptions } from '../../src/api/options.js';
import { bareExamples, cli, type CliResult, EXAMPLES, rawApi, serviceEnv } from './harness.js';

const SLACK = 'https://hooks.slack.com/services/T0LIT/B0LIT/Lit3ralSlackT0ken9q';
const SLACK_2 = 'https://hooks.slack.com/services/T0LIT/B0LIT/R0tatedSlackT0ken7w';
const HOOK_A = 'https://alerts.internal.example/hook/a';
const HOOK_B = 'https://alerts.internal.example/hook/b';

const ROOT = (extra = '') => `accounts:\n  - name: prod\nvariables: [SLACK_URL, HOOK_*]\n${extra}`;
const channels = (slack: string) => `kind: AlertChannel
name: hook-a
spec:
  type: Webhook
  data:
    webhookUrl: ${HOOK_A}
---
kind: AlertChannel
name: hook-b
spec:
  type: Webhook
  data:
    webhookUrl: ${HOOK_B}
---
kind: AlertChannel
name: ops-slack
spec:
  type: SlackChannel
  data:
    slackUrl: ${slack}
`;

async function repo(dir: string, files: Record<string, string>): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

const all = (r: CliResult) => r.stdout + r.stderr;

describe('secrets written in files, and .env files, end to end', () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let tmp: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ['prod'] });
    tmp = await mkdtemp(join(tmpdir(), 'postureops-secrets-'));
    env = serviceEnv(emu);
  });
  afterAll(async () => {
    await emu?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  async function liveChannel(name: string): Promise<Record<string, unknown> | undefined> {
    const res = await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' });
    return (res.body.data as { name: string; data: Record<string, unknown> }[]).find((c) => c.name === name)?.data;
  }

  it('literal webhook URLs and a literal Slack URL: one warning, plan, saved plan, apply, no changes; the Slack URL never shown', async () => {
    const dir = await repo(join(tmp, 'literal'), { 'postureops.yaml': ROOT(), 'channels.yaml': channels(SLACK) });

    const valid = await cli(['validate', dir, '--format', 'json'], { env });
    expect(valid.code, all(valid)).toBe(0);
    const diagnostics = JSON.parse(valid.stdout).diagnostics ?? JSON.parse(valid.stdout);
    expect(diagnostics).toMatchObject([{ severity: 'warning', code: 'secret-literal', line: 20, field: '/spec/data/slackUrl' }]);
    expect(diagnostics).toHaveLength(1);
    expect(all(valid)).not.toContain(SLACK);

    const planFile = join(tmp, 'literal.plan.json');
    const outputs: string[] = [];
    for (const format of ['text', 'json', 'markdown']) {
      const planned = await cli(['plan', dir, '--format', format, '--verbose', '--detailed-exitcode', ...(format === 'json' ? ['--out', planFile] : [])], { env });
      expect(planned.code, all(planned)).toBe(2);
      outputs.push(all(planned));
    }
    // The webhook URLs are ordinary values: shown. The Slack URL is masked.
    expect(outputs[0]).toContain(HOOK_A);
    expect(outputs[0]).toContain('(sensitive)');
    for (const out of outputs) expect(out).not.toContain(SLACK);
    expect((await stat(planFile)).mode & 0o777).toBe(0o600);
    const saved = await readFile(planFile, 'utf8');
    expect(saved).not.toContain(SLACK);
    expect(saved).toContain('"$literal"');

    const applied = await cli(['apply', dir, '--plan', planFile, '--auto-approve', '--verbose', '--format', 'json'], { env });
    expect(applied.code, all(applied)).toBe(0);
    expect(all(applied)).not.toContain(SLACK);
    expect(JSON.parse(applied.stdout).summary).toMatchObject({ done: 3, failed: 0 });
    // The service got the value from the repository, not a mask.
    expect((await liveChannel('ops-slack'))?.slackUrl).toBe(SLACK);
    expect((await liveChannel('hook-a'))?.webhookUrl).toBe(HOOK_A);

    const again = await cli(['plan', dir, '--detailed-exitcode'], { env });
    expect(again.code, all(again)).toBe(0);
    expect(again.stdout).toContain('No changes');

    // A changed literal: planned as a masked update, applied without a saved plan.
    await writeFile(join(dir, 'channels.yaml'), channels(SLACK_2));
    const update = await cli(['apply', dir, '--auto-approve', '--format', 'markdown'], { env });
    expect(update.code, all(update)).toBe(0);
    expect(all(update)).not.toContain(SLACK_2);
    expect((await liveChannel('ops-slack'))?.slackUrl).toBe(SLACK_2);
  });

  it('refuses a saved plan whose literal changed in the repository since (exit 3), without printing either value', async () => {
    const dir = await repo(join(tmp, 'stale'), { 'postureops.yaml': ROOT(), 'channels.yaml': channels(SLACK_2).replace(/name: (hook-a|hook-b|ops-slack)/g, 'name: stale-$1') });
    const planFile = join(tmp, 'stale.plan.json');
    expect((await cli(['plan', dir, '--out', planFile], { env })).code).toBe(0);
    await writeFile(join(dir, 'channels.yaml'), channels(SLACK).replace(/name: (hook-a|hook-b|ops-slack)/g, 'name: stale-$1'));
    const refused = await cli(['apply', dir, '--plan', planFile, '--auto-approve'], { env });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('prod/AlertChannel/stale-ops-slack');
    expect(all(refused)).not.toContain(SLACK);
    expect(all(refused)).not.toContain(SLACK_2);
    expect(await liveChannel('stale-ops-slack')).toBeUndefined();
  });

  it('secrets.literals: error refuses the Slack URL, allow silences it; a literal PagerDuty key is an error at file:line', async () => {
    const strict = await repo(join(tmp, 'strict'), { 'postureops.yaml': ROOT('secrets:\n  literals: error\n'), 'channels.yaml': channels(SLACK) });
    const refused = await cli(['validate', strict], { env });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('channels.yaml:20:');
    expect(refused.stdout).toContain('secret-literal');
    expect(all(refused)).not.toContain(SLACK);

    const quiet = await repo(join(tmp, 'quiet'), { 'postureops.yaml': ROOT('secrets:\n  literals: allow\n'), 'channels.yaml': channels(SLACK) });
    const allowed = await cli(['validate', quiet, '--format', 'json'], { env });
    expect(allowed.code, all(allowed)).toBe(0);
    expect(allowed.stdout).not.toContain('secret-literal');

    const pd = await repo(join(tmp, 'pd'), {
      'postureops.yaml': ROOT('secrets:\n  literals: allow\n'),
      'pd.yaml': 'kind: AlertChannel\nname: pd\nspec:\n  type: PagerDutyApi\n  data:\n    apiIntgKey: f00dfeedf00dfeedf00dfeedf00dfeed\n',
    });
    const pdResult = await cli(['validate', pd], { env });
    expect(pdResult.code).toBe(1);
    expect(pdResult.stdout).toContain('pd.yaml:6:17');
    expect(pdResult.stdout).toContain('secret-literal');
    expect(all(pdResult)).not.toContain('f00dfeedf00dfeed');
  });

  it('reads .env beside postureops.yaml or --dotenv, the environment winning', async () => {
    const hook = (name: string) => `kind: AlertChannel\nname: ${name}\nspec:\n  type: Webhook\n  data:\n    webhookUrl: \${env:HOOK_URL}\n`;
    const dir = await repo(join(tmp, 'dotenv'), {
      'postureops.yaml': ROOT(),
      'hook.yaml': hook('env-hook'),
      '.env': '# comment\nHOOK_URL="https://from-dotenv.example/x"\n',
    });
    const other = join(tmp, 'other.env');
    await writeFile(other, "export HOOK_URL='https://from-env-file.example/y'\n");

    expect((await cli(['validate', dir], { env })).code).toBe(0);
    expect((await cli(['validate', join(tmp, 'strict')], { env })).code).toBe(1); // no .env there: nothing read
    const missing = await cli(['validate', dir, '--dotenv', join(tmp, 'nope.env')], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('nope.env');

    expect((await cli(['apply', dir, '--auto-approve'], { env })).code).toBe(0);
    expect((await liveChannel('env-hook'))?.webhookUrl).toBe('https://from-dotenv.example/x');

    expect((await cli(['apply', dir, '--auto-approve', '--dotenv', other], { env })).code).toBe(0);
    expect((await liveChannel('env-hook'))?.webhookUrl).toBe('https://from-env-file.example/y');

    const winning = { ...env, HOOK_URL: 'https://from-environment.example/z' };
    expect((await cli(['apply', dir, '--auto-approve', '--dotenv', other], { env: winning })).code).toBe(0);
    expect((await liveChannel('env-hook'))?.webhookUrl).toBe('https://from-environment.example/z');
    expect((await cli(['plan', dir, '--detailed-exitcode'], { env: winning })).code).toBe(0);
  });

  it('a .env of the repository cannot say where the credentials go: the service address and POSTUREOPS_* come from the environment or --dotenv only', async () => {
    let hits = 0;
    const hostile = createServer((_req, res) => {
      hits++;
      res.writeHead(500).end();
    });
    await new Promise<void>((r) => hostile.listen(0, '127.0.0.1', r));
    try {
      const address = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}`;
      const hook = 'kind: AlertChannel\nname: h\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/1\n';
      const dir = await repo(join(tmp, 'hostile-dotenv'), {
        'postureops.yaml': ROOT(),
        'hook.yaml': hook,
        '.env': `SVC_BASE_URL=${address}\nPOSTUREOPS_LOG_FILE=${join(tmp, 'stolen.log')}\n`,
      });
      // The job sets the key and secret but not the address: the file's address is not taken.
      const keyOnly = { SVC_API_KEY_ID: env.SVC_API_KEY_ID, SVC_API_SECRET: env.SVC_API_SECRET };
      const res = await cli(['plan', dir], { env: keyOnly });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain('ignored POSTUREOPS_LOG_FILE, SVC_BASE_URL');
      expect(hits).toBe(0);
      await expect(stat(join(tmp, 'stolen.log'))).rejects.toThrow();
      // Named with --dotenv, the same file is the user's choice.
      // That server answers only 500: the token exchange is retried for the client's 2 minutes, on a virtual clock here.
      let t = Date.UTC(2026, 2, 1);
      const virtual = (o: ClientOptions): ClientOptions => ({ ...o, now: () => t, sleep: async (ms) => void (t += ms) });
      const named = await cli(['plan', dir, '--dotenv', join(dir, '.env')], { env: keyOnly, clientOptions: virtual });
      expect(named.stderr).not.toContain('ignored');
      expect(hits).toBeGreaterThan(0);
    } finally {
      await new Promise((r) => hostile.close(r));
    }
  });

  it("a .env of the repository cannot move postureops' own state nor give the CI's variables: the budget memory stays where the environment says", async () => {
    const poisoned = join(tmp, 'dotenv-cache');
    const dir = await repo(join(tmp, 'dotenv-process'), {
      'postureops.yaml': ROOT(),
      'hook.yaml': 'kind: AlertChannel\nname: h\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/1\n',
      '.env': `XDG_CACHE_HOME=${poisoned}\nGITHUB_TOKEN=from-the-pull-request\nnode_options=--require=/nonexistent\n`,
    });
    const res = await cli(['plan', dir, '--max-duration', '10m'], { env });
    expect(res.code, all(res)).toBe(0);
    expect(res.stderr).toContain('ignored GITHUB_TOKEN, XDG_CACHE_HOME, node_options');
    await expect(stat(poisoned)).rejects.toThrow();
  });

  it("a .env of the repository is read bounded: a symlink (to /dev/zero, to a file of the runner) or a file over the limit is a clear error, nothing read", async () => {
    const dir = await repo(join(tmp, 'dotenv-bounded'), { 'postureops.yaml': ROOT() });
    await symlink('/dev/zero', join(dir, '.env'));
    const linked = await cli(['validate', dir], { env: {} });
    expect(linked.code).toBe(1);
    expect(linked.stderr).toContain('.env: cannot read it (a symlink: the .env beside postureops.yaml must be a file of the repository)');
    await rm(join(dir, '.env'));
    await writeFile(join(dir, '.env'), `HOOK_A=${'x'.repeat(2 * 1024 * 1024)}\n`);
    const large = await cli(['validate', dir], { env: {} });
    expect(large.code).toBe(1);
    expect(large.stderr).toContain('.env: cannot read it (larger than 1048576 bytes)');
    // Named by the user, the same device is read bounded too.
    const named = await cli(['validate', dir, '--dotenv', '/dev/zero'], { env: {} });
    expect(named.code).toBe(1);
    expect(named.stderr).toContain('--dotenv /dev/zero: cannot read it (larger than 1048576 bytes)');
  });

  it('the examples validate with the documented --dotenv examples/.env.example and nothing else', async () => {
    const examples = bareExamples();
    const bare = await cli(['validate', examples], { env: {} });
    expect(bare.code).toBe(1);
    expect(bare.stdout).toContain('env-missing');
    const res = await cli(['validate', examples, '--dotenv', join(examples, '.env.example')], { env: {} });
    expect(res.code, all(res)).toBe(0);
    expect(res.stdout).not.toMatch(/warning|error/);
  });

  it('export --dotenv-out writes the values the service returns in clear (0600, never printed); the first plan on it has no changes', async () => {
    // Its own records, whatever the other tests left in the account: a Slack URL (returned in clear) and a PagerDuty key (write-only).
    const EXPORTED_SLACK = 'https://hooks.slack.com/services/T0EXP/B0EXP/Exp0rtedSlackT0ken3x';
    for (const [name, type, data] of [
      ['exported-slack', 'SlackChannel', { slackUrl: EXPORTED_SLACK }],
      ['exported-pd', 'PagerDutyApi', { apiIntgKey: 'c0ffeec0ffeec0ffeec0ffeec0ffee00' }],
    ] as const) {
      const created = await rawApi(emu, 'POST', '/api/v2/AlertChannels', { account: 'prod', body: { name, type, enabled: 1, data } });
      expect(created.status, JSON.stringify(created.body)).toBeLessThan(300);
    }
    const out = join(tmp, 'exported');
    const envFile = join(tmp, 'exported.env');
    const exported = await cli(['export', '--out', out, '--account', 'prod', '--dotenv-out', envFile], { env });
    expect(exported.code, all(exported)).toBe(0);
    expect(all(exported)).not.toContain(EXPORTED_SLACK);
    expect((await stat(envFile)).mode & 0o777).toBe(0o600);
    const text = await readFile(envFile, 'utf8');
    expect(text).toContain(`SECRET_PROD_EXPORTED_SLACK_SLACK_URL='${EXPORTED_SLACK}'`);
    expect(text).toMatch(/# write-only[^\n]*\nSECRET_PROD_EXPORTED_PD_API_INTG_KEY=postureops-placeholder:set-the-real-value\n/);
    for (const f of ['postureops.yaml', 'prod/alert-channels.yaml', 'SECRETS.md']) expect(await readFile(join(out, f), 'utf8')).not.toContain(EXPORTED_SLACK);

    const without = await cli(['plan', out, '--detailed-exitcode'], { env });
    expect(without.code).toBe(1);
    const planned = await cli(['plan', out, '--dotenv', envFile, '--detailed-exitcode'], { env });
    expect(planned.code, all(planned)).toBe(0);
    expect(all(planned)).not.toContain(EXPORTED_SLACK);

    const again = await cli(['export', '--out', join(tmp, 'exported-2'), '--account', 'prod', '--dotenv-out', envFile], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('--force');
  });
});
