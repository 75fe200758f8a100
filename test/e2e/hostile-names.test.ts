// Hostile names through the real CLI: live records whose names (and who changed them) carry escape
// sequences, CR, bidi overrides, newlines followed by workflow commands and mentions, a file whose
// description does the same, and a service error message quoting such names. plan and apply, with
// and without colour: stdout and stderr hold no raw control character and no workflow command, and
// the JSON plan gives every name back exactly.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { expectNoWorkflowCommands, expectTerminalSafe, HOSTILE } from '../fixtures/hostile.js';
import { cli, rawApi, serviceEnv, type CliResult } from './harness.js';

const SLACK = 'https://hooks.slack.com/services/T0/B0/hostile';
/** The service refuses names with line breaks; the pass-through seed does not (a proxy or another service might). */
const VALID = HOSTILE.filter((h) => /^(?!^ +$).+$/.test(h) && !/[\u2028\u2029]/.test(h));

let emu: RunningEmulator;
const env = () => ({ ...serviceEnv(emu), SLACK_URL: SLACK });
const dirs: string[] = [];

beforeAll(async () => {
  emu = await startEmulator({ accounts: ['hx0', 'hx1', 'hx2'], rateLimit: 100_000 });
});
afterAll(async () => {
  await emu.close();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/**
 * An account holding every hostile name: seeded records (listed as given), a channel created through
 * the API with a rule that uses it (deleting the channel gets a 409 that quotes both names), and a
 * repository that declares one rule with a hostile description and prunes alert channels.
 */
async function hostileAccount(account: string): Promise<string> {
  emu.seed(
    account,
    'AlertChannels',
    HOSTILE.map((h, i) => ({ intgGuid: `${account.toUpperCase()}_H${i}`, name: h, type: 'SlackChannel', enabled: 1, createdOrUpdatedBy: h, data: { slackUrl: SLACK } })),
  );
  const used = `used-${VALID[0]}`;
  const channel = await rawApi(emu, 'POST', '/api/v2/AlertChannels', { account, body: { name: used, type: 'SlackChannel', enabled: 1, data: { slackUrl: SLACK } } });
  expect(channel.status).toBe(201);
  const rule = await rawApi(emu, 'POST', '/api/v2/AlertRules', {
    account,
    body: { type: 'Event', intgGuidList: [channel.body.data.intgGuid], filters: { name: VALID[1], enabled: 1, severity: [1], eventCategory: ['Cloud'], description: 'kept' } },
  });
  expect(rule.status, JSON.stringify(rule.body)).toBe(201);
  const dir = await mkdtemp(join(tmpdir(), 'postureops-hostile-'));
  dirs.push(dir);
  await writeFile(join(dir, 'postureops.yaml'), `accounts:\n  - name: ${account}\nprune: {AlertChannel: true}\nvariables: [SLACK_URL]\n`);
  // YAML's double-quoted escapes: the file itself carries ESC, CR, a bidi override and a command line.
  await writeFile(
    join(dir, 'rules.yaml'),
    `kind: AlertChannel\nname: declared\nspec:\n  type: SlackChannel\n  data:\n    slackUrl: \${env:SLACK_URL}\n---\n` +
      'kind: AlertRule\nname: "file-\\e[2J-\\u202e-@octocat"\nspec:\n  channels: [declared]\n  severity: [critical]\n  eventCategory: [Cloud]\n  description: "one\\r\\n::set-output name=x::y\\n\\e]8;;https://evil.example/\\a-two"\n',
  );
  return dir;
}

function expectInert(r: CliResult, what: string, colour: boolean): void {
  for (const [stream, text] of [
    ['stdout', r.stdout],
    ['stderr', r.stderr],
  ] as const) {
    expectTerminalSafe(text, `${what} ${stream}`, colour);
    expectNoWorkflowCommands(text, `${what} ${stream}`);
  }
}

const COLOUR = { NO_COLOR: undefined, FORCE_COLOR: '1' };

describe('hostile names through plan and apply', () => {
  // The plans read an account of their own: the applies change theirs, in whatever order tests run.
  let dir0: string;
  let dir1: string;
  let dir2: string;
  beforeAll(async () => {
    [dir0, dir1, dir2] = await Promise.all([hostileAccount('hx0'), hostileAccount('hx1'), hostileAccount('hx2')]);
  });

  it('plan, without and with colour: every name shown escaped, nothing raw', async () => {
    // Refused (exit 3): it deletes most channels, one of them still used; the refusal names them too.
    const plain = await cli(['plan', dir0], { env: env() });
    expect(plain.code, plain.stderr).toBe(3);
    expectInert(plain, 'plan NO_COLOR', false);
    expect(plain.stdout).toContain('esc-\\x1b[31mred\\x1b[0m');
    expect(plain.stdout).toContain('n1\\n::set-output name=x::y');
    expect(plain.stdout).toContain('bidi-\\u202eevil');
    expect(plain.stdout).toContain('file-\\x1b[2J-\\u202e-@octocat');
    expect(plain.stdout).not.toContain('\u001b');
    const coloured = await cli(['plan', dir0], { env: { ...env(), ...COLOUR } });
    expect(coloured.code, coloured.stderr).toBe(3);
    expect(coloured.stdout).toContain('\u001b[31m'); // colour is on, and ours survives
    expectInert(coloured, 'plan colour', true);
  });

  it('plan --format json gives back every live name exactly', async () => {
    const r = await cli(['plan', dir0, '--format', 'json'], { env: env() });
    expect(r.code, r.stderr).toBe(3);
    expectInert(r, 'plan json', false);
    const names = JSON.parse(r.stdout).changes.map((c: { name: string }) => c.name);
    for (const h of HOSTILE) expect(names).toContain(h);
    expect(names).toContain('file-\u001b[2J-\u202e-@octocat');
  });

  for (const [account, colour] of [
    ['hx1', false],
    ['hx2', true],
  ] as const) {
    it(`apply${colour ? ' with colour' : ' with NO_COLOR'}: the report, the failures and the service's message quoting the names, all inert`, async () => {
      const dir = account === 'hx1' ? dir1 : dir2;
      // The rehearsal meets the refusal first (nothing written): its line and the refusal are inert too.
      const rehearsed = await cli(['apply', dir, '--auto-approve', '--force'], { env: { ...env(), ...(colour ? COLOUR : {}) } });
      expect(rehearsed.code, rehearsed.stderr).toBe(3);
      expectInert(rehearsed, `apply ${account} (rehearsed)`, colour);
      expect(rehearsed.stdout).toMatch(/rehearsal refused delete/);
      expect(rehearsed.stdout).toMatch(/is used by alert rule/);
      const r = await cli(['apply', dir, '--auto-approve', '--force', '--no-rehearse'], { env: { ...env(), ...(colour ? COLOUR : {}) } });
      // The channel the unmanaged rule uses cannot be deleted: the service says so, quoting both names.
      expect(r.code, r.stderr).toBe(1);
      expectInert(r, `apply ${account}`, colour);
      expect(r.stdout).toMatch(/is used by alert rule/);
      expect(r.stdout).toContain('cr-overwrite\\rApply: 0 failed');
      if (colour) expect(r.stdout).toContain('\u001b[1m');
      else expect(r.stdout).not.toContain('\u001b');
    });
  }
});
