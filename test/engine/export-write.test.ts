import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExportError, writeExport } from '../../src/ops/export/export.js';

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
    .filter((e) => e.isFile())
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

  it('refuses a folder that is not empty unless forced, and then replaces its contents whole', async () => {
    const out = join(root, 'out');
    await mkdir(join(out, 'old'), { recursive: true });
    await writeFile(join(out, 'old', 'stale.yaml'), 'x');
    await expect(writeExport(out, result)).rejects.toThrow(`cannot export to ${out}: the folder is not empty (use --force to replace its contents)`);
    await expect(writeExport(out, result)).rejects.toMatchObject({ name: 'ExportError', code: 'target-not-empty' });
    expect(await tree(out)).toEqual(['old/stale.yaml']);

    await writeExport(out, result, { force: true });
    expect(await tree(out)).toEqual(['postureops.yaml', 'prod/alert-channels.yaml']);
    expect(await readdir(root)).toEqual(['out']);
  });

  it('leaves the target as it was and removes its temp folder when a write fails', async () => {
    const out = join(root, 'out');
    await mkdir(out);
    await writeFile(join(out, 'keep.yaml'), 'keep');
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
    expect(await readdir(out)).toEqual(['postureops.yaml', 'prod']);
  });

  it('with force, replaces the contents (hidden entries too) and keeps the folder and its mode', async () => {
    const out = join(root, 'full');
    await mkdir(join(out, 'old'), { recursive: true });
    await writeFile(join(out, 'old', 'stale.yaml'), 'x');
    await writeFile(join(out, '.hidden'), 'x');
    await chmod(out, 0o711);
    const before = await stat(out);
    await writeExport(out, result, { force: true });
    const after = await stat(out);
    expect(after.mode & 0o7777).toBe(0o711);
    expect(after.ino).toBe(before.ino);
    expect((await readdir(out)).sort()).toEqual(['postureops.yaml', 'prod']);
  });

  it('puts the old contents back and leaves nothing of its own when a file cannot be written', async () => {
    const out = join(root, 'out');
    await mkdir(out);
    await writeFile(join(out, 'keep.yaml'), 'keep');
    const broken = { files: [...result.files, { path: 'prod/bad\0name.yaml', content: 'x' }] };
    const err = await writeExport(out, broken, { force: true }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(new RegExp(`^cannot export to ${out}: cannot write "prod/bad\\\\u0000name.yaml" \\(\\w+\\); nothing was written$`));
    expect((err as Error).message).not.toContain('postureops-tmp');
    expect(await readdir(out)).toEqual(['keep.yaml']);
  });
});
