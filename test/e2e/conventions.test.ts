// Issue 11, "Conventions", end to end against the emulator: what a person reads of a plan.

import { chmod, chown, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/types.js';
import { parseKeySpec, startEmulator } from '../../src/emulator/index.js';
import { explainApiError } from '../../cmd/errors.js';
import { cli, rawApi, serviceEnv } from './harness.js';

const ROOT = 'accounts:\n  - name: prod\ndefaults:\n  account: prod\n';
const CONFIG = `kind: AlertChannel
name: audit-webhook
spec:
  type: Webhook
  data:
    webhookUrl: https://audit.example.com/hook
---
kind: AlertRule
name: critical-cloud
spec:
  channels: [audit-webhook]
  severity: [critical, high]
  eventCategory: [Cloud, Compliance]
`;

describe('severity names in every rendering of a plan', () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ['prod'] });
    dir = await mkdtemp(join(tmpdir(), 'postureops-conventions-'));
    await writeFile(join(dir, 'postureops.yaml'), ROOT);
    await writeFile(join(dir, 'config.yaml'), CONFIG);
    env = serviceEnv(emu);
    const applied = await cli(['apply', dir, '--auto-approve'], { env });
    expect(applied.code, applied.stderr).toBe(0);
  });

  // Before each test (one of them applies and so converges): someone widens the rule in the
  // console, and the service answers with integers.
  beforeEach(async () => {
    const rule = (await rawApi(emu, 'GET', '/api/v2/AlertRules', { account: 'prod' })).body.data[0];
    const filters = { ...rule.filters, eventCategory: rule.filters.eventcategory, resourceGroups: [], severity: [1, 2, 3] };
    expect((await rawApi(emu, 'PATCH', `/api/v2/AlertRules/${rule.mcGuid}`, { account: 'prod', body: { filters } })).status).toBe(200);
  });

  afterAll(async () => {
    await emu?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('text and Markdown show the names the file uses, on both sides of the diff', async () => {
    for (const format of ['text', 'markdown']) {
      const res = await cli(['plan', dir, '--format', format], { env });
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toMatch(/^\s*- critical$/m);
      expect(res.stdout).toMatch(/^\s*- high$/m);
      expect(res.stdout).toMatch(/^\s*-\s+- medium$/m);
      expect(res.stdout).not.toMatch(/^\s*[-+]?\s+- [1-5]$/m);
    }
  });

  it('JSON shows the names in before, after and the diff', async () => {
    const res = await cli(['plan', dir, '--format', 'json'], { env });
    expect(res.code, res.stderr).toBe(0);
    const rule = JSON.parse(res.stdout).changes.find((c: { kind: string }) => c.kind === 'AlertRule');
    expect(rule.before.severity).toEqual(['critical', 'high', 'medium']);
    expect(rule.after.severity).toEqual(['critical', 'high']);
    expect(rule.diff).toEqual([{ op: 'remove', path: '/severity/2' }]);
  });

  it('apply still sends the integers the service takes, and converges', async () => {
    const applied = await cli(['apply', dir, '--auto-approve'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    const rule = (await rawApi(emu, 'GET', '/api/v2/AlertRules', { account: 'prod' })).body.data[0];
    expect(rule.filters.severity).toEqual([1, 2]);
    expect((await cli(['plan', dir, '--detailed-exitcode'], { env })).code).toBe(0);
  });
});

const ANSI = /\u001b\[/;
const COMMANDS = ['validate', 'plan', 'apply', 'export', 'emulator', 'demo'] as const;

describe('--no-color on every command', () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let dir: string;
  let env: Record<string, string | undefined>;

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ['prod'] });
    dir = await mkdtemp(join(tmpdir(), 'postureops-nocolor-'));
    await writeFile(join(dir, 'postureops.yaml'), ROOT);
    await writeFile(join(dir, 'config.yaml'), CONFIG);
    // For validate: an integration type postureops does not know is a warning, which it paints yellow.
    await mkdir(join(dir, 'validate'));
    await writeFile(join(dir, 'validate', 'postureops.yaml'), ROOT);
    await writeFile(join(dir, 'validate', 'config.yaml'), `${CONFIG}---\nkind: AlertChannel\nname: future\nspec:\n  type: FutureChannel\n  data: {url: https://x.example.com}\n`);
    // FORCE_COLOR asks for colour although the streams are no terminal: only --no-color can take it away.
    env = { ...serviceEnv(emu), NO_COLOR: undefined, FORCE_COLOR: '1' };
  });

  afterAll(async () => {
    await emu?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A run of `command` with `flags`; the emulator, which serves until a signal, runs as a process. */
  async function runCommand(command: (typeof COMMANDS)[number], flags: string[]): Promise<{ code: number | null; out: string }> {
    if (command === 'emulator') return runEmulator(flags);
    const args: Record<string, string[]> = {
      validate: ['validate', join(dir, 'validate')],
      plan: ['plan', dir],
      apply: ['apply', dir, '--auto-approve'],
      export: ['export', '--out', join(dir, `export-${flags.length}`), '--account', 'prod'],
      demo: ['demo'],
    };
    const res = await cli([...args[command], ...flags], { env });
    return { code: res.code, out: res.stdout + res.stderr };
  }

  it.each(COMMANDS)('%s accepts --no-color and prints no colour even with FORCE_COLOR', async (command) => {
    const res = await runCommand(command, ['--no-color']);
    expect(res.out).not.toMatch(/unknown option/);
    // The emulator is stopped by a signal once it listens: its exit code is the signal's business.
    if (command === 'emulator') expect(res.out).toContain('emulator listening on http://127.0.0.1:');
    else expect(res.code, res.out).toBe(0);
    expect(res.out).not.toMatch(ANSI);
  });

  it('without --no-color, FORCE_COLOR colours the plan and the warnings of validate (the control)', async () => {
    expect((await runCommand('plan', [])).out).toMatch(ANSI);
    expect((await runCommand('validate', [])).out).toMatch(ANSI);
  });

  it('--no-color may come before the command too', async () => {
    const res = await cli(['--no-color', 'plan', dir, '--verbose'], { env });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/API calls made/);
    expect(res.stdout).not.toMatch(ANSI);
  });
});

