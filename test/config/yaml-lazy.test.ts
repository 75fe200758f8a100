// yaml's library is loaded only when a file needs it (src/model/yaml-lib.ts): a repository the fast
// reader reads whole never loads it, one it cannot read loads it and reads the same as before. Run in a
// child process on the built code, since the test workers share their module cache.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ACTION_BUNDLE } from '../../src/github/bundle.js';
import { packageRoot } from '../../src/util/package-root.js';

const root = packageRoot();
const dist = (file: string) => pathToFileURL(join(root, 'dist', file)).href;

function loadInChild(dir: string): { loaded: boolean; accounts: unknown; errors: number } {
  const script = `
    const { loadConfig } = await import(${JSON.stringify(dist('src/config/load.js'))});
    const { yamlLoaded } = await import(${JSON.stringify(dist('src/model/yaml-lib.js'))});
    const r = await loadConfig(${JSON.stringify(dir)}, { env: {} });
    process.stdout.write(JSON.stringify({ loaded: yamlLoaded(), accounts: r.state?.root.accounts, errors: r.diagnostics.filter((d) => d.severity === 'error').length }));
  `;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as { loaded: boolean; accounts: unknown; errors: number };
}

describe('yaml loaded on first use', () => {
  it('is not loaded for files the fast reader reads, and reads the others as before', () => {
    const dir = mkdtempSync(join(tmpdir(), 'postureops-yaml-lazy-'));
    try {
      writeFileSync(join(dir, 'postureops.yaml'), 'accounts:\n  - name: prod\n  - name: staging\ndefaults:\n  account: prod\n');
      expect(loadInChild(dir)).toEqual({ loaded: false, accounts: [{ name: 'prod', orgAccess: false }, { name: 'staging', orgAccess: false }], errors: 0 });
      // A flow mapping over two lines is beyond the fast reader: yaml reads it.
      writeFileSync(join(dir, 'postureops.yaml'), 'accounts: [{name: prod},\n  {name: staging}]\ndefaults: {account: prod}\n');
      expect(loadInChild(dir)).toEqual({ loaded: true, accounts: [{ name: 'prod', orgAccess: false }, { name: 'staging', orgAccess: false }], errors: 0 });
      // And a file yaml reports a problem in is reported as before.
      writeFileSync(join(dir, 'postureops.yaml'), 'accounts:\n  - name: prod\naccounts: []\n');
      expect(loadInChild(dir)).toMatchObject({ loaded: true, errors: 1 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is bundled into the Action, not required from disk at run time', () => {
    const bundle = readFileSync(join(root, ACTION_BUNDLE), 'utf8');
    expect(bundle).not.toMatch(/\(\s*["']yaml["']\s*\)/);
  });
});
