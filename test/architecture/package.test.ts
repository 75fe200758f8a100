// What `npm pack` ships: only what a user runs. The package's `files` rules are applied by npm itself
// to a copy of package.json in a folder laid out like the repository, with the files a working copy
// has that must never ship (a filled-in examples/.env, the compiled tests).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, posix } from 'node:path';
import { builtinModules } from 'node:module';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';

const ROOT = packageRoot();
const pkg = () => JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
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

  it('npm pack --dry-run --json: everything the CLI imports, the docs the README links, a repository and exports; not the Action, build scripts or tests', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.repository.url).toMatch(/^git\+https:\/\/github\.com\/.+\.git$/);
    expect(pkg.exports).toEqual({ './package.json': './package.json' });
    // Scripts ignored: `npm test` built dist/ already (the build's silence is the next test).
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, env: { ...process.env, npm_config_loglevel: 'silent' } });
    const files = new Set((JSON.parse(stdout) as { files: { path: string }[] }[])[0].files.map((f) => f.path));
    expect([...files].filter((f) => f !== 'src/emulator/README.md' && /^(?:src|test|dist\/test|dist\/src\/github)\/|build-validators|write-schemas|generate-registry|(?:^|\/)\.env$/.test(f))).toEqual([]);

    // The CLI's import graph from its bin: every relative import shipped, every package a dependency.
    const bare = new Set<string>();
    const missing: string[] = [];
    const seen = new Set<string>();
    const queue: string[] = [posix.normalize(pkg.bin.postureops)];
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      if (!files.has(file)) {
        missing.push(file);
        continue;
      }
      const text = await readFile(join(ROOT, file), 'utf8');
      for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|new URL\(\s*)['"]([^'"]+)['"]/g)) {
        const spec = m[1]!;
        if (spec.startsWith('.')) queue.push(posix.normalize(posix.join(posix.dirname(file), spec)));
        else if (!spec.startsWith('node:') && !builtinModules.includes(spec)) bare.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
    expect(missing).toEqual([]);
    expect(seen.has('dist/src/config/load-worker.js')).toBe(true);
    // Declared exactly: what the CLI imports, nothing it does not.
    expect([...bare].sort()).toEqual(Object.keys(pkg.dependencies).sort());

    // The README's relative links resolve inside the package.
    const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const links = [...readme.replace(/^```[\s\S]*?^```$/gm, '').matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/i.test(t));
    expect(links.length).toBeGreaterThan(5);
    const unresolved = links.filter((l) => {
      const target = normalize(l).replace(/\/$/, '');
      return !files.has(target) && ![...files].some((f) => f.startsWith(`${target}/`));
    });
    expect(unresolved).toEqual([]);
  });

  it('the build writes nothing on stdout: npm pack --json, which runs prepare, keeps stdout for its JSON', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'postureops-build-'));
    dirs.push(dir);
    const { stdout, stderr } = await run(process.execPath, [join(ROOT, 'dist/src/config/build-validators.js'), join(dir, 'validators.generated.js')]);
    expect(stdout).toBe('');
    expect(stderr).toBe('');
    expect((await readFile(join(dir, 'validators.generated.js'), 'utf8')).length).toBeGreaterThan(1000);
    expect(pkg().scripts.prepare).toBe('npm run build');
    expect(pkg().scripts.build).toBe('tsc -p tsconfig.json && node dist/src/config/build-validators.js');
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
