import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExportError, writeExport } from '../../src/ops/export/export.js';
import { MARKER_FILE, markerText, parseMarker } from '../../src/ops/export/export-marker.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'postureops-export-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const result = {
  files: [
    { path: 'postureops.yaml', content: 'accounts:\n  - name: prod\n' },
    { path: 'prod/alert-channels.yaml', content: 'kind: AlertChannel\n' },
  ],
};

async function tree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name !== MARKER_FILE)
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

describe('writeExport', () => {
  it('writes every file into a new folder, creating missing parents, and leaves no temp folder', async () => {
    const out = join(root, 'a', 'out');
    await writeExport(out, result);
    expect(await tree(out)).toEqual(['postureops.yaml', 'prod/alert-channels.yaml']);
    expect(await readFile(join(out, 'prod/alert-channels.yaml'), 'utf8')).toBe('kind: AlertChannel\n');
    expect(await readdir(join(root, 'a'))).toEqual(['out']);
  });

  it('writes into an existing empty folder without --force', async () => {
    const out = join(root, 'empty');
    await mkdir(out);
    await writeExport(out, result);
    expect(await tree(out)).toEqual(['postureops.yaml', 'prod/alert-channels.yaml']);
  });

  it('refuses a folder that is not empty unless forced; forced, replaces a previous export whole', async () => {
    const out = join(root, 'out');
    await writeExport(out, { files: [...result.files, { path: 'old/stale.yaml', content: 'x' }] });
    await expect(writeExport(out, result)).rejects.toThrow(`cannot export to ${out}: the folder is not empty (use --force to replace a previous export)`);
    await expect(writeExport(out, result)).rejects.toMatchObject({ name: 'ExportError', code: 'target-not-empty' });
    expect(await tree(out)).toEqual(['old/stale.yaml', 'postureops.yaml', 'prod/alert-channels.yaml']);

    await writeExport(out, result, { force: true });
    expect(await tree(out)).toEqual(['postureops.yaml', 'prod/alert-channels.yaml']);
    expect(parseMarker(await readFile(join(out, MARKER_FILE), 'utf8'))).toEqual(parseMarker(markerText(result.files)));
    expect(await readdir(root)).toEqual(['out']);
  });

  it('leaves the target as it was and removes its temp folder when a write fails', async () => {
    const out = join(root, 'out');
    await writeExport(out, { files: [{ path: 'keep.yaml', content: 'keep' }] });
    const broken = { files: [...result.files, { path: 'prod/bad\0name.yaml', content: 'x' }] };
    await expect(writeExport(out, broken, { force: true })).rejects.toThrow(`cannot export to ${out}:`);
    await expect(writeExport(out, broken, { force: true })).rejects.toBeInstanceOf(ExportError);
    expect(await tree(out)).toEqual(['keep.yaml']);
    expect(await readdir(root)).toEqual(['out']);

    const fresh = join(root, 'fresh');
    await expect(writeExport(fresh, broken)).rejects.toThrow(`cannot export to ${fresh}:`);
    expect(await readdir(root)).toEqual(['out']);
  });

  it('refuses file paths that leave the folder, before writing anything', async () => {
    const out = join(root, 'out');
    await expect(writeExport(out, { files: [{ path: '../escape.yaml', content: 'x' }] })).rejects.toThrow('invalid file path "../escape.yaml"');
    await expect(writeExport(out, { files: [{ path: '/abs.yaml', content: 'x' }] })).rejects.toThrow('invalid file path');
    await expect(writeExport(out, { files: [{ path: '/abs.yaml', content: 'x' }] })).rejects.toMatchObject({ code: 'invalid-path' });
    expect(await readdir(root)).toEqual([]);
  });

  it('refuses a target that is a file', async () => {
    const file = join(root, 'file');
    await writeFile(file, 'x');
    await expect(writeExport(file, result, { force: true })).rejects.toThrow(`cannot export to ${file}: it exists and is not a folder`);
    await expect(writeExport(file, result, { force: true })).rejects.toMatchObject({ code: 'target-not-folder' });
    await expect(writeExport('/', result)).rejects.toMatchObject({ code: 'target-is-root' });
    expect(await readFile(file, 'utf8')).toBe('x');
  });
});