/** The emulator as the bin runs it: started, and stopped with SIGTERM once it says it listens. */
async function runEmulator(flags: string[]): Promise<{ code: number | null; out: string }> {
  const { spawn } = await import('node:child_process');
  const { packageRoot } = await import('../../src/util/package-root.js');
  const child = spawn(process.execPath, [join(packageRoot(), 'dist', 'cmd', 'postureops.js'), 'emulator', '--port', '0', ...flags], {
    env: { PATH: process.env.PATH ?? '', FORCE_COLOR: '1' },
  });
  let out = '';
  let stopped = false;
  const collect = (chunk: Buffer) => {
    out += chunk.toString('utf8');
    if (!stopped && out.includes('Press Ctrl-C to stop.')) {
      stopped = true;
      child.kill('SIGTERM');
    }
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const code = await new Promise<number | null>((done) => child.on('exit', (c) => done(c)));
  return { code, out };
}

describe('--help shows examples and exit codes', () => {
  it.each(COMMANDS)('%s --help: two or three examples of that command and its exit codes', async (command) => {
    const res = await cli([command, '--help']);
    expect(res.code).toBe(0);
    const [, after = ''] = res.stdout.split('\nExamples:\n');
    const [examples = '', codes = ''] = after.split('\nExit codes:\n');
    const lines = examples.split('\n').filter((l) => l.startsWith('  $ '));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.length).toBeLessThanOrEqual(3);
    expect(lines.some((l) => l.startsWith(`  $ postureops ${command}`))).toBe(true);
    expect(codes).toMatch(/^ {2}0 {2}\S/m);
    expect(codes).toMatch(/^ {2}1 {2}\S/m);
    expect(res.stdout).toContain('--no-color');
  });

  it('plan --help names the exit codes of --detailed-exitcode and of a refusal', async () => {
    const { stdout } = await cli(['plan', '--help']);
    expect(stdout).toMatch(/^ {2}2 {2}changes present/m);
    expect(stdout).toMatch(/^ {2}3 {2}refused/m);
  });

  it('the top-level help lists every exit code', async () => {
    const res = await cli(['--help']);
    expect(res.code).toBe(0);
    const codes = res.stdout.split('\nExit codes:\n')[1] ?? '';
    for (const code of [0, 1, 2, 3]) expect(codes).toMatch(new RegExp(`^ {2}${code} {2}\\S`, 'm'));
  });
});

