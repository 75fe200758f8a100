// No merged change left unapplied: the bundled Action on pushes to the default branch, run the way
// GitHub runs the example apply workflow (one concurrency group, cancel-in-progress: false, so one run
// at a time and one pending, a newer pending run cancelling the older), with drift runs in a group of
// their own, against the emulator behind a recording proxy (which can fail the writes of one account).
// Every merged change ends up applied, and none twice.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { cli, rawApi, releasedLeases } from '../e2e/harness.js';
import { runBundle, writeFiles, type ActionResult } from './action-harness.js';
import { startFakeGithub, type FakeGithub } from './fake-github.js';

const ACCOUNTS = ['ia1', 'ia2', 'ia3'];
/** How the client updates a channel. */
const UPDATE = 'PATCH';
const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const git = (cwd: string, ...args: string[]): string => execFileSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' }).trim();

interface Write {
  method: string;
  path: string;
  account: string;
  status: number;
}

/** Forwards to the emulator; records every write; answers 400 to the writes of `failIn` to channels. */
class Proxy {
  readonly writes: Write[] = [];
  failIn?: string;
  private server?: Server;
  url = '';
  constructor(private readonly target: string) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const account = String(req.headers['account-name'] ?? '');
    const method = req.method ?? 'GET';
    const write = method !== 'GET' && !req.url!.includes('/access/tokens') && !req.url!.endsWith('/search');
    if (write && this.failIn === account && req.url!.includes('/AlertChannels')) {
      this.writes.push({ method, path: req.url!, account, status: 400 });
      res.writeHead(400, { 'content-type': 'application/json', date: new Date().toUTCString() }).end(JSON.stringify({ message: 'injected failure' }));
      return;
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k))) as Record<string, string>;
    const answer = await fetch(this.target + req.url, { method, headers, ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}) });
    const body = Buffer.from(await answer.arrayBuffer());
    if (write) this.writes.push({ method, path: req.url!, account, status: answer.status });
    const out: Record<string, string> = {};
    answer.headers.forEach((v, k) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k)) out[k] = v;
    });
    res.writeHead(answer.status, out).end(body);
  }

  /** Successful writes to the user's channels (the lease and the applied record are profiles). */
  channelWrites(from = 0): string[] {
    return this.writes
      .slice(from)
      .filter((w) => w.status < 300 && w.path.includes('/AlertChannels'))
      .map((w) => `${w.account} ${w.method}`)
      .sort();
  }

  close(): Promise<void> {
    return new Promise((r) => this.server!.close(() => r()));
  }
}

/** One concurrency group as GitHub runs it with cancel-in-progress: false: one running, one pending. */
class Group {
  running?: string;
  pending?: string;
  readonly cancelled: string[] = [];
  enqueue(sha: string): void {
    if (this.running === undefined) this.running = sha;
    else {
      if (this.pending !== undefined) this.cancelled.push(this.pending);
      this.pending = sha;
    }
  }
  /** The running run finished: the pending one starts. */
  next(): string | undefined {
    this.running = this.pending;
    this.pending = undefined;
    return this.running;
  }
}

let emu: RunningEmulator;
let gh: FakeGithub;
let proxy: Proxy;

beforeAll(async () => {
  [emu, gh] = await Promise.all([startEmulator({ accounts: ACCOUNTS, rateLimit: 100_000 }), startFakeGithub()]);
  // Applies find a released lease (as after an earlier apply): taken at once.
  await releasedLeases(emu, ACCOUNTS);
  proxy = new Proxy(emu.url);
  await proxy.start();
});
afterAll(async () => {
  await Promise.all([emu.close(), gh.close(), proxy.close()]);
});

const env = () => ({ SVC_BASE_URL: proxy.url, SVC_API_KEY_ID: emu.keyId, SVC_API_SECRET: emu.secret });
const hook = (account: string, version: string) =>
  `kind: AlertChannel\nname: hook-${account}\naccount: ${account}\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/${account}/${version}\n`;

