// What `npm pack` ships: only what a user runs. The package's `files` rules are applied by npm itself
// to a copy of package.json in a folder laid out like the repository, with the files a working copy
// has that must never ship (a filled-in examples/.env, the compiled tests).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';

const ROOT = packageRoot();
const run = promisify(execFile);
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('the npm package', () => {
  it('holds the CLI, the schemas, the examples, the action and the licence; no .env, no tests', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'postureops-pack-'));
    dirs.push(dir);
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    delete pkg.scripts;
    await writeFile(join(dir, 'package.json'), JSON.stringify(pkg));
    const files = [
      'LICENSE', 'README.md', 'action.yml', 'dist/cmd/postureops.js', 'dist/src/plan/steps/plan.js', 'dist/test/e2e/harness.js',
      'schemas/alert-rule.schema.json', 'examples/postureops.yaml', 'examples/.env', 'examples/.env.example', 'examples/prod/.env',
      'examples/.github/workflows/postureops-plan.yml', 'src/plan/steps/plan.ts', 'test/e2e/plan.test.ts', '.env', 'reports/mutation/mutation.json',
    ];
    for (const f of files) {
      await mkdir(dirname(join(dir, f)), { recursive: true });
      await writeFile(join(dir, f), f.endsWith('.json') ? '{}' : 'x\n');
    }
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir, env: { ...process.env, npm_config_loglevel: 'silent' } });
    const packed = (JSON.parse(stdout) as { files: { path: string }[] }[])[0].files.map((f) => f.path).sort();
    expect(packed).toEqual(
      [
        'LICENSE', 'README.md', 'action.yml', 'dist/cmd/postureops.js', 'dist/src/plan/steps/plan.js', 'examples/.env.example',
        'examples/.github/workflows/postureops-plan.yml', 'examples/postureops.yaml', 'package.json', 'schemas/alert-rule.schema.json',
      ].sort(),
    );
  });

  it('has the licence package.json names, and the Node version the README names', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.license).toBe('Apache-2.0');
    const licence = await readFile(join(ROOT, 'LICENSE'), 'utf8');
    expect(licence).toContain('Apache License');
    expect(licence).toContain('Version 2.0, January 2004');
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const min = /^>=(\d+\.\d+\.\d+)$/.exec(pkg.engines.node)?.[1];
    expect(min).toBeDefined();
    expect(readme).toContain(`Node.js ${min} or later`);
  });
});