describe('writeExport into an existing folder (issue 11: never replace the folder)', () => {
  it('keeps the folder itself, its mode and its inode, when it is empty', async () => {
    const out = join(root, 'empty');
    await mkdir(out);
    await chmod(out, 0o750);
    const before = await stat(out);
    await writeExport(out, result);
    const after = await stat(out);
    expect(after.mode & 0o7777).toBe(0o750);
    expect(after.ino).toBe(before.ino);
    expect(await tree(out)).toEqual(['postureops.yaml', 'prod/alert-channels.yaml']);
    expect(await readdir(out)).toEqual([MARKER_FILE, 'postureops.yaml', 'prod']);
  });

  it('with force, replaces a previous export and keeps the folder and its mode', async () => {
    const out = join(root, 'full');
    await mkdir(out);
    await writeExport(out, { files: [{ path: 'old/stale.yaml', content: 'x' }] });
    await chmod(out, 0o711);
    const before = await stat(out);
    await writeExport(out, result, { force: true });
    const after = await stat(out);
    expect(after.mode & 0o7777).toBe(0o711);
    expect(after.ino).toBe(before.ino);
    expect((await readdir(out)).sort()).toEqual([MARKER_FILE, 'postureops.yaml', 'prod']);
  });

  it('puts the old contents back and leaves nothing of its own when a file cannot be written', async () => {
    const out = join(root, 'out');
    await writeExport(out, { files: [{ path: 'keep.yaml', content: 'keep' }] });
    const broken = { files: [...result.files, { path: 'prod/bad\0name.yaml', content: 'x' }] };
    const err = await writeExport(out, broken, { force: true }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(new RegExp(`^cannot export to ${out}: cannot write "prod/bad\\\\u0000name.yaml" \\(\\w+\\); nothing was written$`));
    expect((err as Error).message).not.toContain('postureops-tmp');
    expect((await readdir(out)).sort()).toEqual([MARKER_FILE, 'keep.yaml']);
  });
});

describe('the export marker (issue 29: --force replaces only a previous export)', () => {
  const good = (files: unknown) => JSON.stringify({ format: 'postureops-export', version: 1, files });
  const entry = { path: 'prod/alert-rules.yaml', bytes: 3, sha256: 'a'.repeat(64) };

  it('lists each file with its size and SHA-256, and reads back as written', () => {
    const text = markerText(result.files);
    const parsed = parseMarker(text);
    expect(parsed).toEqual(result.files.map((f) => ({ path: f.path, bytes: Buffer.byteLength(f.content), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) })));
    expect(JSON.parse(text)).toMatchObject({ format: 'postureops-export', version: 1 });
  });

  it.each<[string, string]>([
    ['it is not JSON', 'not JSON'],
    ['it is not a JSON object', 'null'],
    ['its files are not a list of at most 10000', good({})],
    ['its files are not a list of at most 10000', good(Array.from({ length: 10_001 }, (_, i) => ({ ...entry, path: `f${i}.yaml` })))],
    ['files[0].path is not a path export writes', good([{ ...entry, path: '../x.yaml' }])],
    ['files[0].path is not a path export writes', good([{ ...entry, path: '/etc/passwd' }])],
    ['files[0].path is not a path export writes', good([{ ...entry, path: 'prod/.hidden.yaml' }])],
    ['files[0].path is not a path export writes', good([{ ...entry, path: '.postureops-export.json' }])],
    ['files[0].path is not a path export writes', good([{ ...entry, path: 'a/b/c/d/e/f/g/h/i.yaml' }])],
    ['files[0].path is not a path export writes', good([{ ...entry, path: 'prod//x.yaml' }])],
    ['files[0].path is not a path export writes', good([{ ...entry, path: 7 }])],
    ['files[0].path is not a path export writes', good([null])],
    ['files[0].bytes is not a size', good([{ ...entry, bytes: -1 }])],
    ['files[0].bytes is not a size', good([{ ...entry, bytes: 1.5 }])],
    ['files[0].bytes is not a size', good([{ ...entry, bytes: '3' }])],
    ['files[0].sha256 is not a SHA-256', good([{ ...entry, sha256: 'A'.repeat(64) }])],
    ['files[0].sha256 is not a SHA-256', good([{ ...entry, sha256: 'a'.repeat(63) }])],
    ['files[1].path "prod/alert-rules.yaml" is listed twice', good([entry, entry])],
  ])('refuses a marker (case %#): %s', (why, text) => {
    const got = parseMarker(text);
    expect(typeof got).toBe('string');
    expect((got as string).startsWith(why), String(got)).toBe(true);
  });

  it('accepts the deepest path it allows and the names export writes', () => {
    expect(parseMarker(good([{ ...entry, path: 'a/b/c/d/e/f/g/h.yaml' }, { ...entry, path: 'SECRETS.md' }, { ...entry, path: '_x/a-b.c.yaml' }]))).toHaveLength(3);
  });

  it('refuses, untouched, a folder the marker does not account for: an extra folder, a symlinked folder', async () => {
    const out = join(root, 'out');
    await writeExport(out, result);
    await mkdir(join(out, 'extra'));
    await expect(writeExport(out, result, { force: true })).rejects.toThrow(`cannot export to ${out}: it holds "extra", a folder the previous export did not write: --force replaces only a previous export; nothing was written or removed`);
    await expect(writeExport(out, result, { force: true })).rejects.toMatchObject({ name: 'ExportError', code: 'target-not-export' });
    await rm(join(out, 'extra'), { recursive: true });
    const elsewhere = join(root, 'elsewhere');
    await mkdir(elsewhere);
    await writeFile(join(elsewhere, 'alert-channels.yaml'), 'kind: AlertChannel\n');
    await rm(join(out, 'prod'), { recursive: true });
    await symlink(elsewhere, join(out, 'prod'));
    await expect(writeExport(out, result, { force: true })).rejects.toThrow('it holds "prod", a symlink, which export never writes');
    expect(await readdir(elsewhere)).toEqual(['alert-channels.yaml']);
    // A file of the export that is gone is nothing to remove: the rest is replaced.
    await rm(join(out, 'prod'));
    await writeExport(out, result, { force: true });
    expect(await tree(out)).toEqual(['postureops.yaml', 'prod/alert-channels.yaml']);
  });

  it('an export never lists a file named as the marker', async () => {
    await expect(writeExport(join(root, 'm'), { files: [{ path: MARKER_FILE, content: '{}' }] })).rejects.toThrow(`invalid file path "${MARKER_FILE}"`);
  });
});