/** A merge to main changing the given accounts' channel; returns its commit. */
function merge(ws: string, changes: Record<string, string>): string {
  git(ws, 'checkout', '-q', 'main');
  writeFiles(join(ws, 'posture'), Object.fromEntries(Object.entries(changes).map(([a, v]) => [`${a}.yaml`, hook(a, v)])));
  git(ws, 'commit', '-qam', `change ${Object.keys(changes).join(', ')}`);
  return git(ws, 'rev-parse', 'HEAD');
}

/** The apply workflow's run of a push: the checkout at its commit, the push's payload. */
async function apply(ws: string, sha: string, before: string): Promise<ActionResult> {
  git(ws, 'checkout', '-q', '--detach', sha);
  const r = await runBundle({
    workspace: ws,
    eventName: 'push',
    payload: { ref: 'refs/heads/main', before, after: sha, repository: { default_branch: 'main' } },
    ref: 'refs/heads/main',
    sha,
    inputs: { directory: 'posture', mode: 'apply' },
    env: env(),
    apiUrl: gh.url,
  });
  git(ws, 'checkout', '-q', 'main');
  return r;
}

function drift(ws: string): Promise<ActionResult> {
  return runBundle({ workspace: ws, eventName: 'schedule', payload: {}, ref: 'refs/heads/main', inputs: { directory: 'posture', mode: 'drift' }, env: env(), apiUrl: gh.url });
}

/** The live state of every account equals main's files: the plan of main has no change. */
async function converged(ws: string): Promise<{ code: number; unmanaged: number }> {
  const r = await cli(['plan', join(ws, 'posture'), '--detailed-exitcode', '--format', 'json'], { env: env() });
  return { code: r.code, unmanaged: (JSON.parse(r.stdout) as { summary: { unmanaged: number } }).summary.unmanaged };
}