describe('errors name the address, the variable to set and the next step', () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let dir: string;
  const noStack = /\n\s+at /;

  beforeAll(async () => {
    emu = await startEmulator({
      accounts: ['prod', 'staging'],
      keys: [parseKeySpec('STAGING_ONLY:staging-secret:sub-account-admin:staging'), parseKeySpec('READER:reader-secret:account-user:staging')],
    });
    dir = await mkdtemp(join(tmpdir(), 'postureops-errors-'));
    await writeFile(join(dir, 'postureops.yaml'), ROOT);
    await writeFile(join(dir, 'config.yaml'), CONFIG);
  });

  afterAll(async () => {
    await emu?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a refused connection names the address, SVC_BASE_URL and --base-url', async () => {
    // A port that was just free: nothing listens there.
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((done) => server.close(() => done()));
    const address = `http://127.0.0.1:${port}`;
    const res = await cli(['plan', dir], { env: { ...serviceEnv(emu), SVC_BASE_URL: address } });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(new RegExp(`cannot reach ${address.replace(/[.:/]/g, '\\$&')} \\(connection refused[;)].*: is the service address right\\? set SVC_BASE_URL or --base-url`));
    expect(res.stderr).not.toContain('ECONNREFUSED');
    expect(res.stderr).not.toMatch(noStack);
  });

  it('a TLS failure says so and names the address', async () => {
    // The emulator speaks plain HTTP: a TLS client gets no TLS answer.
    const address = emu.url.replace('http://', 'https://');
    const res = await cli(['plan', dir], { env: { ...serviceEnv(emu), SVC_BASE_URL: address } });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`cannot reach ${address} securely (`);
    expect(res.stderr).toContain('SVC_BASE_URL');
    expect(res.stderr).not.toMatch(noStack);
  });

  it('a 401 names SVC_API_KEY_ID and SVC_API_SECRET', async () => {
    const res = await cli(['plan', dir], { env: { ...serviceEnv(emu), SVC_API_SECRET: 'not-the-secret' } });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`the service at ${emu.url} refused the API key (401`);
    expect(res.stderr).toContain('check SVC_API_KEY_ID and SVC_API_SECRET');
    expect(res.stderr).not.toContain('not-the-secret');
    expect(res.stderr).not.toMatch(noStack);
  });

  it("a 403 says the key's role lacks the right for that account, and what to do", async () => {
    const env = { SVC_BASE_URL: emu.url, SVC_API_KEY_ID: 'STAGING_ONLY', SVC_API_SECRET: 'staging-secret' };
    const res = await cli(['export', '--out', join(dir, 'out'), '--account', 'prod'], { env });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/the API key's role lacks the right for account prod \(403 on GET \/api\/v2\/\w+/);
    expect(res.stderr).toContain('use a key whose role covers prod, or leave prod out with --account');
    expect(res.stderr).not.toMatch(noStack);
  });

  it("an account user's key, refused a token, is told why (the service's words), not to check its secret", async () => {
    const env = { SVC_BASE_URL: emu.url, SVC_API_KEY_ID: 'READER', SVC_API_SECRET: 'reader-secret' };
    const res = await cli(['plan', dir], { env });
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`the service at ${emu.url} refused a token for this API key (403: `);
    expect(res.stderr).toContain('use a key of an administrator');
    expect(res.stderr).not.toContain('check SVC_API_KEY_ID');
  });

  it('apply refuses before the first write when a variable the plan reads is not set', async () => {
    const repo = join(dir, 'needs-env');
    await mkdir(repo, { recursive: true });
    await writeFile(join(repo, 'postureops.yaml'), 'accounts:\n  - name: prod\nvariables: [HOOK_URL]\n');
    await writeFile(join(repo, 'hook.yaml'), 'kind: AlertChannel\nname: hook\nspec:\n  type: SlackChannel\n  data:\n    slackUrl: ${env:HOOK_URL}\n');
    const env = { ...serviceEnv(emu), HOOK_URL: 'https://hooks.slack.com/services/T0/B0/abcdefgh' };
    const saved = join(dir, 'needs-env.plan');
    expect((await cli(['plan', repo, '--out', saved], { env })).code).toBe(0);
    const { HOOK_URL: _unset, ...without } = env;
    const res = await cli(['apply', repo, '--plan', saved, '--auto-approve'], { env: without });
    expect(res.code).toBe(1);
    // apply --plan derives the changes again from the repository, which reads the variable: refused there.
    expect(res.stderr).toContain('HOOK_URL');
    expect(res.stderr).toContain('nothing was sent to the service');
    expect((await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' })).body.data.filter((c: { name: string }) => c.name === 'hook')).toEqual([]);
  });

  it('export names an account given twice once', async () => {
    const res = await cli(['export', '--out', join(dir, 'twice'), '--account', 'staging', '--account', 'staging'], { env: serviceEnv(emu) });
    expect(res.code, res.stderr).toBe(0);
  });
});

