// The bench's repository generator (reused by the scale simulation): what it writes is valid, holds
// the resources it says, in the accounts it says, and is the same every time.

import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { tempDir } from '../config/helpers.js';
import { writeRepository } from './generate.js';

async function contents(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) {
      const full = path.join(e.parentPath, e.name);
      out[path.relative(dir, full)] = await readFile(full, 'utf8');
    }
  }
  return out;
}

describe('writeRepository', () => {
  it.each([
    [1, 0],
    [1, 37],
    [7, 250],
    [10, 1000],
  ])('%i accounts, %i resources: valid, with the resources per account it reports', async (accounts, resources) => {
    const dir = await tempDir('postureops-generate-');
    const repo = await writeRepository(dir, { accounts, resources });
    const result = await loadConfig(dir, { env: repo.env, cwd: dir });
    expect(result.diagnostics).toEqual([]);
    expect(result.state?.resources.length).toBe(resources);
    expect(repo.resources).toBe(resources);
    const counted: Record<string, number> = Object.fromEntries(repo.accounts.map((a) => [a, 0]));
    for (const r of result.state!.resources) counted[r.account]++;
    expect(counted).toEqual(repo.perAccount);
    expect(Math.max(...Object.values(repo.perAccount)) - Math.min(...Object.values(repo.perAccount))).toBeLessThanOrEqual(1);
    const kinds = new Set(result.state!.resources.map((r) => r.kind));
    expect(kinds.size).toBe(resources >= 10 ? 4 : Math.min(resources, 2));
  });

  it('uses shared, paired and per-account documents, and writes the same bytes every time', async () => {
    const a = await tempDir('postureops-generate-');
    const b = await tempDir('postureops-generate-');
    const repo = await writeRepository(a, { accounts: 4, resources: 400 });
    await writeRepository(b, { accounts: 4, resources: 400 });
    const files = await contents(a);
    expect(files).toEqual(await contents(b));
    expect(Object.keys(files).filter((f) => f.endsWith('.yaml')).length).toBe(repo.files);
    const texts = Object.values(files).join('\n');
    expect(texts).toContain('account: "*"');
    expect(texts).toContain('account: [acc-000, acc-001]');
    expect(texts).toContain('account: acc-003');
    expect(repo.documents).toBeLessThan(400);
  });

  it('refuses shapes it cannot write', async () => {
    const dir = await tempDir('postureops-generate-');
    await expect(writeRepository(dir, { accounts: 0, resources: 10 })).rejects.toThrow(/accounts/);
    await expect(writeRepository(dir, { accounts: 2, resources: -1 })).rejects.toThrow(/resources/);
    await expect(writeRepository(dir, { accounts: 2, resources: 10, shared: 2 })).rejects.toThrow(/shared/);
  });
});
