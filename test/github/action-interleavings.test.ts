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

// Two stories, each with accounts of its own, so that neither depends on the other (or on their order)
// and each stays far from the timeout on a loaded machine: about 5 runs of the bundle each.
const STORY_A = ['ia1', 'ia2', 'ia3'];
const STORY_B = ['ib1', 'ib2', 'ib3'];
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
  [emu, gh] = await Promise.all([startEmulator({ accounts: [...STORY_A, ...STORY_B], rateLimit: 100_000 }), startFakeGithub()]);
  // Applies find a released lease (as after an earlier apply): taken at once.
  await releasedLeases(emu, [...STORY_A, ...STORY_B]);
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

/** A workspace whose main holds a channel per account at v0, applied once (each account records it). */
async function appliedBase(accounts: readonly string[]): Promise<{ ws: string; c0: string; first: ActionResult }> {
  const ws = mkdtempSync(join(tmpdir(), 'postureops-ws-'));
  writeFiles(join(ws, 'posture'), {
    'postureops.yaml': `accounts:\n${accounts.map((a) => `  - name: ${a}\n`).join('')}defaults:\n  account: ${accounts[0]}\nvariables: [SLACK_URL, HOOK_URL]\n`,
    ...Object.fromEntries(accounts.map((a) => [`${a}.yaml`, hook(a, 'v0')])),
  });
  git(ws, 'init', '-q');
  git(ws, 'add', '-A');
  git(ws, 'commit', '-q', '-m', 'base');
  const c0 = git(ws, 'rev-parse', 'HEAD');
  const mark = proxy.writes.length;
  const first = await apply(ws, c0, '0'.repeat(40));
  expect(first.code, first.stdout).toBe(0);
  expect(first.stdout).toContain(`recorded commit ${c0.slice(0, 7)} as the last applied commit of 3 account(s) (${accounts.join(', ')})`);
  expect(proxy.channelWrites(mark), JSON.stringify(proxy.writes)).toEqual(accounts.map((a) => `${a} POST`));
  return { ws, c0, first };
}

/** Each account's channel written once per merged change of it (the first apply's create included), never twice. */
function writesPerAccount(accounts: readonly string[]): number[] {
  return accounts.map((a) => proxy.channelWrites().filter((w) => w.startsWith(`${a} `)).length);
}

describe('every merged change is applied, whatever GitHub cancels, fails or runs in between', () => {
  it('three quick merges with the second cancelled while pending and a drift run alongside: the next run applies the cancelled change too', async () => {
    // The first apply finds no record: every account, and says so; then each account records c0.
    const { ws, c0, first } = await appliedBase(STORY_A);
    expect(first.stdout).toContain('planning every resource of ia1 (no record of a successful apply), ia2 (no record of a successful apply), ia3 (no record of a successful apply)');
    const group = new Group();

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
    expect(writesPerAccount(STORY_A)).toEqual([2, 2, 2]);
  });

  it('a failed account is retried by the next push, a re-run does nothing, and the records stay the tool\'s own', async () => {
    const { ws, c0 } = await appliedBase(STORY_B);

    // c4 changes ib1 and ib2; the service refuses ib2's write: ib1 is applied and recorded, ib2 not.
    const c4 = merge(ws, { ib1: 'v4', ib2: 'v4' });
    proxy.failIn = 'ib2';
    let mark = proxy.writes.length;
    const r4 = await apply(ws, c4, c0).finally(() => (proxy.failIn = undefined));
    expect(r4.code).not.toBe(0);
    expect(r4.outputs.status).toBe('apply-failed');
    expect(r4.stdout).toMatch(/recorded commit [0-9a-f]{7} as the last applied commit of 1 account\(s\) \(ib1\); not of ib2 \(1 change\(s\) not done\): the next apply covers them again/);
    expect(proxy.channelWrites(mark)).toEqual([`ib1 ${UPDATE}`]);
    expect(r4.summary.replace(/\\/g, '')).toContain('as the last applied commit of 1 account(s) (ib1); not of ib2 (1 change(s) not done)');

    // c5 changes ib3 only: its run retries ib2 (from its record, c0) and leaves ib1 alone.
    const c5 = merge(ws, { ib3: 'v5' });
    mark = proxy.writes.length;
    const r5 = await apply(ws, c5, c4);
    expect(r5.code, r5.stdout).toBe(0);
    expect(proxy.channelWrites(mark)).toEqual([`ib2 ${UPDATE}`, `ib3 ${UPDATE}`]);
    expect(await converged(ws)).toEqual({ code: 0, unmanaged: 0 });

    // A re-run of c5 (or a stale run after it): every account is recorded at c5, nothing is planned or written.
    mark = proxy.writes.length;
    const again = await apply(ws, c5, c4);
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain('0 of 3 accounts planned');
    expect(proxy.writes.slice(mark).filter((w) => w.status < 300)).toEqual([]);

    // The records are the tool's own: an export of an account holds none of them (nor the plan, above: unmanaged 0).
    const profiles = await rawApi(emu, 'GET', '/api/v2/AlertProfiles', { account: 'ib2' });
    expect(JSON.stringify(profiles.body)).toContain(`postureops-applied/1 commit=${c5}`);
    const out = mkdtempSync(join(tmpdir(), 'postureops-export-'));
    const exported = await cli(['export', '--out', out, '--account', 'ib2'], { env: env() });
    expect(exported.code, exported.stderr).toBe(0);
    const files = readdirSync(out, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((f) => readFileSync(join(out, f), 'utf8').includes('POSTUREOPS_'))).toEqual([]);
    expect(writesPerAccount(STORY_B)).toEqual([2, 2, 2]);
  });
});