describe('explainApiError', () => {
  const base = { method: 'GET' as const, path: '/api/v2/AlertRules', address: 'https://svc.example.net' };

  it.each([
    [{ kind: 'transient', networkCode: 'ENOTFOUND' }, 'cannot reach https://svc.example.net (host name not found): is the service address right? set SVC_BASE_URL or --base-url'],
    [{ kind: 'transient', networkCode: 'ECONNRESET' }, 'cannot reach https://svc.example.net (connection reset): check the address (set SVC_BASE_URL or --base-url) and the network, then try again'],
    [{ kind: 'transient', timedOut: true }, 'cannot reach https://svc.example.net (no answer in time): check the address (set SVC_BASE_URL or --base-url) and the network, then try again'],
    [{ kind: 'permanent', networkCode: 'CERT_HAS_EXPIRED' }, 'cannot reach https://svc.example.net securely (its certificate has expired): is the service address right? set SVC_BASE_URL or --base-url; if the service uses a private certificate authority, give its certificate with NODE_EXTRA_CA_CERTS=FILE'],
    [{ kind: 'permanent', status: 403, serviceMessage: 'credentials refused', path: '/api/v2/access/tokens' }, 'the service at https://svc.example.net refused the API key (403): check SVC_API_KEY_ID and SVC_API_SECRET (the key may be disabled, or its secret rotated)'],
    [{ kind: 'permanent', status: 403, serviceMessage: 'no', account: 'prod' }, "the API key's role lacks the right for account prod (403 on GET /api/v2/AlertRules: no): use a key whose role covers prod, or leave prod out with --account"],
    [{ kind: 'permanent', status: 403 }, "the API key's role lacks the right for organization-level data (Org-Access) (403 on GET /api/v2/AlertRules): use a key of an organization administrator"],
  ] as const)('%o', (init, message) => {
    expect(explainApiError(new ApiError({ ...base, ...init }))).toBe(message);
  });

  it('leaves the errors its own message explains (a 400, a 500) alone', () => {
    expect(explainApiError(new ApiError({ ...base, kind: 'permanent', status: 400, serviceMessage: 'Invalid data' }))).toBeUndefined();
    expect(explainApiError(new ApiError({ ...base, kind: 'transient', status: 503 }))).toBeUndefined();
  });
});

describe('export into an existing folder', () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let root: string;
  const isRoot = process.getuid?.() === 0;

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ['prod'] });
    root = await mkdtemp(join(tmpdir(), 'postureops-export-folder-'));
    // Another user must be able to reach folders below it.
    await chmod(root, 0o755);
  });

  afterAll(async () => {
    await emu?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('into a folder it cannot write: a clear message naming the folder, exit 1, no stack trace, no temp path', async () => {
    const out = join(root, 'not-writable');
    await mkdir(out);
    let res: { code: number | null; stdout: string; stderr: string };
    if (isRoot) {
      // root writes everywhere: run the export as another user, for whom the folder (root's, 0755) is read-only.
      await chmod(out, 0o755);
      res = await binAs(65534, ['export', '--out', out, '--account', 'prod'], serviceEnv(emu));
    } else {
      await chmod(out, 0o555);
      res = await cli(['export', '--out', out, '--account', 'prod'], { env: serviceEnv(emu) });
    }
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`postureops: cannot export to ${out}: the folder is not writable by this user (permission denied): choose another --out, or ask the owner of ${out} for write access; nothing was written`);
    expect(res.stderr).not.toMatch(/postureops-tmp|EACCES/);
    expect(res.stderr).not.toMatch(/\n\s+at /);
    expect(await readdir(out)).toEqual([]);
  });

  it('into an existing empty folder: the folder keeps its mode', async () => {
    const out = join(root, 'mode');
    await mkdir(out);
    await chmod(out, 0o700);
    const res = await cli(['export', '--out', out, '--account', 'prod'], { env: serviceEnv(emu) });
    expect(res.code, res.stderr).toBe(0);
    expect((await stat(out)).mode & 0o7777).toBe(0o700);
    expect(await readdir(out)).toContain('postureops.yaml');
  });

  it.skipIf(!isRoot)('into an existing empty folder owned by someone else: the folder keeps its owner', async () => {
    const out = join(root, 'owned');
    await mkdir(out);
    await chown(out, 65534, 65534);
    const res = await cli(['export', '--out', out, '--account', 'prod'], { env: serviceEnv(emu) });
    expect(res.code, res.stderr).toBe(0);
    const after = await stat(out);
    expect([after.uid, after.gid]).toEqual([65534, 65534]);
    expect(await readdir(out)).toContain('postureops.yaml');
  });
});

/** The bin as another user (the test runs as root). */
async function binAs(uid: number, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { execFile } = await import('node:child_process');
  const { packageRoot } = await import('../../src/util/package-root.js');
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(packageRoot(), 'dist', 'cmd', 'postureops.js'), ...args],
      { uid, gid: uid, cwd: tmpdir(), env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env } },
      (err, stdout, stderr) => done({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}
