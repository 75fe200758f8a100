// Export never destroys what it did not write (issue 29): `export --out DIR --force` replaces a
// previous export and nothing else. A folder holding `.git`, a file export did not write, an edited
// file, a symlink, or a marker crafted to name other paths is refused with exit 1, a message naming
// the entry, and every byte left as it was; the CLI against the emulator.

import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { MARKER_FILE } from '../../src/ops/export/export-marker.js';
import { cli, rawApi, serviceEnv } from './harness.js';

let emu: RunningEmulator;
let root: string;

beforeAll(async () => {
  emu = await startEmulator({ accounts: ['prod', 'staging'], rateLimit: 100_000 });
  root = await mkdtemp(join(tmpdir(), 'postureops-export-force-'));
  const hook = { name: 'ops-hook', type: 'Webhook', enabled: 1, data: { issueGrouping: 'Events', webhookUrl: 'https://hooks.example.com/ops' } };
  for (const account of ['prod', 'staging']) expect((await rawApi(emu, 'POST', '/api/v2/AlertChannels', { account, body: hook })).status).toBeLessThan(300);
});
afterAll(async () => {
  await emu?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

const exportTo = (out: string, ...more: string[]) => cli(['export', '--out', out, '--account', 'prod', ...more], { env: serviceEnv(emu) });

/** Every entry below `dir` (symlinks not followed): files with their content, symlinks with their target. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(e.parentPath, e.name);
    const rel = path.slice(dir.length + 1);
    const st = await lstat(path);
    out[rel] = st.isSymbolicLink() ? `-> ${await readlink(path)}` : st.isDirectory() ? '<dir>' : await readFile(path, 'utf8');
  }
  return out;
}

async function expectRefused(out: string, entry: string | RegExp): Promise<void> {
  const before = await snapshot(out);
  const r = await exportTo(out, '--force');
  expect(r.code, r.stderr).toBe(1);
  const line = r.stderr.split('\n').find((l) => l.startsWith(`postureops: cannot export to ${out}:`));
  expect(line, r.stderr).toBeDefined();
  if (typeof entry === 'string') expect(line).toContain(entry);
  else expect(line).toMatch(entry);
  expect(line).toContain('nothing was written or removed');
  expect(r.stderr).not.toMatch(/\n\s+at |postureops-tmp|postureops-old/);
  expect(await snapshot(out)).toEqual(before);
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('export --force', () => {
  it('replaces a previous export (the README flow: export, then export again with --force)', async () => {
    const out = join(root, 'previous');
    expect((await cli(['export', '--out', out, '--account', 'prod', '--account', 'staging'], { env: serviceEnv(emu) })).code).toBe(0);
    expect(Object.keys(await snapshot(out)).filter((p) => p.startsWith('staging')).length).toBeGreaterThan(0);
    const again = await exportTo(out, '--force');
    expect(again.code, again.stderr).toBe(0);
    const after = await snapshot(out);
    // The previous export's staging folder is gone; what this one wrote is there, with its marker.
    expect(Object.keys(after).filter((p) => p.startsWith('staging'))).toEqual([]);
    expect(after[join('prod', 'alert-channels.yaml')]).toContain('ops-hook');
    expect(JSON.parse(after[MARKER_FILE]).files.map((f: { path: string }) => f.path)).toContain('prod/alert-channels.yaml');
    // Without --force a previous export is still a folder that is not empty.
    const refused = await exportTo(out);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the folder is not empty (use --force to replace a previous export)');
  });

  it('refuses a folder holding .git, even beside a previous export', async () => {
    const repo = join(root, 'repo');
    await mkdir(join(repo, '.git'), { recursive: true });
    await writeFile(join(repo, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    await mkdir(join(repo, '.github', 'workflows'), { recursive: true });
    await writeFile(join(repo, '.github', 'workflows', 'ci.yml'), 'on: push\n');
    await expectRefused(repo, 'it holds ".git" (a repository): --force replaces only a previous export');

    const beside = join(root, 'beside');
    expect((await exportTo(beside)).code).toBe(0);
    await mkdir(join(beside, '.git'));
    await expectRefused(beside, '".git"');
  });

  it('refuses a folder with a file export did not write, naming it', async () => {
    const foreign = join(root, 'foreign');
    await mkdir(foreign);
    await writeFile(join(foreign, 'notes.md'), 'mine\n');
    await expectRefused(foreign, 'it holds "notes.md", and no .postureops-export.json says an export wrote it');

    const added = join(root, 'added');
    expect((await exportTo(added)).code).toBe(0);
    await writeFile(join(added, 'prod', 'my-rules.yaml'), 'kind: AlertRule\n');
    await expectRefused(added, '"prod/my-rules.yaml", which the previous export did not write');
  });

  it('refuses a previous export whose file was edited since', async () => {
    const out = join(root, 'edited');
    expect((await exportTo(out)).code).toBe(0);
    await writeFile(join(out, 'postureops.yaml'), (await readFile(join(out, 'postureops.yaml'), 'utf8')) + '# my edit\n');
    await expectRefused(out, '"postureops.yaml" changed since the previous export wrote it');
  });

  it('refuses a crafted marker that lists paths outside the folder, absolute paths or hidden ones; the files they name stay', async () => {
    const victim = join(root, 'victim.txt');
    await writeFile(victim, 'precious\n');
    for (const [i, path] of ['../victim.txt', victim, 'prod/../../victim.txt', '.git/HEAD', '', 'a\\b'].entries()) {
      const out = join(root, `crafted-${i}`);
      await mkdir(out);
      await writeFile(join(out, MARKER_FILE), JSON.stringify({ format: 'postureops-export', version: 1, files: [{ path, bytes: 9, sha256: sha('precious\n') }] }));
      await expectRefused(out, /is not one postureops wrote \(files\[0\]\.path is not a path export writes/);
    }
    expect(await readFile(victim, 'utf8')).toBe('precious\n');
  });

  it('refuses a symlink listed in the marker (to a file outside, with its very content), and a marker that is a symlink', async () => {
    const outside = join(root, 'outside.yaml');
    await writeFile(outside, 'kind: AlertRule\n');
    const out = join(root, 'linked');
    expect((await exportTo(out)).code).toBe(0);
    const marker = JSON.parse(await readFile(join(out, MARKER_FILE), 'utf8'));
    marker.files.push({ path: 'linked.yaml', bytes: 16, sha256: sha('kind: AlertRule\n') });
    await writeFile(join(out, MARKER_FILE), JSON.stringify(marker));
    await symlink(outside, join(out, 'linked.yaml'));
    await expectRefused(out, '"linked.yaml", a symlink, which export never writes');
    expect(await readFile(outside, 'utf8')).toBe('kind: AlertRule\n');

    const viaLink = join(root, 'marker-link');
    await mkdir(viaLink);
    await writeFile(join(root, 'real-marker.json'), JSON.stringify({ format: 'postureops-export', version: 1, files: [] }));
    await symlink(join(root, 'real-marker.json'), join(viaLink, MARKER_FILE));
    await expectRefused(viaLink, 'is not a file postureops wrote (a symlink)');
  });

  it('refuses a marker that is huge, of another format or version', async () => {
    const cases: [string, string][] = [
      [' '.repeat(1024 * 1024 + 1), 'it is larger than 1048576 bytes'],
      ['{"format":"other","version":1,"files":[]}', 'its format is not "postureops-export"'],
      ['{"format":"postureops-export","version":2,"files":[]}', 'its version is not 1'],
      ['[1,2]', 'it is not a JSON object'],
    ];
    for (const [i, [text, why]] of cases.entries()) {
      const out = join(root, `marker-${i}`);
      await mkdir(out);
      await writeFile(join(out, MARKER_FILE), text);
      await writeFile(join(out, 'postureops.yaml'), 'accounts: []\n');
      await expectRefused(out, why);
    }
  });
});