describe('every merged change is applied, whatever GitHub cancels, fails or runs in between', () => {
  it('three quick merges with the second cancelled while pending, a drift run alongside, a failed account retried by the next push, a re-run that does nothing', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'postureops-ws-'));
    writeFiles(join(ws, 'posture'), {
      'postureops.yaml': `accounts:\n${ACCOUNTS.map((a) => `  - name: ${a}\n`).join('')}defaults:\n  account: ia1\nvariables: [SLACK_URL, HOOK_URL]\n`,
      ...Object.fromEntries(ACCOUNTS.map((a) => [`${a}.yaml`, hook(a, 'v0')])),
    });
    git(ws, 'init', '-q');
    git(ws, 'add', '-A');
    git(ws, 'commit', '-q', '-m', 'base');
    const c0 = git(ws, 'rev-parse', 'HEAD');
    const group = new Group();

    // The first apply finds no record: every account, and says so; then each account records c0.
    const first = await apply(ws, c0, '0'.repeat(40));
    expect(first.code, first.stdout).toBe(0);
    expect(first.stdout).toContain('planning every resource of ia1 (no record of a successful apply), ia2 (no record of a successful apply), ia3 (no record of a successful apply)');
    expect(first.stdout).toContain(`recorded commit ${c0.slice(0, 7)} as the last applied commit of 3 account(s) (ia1, ia2, ia3)`);
    expect(proxy.channelWrites(), JSON.stringify(proxy.writes)).toEqual(["ia1 POST", "ia2 POST", "ia3 POST"]);

    // Three quick merges: c1's run starts; c2's waits; c3's replaces c2's pending run (GitHub cancels it).
    const c1 = merge(ws, { ia1: 'v1' });
    group.enqueue(c1);
    const c2 = merge(ws, { ia2: 'v2' });
    group.enqueue(c2);
    const c3 = merge(ws, { ia3: 'v3' });
    group.enqueue(c3);
    expect(group.cancelled).toEqual([c2]);

    // A drift run (its own group) while c1 applies: it reports, and changes nothing.
    const driftWs = mkdtempSync(join(tmpdir(), 'postureops-ws-'));
    git(driftWs, 'clone', '-q', ws, '.');
    let mark = proxy.writes.length;
    const [r1, d] = await Promise.all([apply(ws, group.running!, c0), drift(driftWs)]);
    expect(r1.code, r1.stdout).toBe(0);
    expect(d.code, d.stdout).toBe(0);
    expect(d.outputs.mode).toBe('drift');
    expect(proxy.channelWrites(mark)).toEqual([`ia1 ${UPDATE}`]);

    // c3's run: its push range is c2..c3 (ia3 alone), yet it applies c2's change of ia2 as well.
    expect(group.next()).toBe(c3);
    mark = proxy.writes.length;
    const r3 = await apply(ws, c3, c2);
    expect(r3.code, r3.stdout).toBe(0);
    expect(r3.stdout).toContain('Scope (--changed-since last-applied');
    expect(proxy.channelWrites(mark)).toEqual([`ia2 ${UPDATE}`, `ia3 ${UPDATE}`]);
    expect(await converged(ws)).toEqual({ code: 0, unmanaged: 0 });

    // c4 changes ia1 and ia2; the service refuses ia2's write: ia1 is applied and recorded, ia2 not.
    const c4 = merge(ws, { ia1: 'v4', ia2: 'v4' });
    proxy.failIn = 'ia2';
    mark = proxy.writes.length;
    const r4 = await apply(ws, c4, c3);
    proxy.failIn = undefined;
    expect(r4.code).not.toBe(0);
    expect(r4.outputs.status).toBe('apply-failed');
    expect(r4.stdout).toMatch(/recorded commit [0-9a-f]{7} as the last applied commit of 1 account\(s\) \(ia1\); not of ia2 \(1 change\(s\) not done\): the next apply covers them again/);
    expect(proxy.channelWrites(mark)).toEqual([`ia1 ${UPDATE}`]);
    expect(r4.summary.replace(/\\/g, '')).toContain('as the last applied commit of 1 account(s) (ia1); not of ia2 (1 change(s) not done)');

    // c5 changes ia3 only: its run retries ia2 (from its record, c3) and leaves ia1 alone.
    const c5 = merge(ws, { ia3: 'v5' });
    mark = proxy.writes.length;
    const r5 = await apply(ws, c5, c4);
    expect(r5.code, r5.stdout).toBe(0);
    expect(proxy.channelWrites(mark)).toEqual([`ia2 ${UPDATE}`, `ia3 ${UPDATE}`]);
    expect(await converged(ws)).toEqual({ code: 0, unmanaged: 0 });

    // A re-run of c5 (or a stale run after it): every account is recorded at c5, nothing is planned or written.
    mark = proxy.writes.length;
    const again = await apply(ws, c5, c4);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain('0 of 3 accounts planned');
    expect(proxy.writes.slice(mark).filter((w) => w.status < 300)).toEqual([]);

    // The records are the tool's own: an export of an account holds none of them (nor the plan, above: unmanaged 0).
    const profiles = await rawApi(emu, 'GET', '/api/v2/AlertProfiles', { account: 'ia2' });
    expect(JSON.stringify(profiles.body)).toContain(`postureops-applied/1 commit=${c5}`);
    const out = mkdtempSync(join(tmpdir(), 'postureops-export-'));
    const exported = await cli(['export', '--out', out, '--account', 'ia2'], { env: env() });
    expect(exported.code, exported.stderr).toBe(0);
    const files = readdirSync(out, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((f) => readFileSync(join(out, f), 'utf8').includes('POSTUREOPS_'))).toEqual([]);

    // Over the whole story: each account's channel written once per merged change of it, never twice.
    const perAccount = (a: string) => proxy.channelWrites().filter((w) => w.startsWith(`${a} `)).length;
    expect([perAccount('ia1'), perAccount('ia2'), perAccount('ia3')]).toEqual([3, 3, 3]);
  });
});
