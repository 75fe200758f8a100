// Build step: the Action as one JavaScript file (esbuild), committed under action-dist/ so that a
// workflow starts it with no install. `npm run build:action` writes it; a test builds it again with
// these same options into a temporary folder and fails when the committed file differs.
//   node dist/src/github/bundle.js [OUTFILE]

import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { BuildOptions, Plugin } from 'esbuild';
import { validatorModuleCode } from '../config/build-validators.js';

export const ACTION_ENTRY = 'src/github/main.ts';
export const ACTION_BUNDLE = 'action-dist/index.js';

/**
 * One undici in the bundle, not three: @actions/github and @actions/http-client each pin undici 6 for
 * `fetch` and `ProxyAgent`, which undici 7 (the service client's) provides with the same API.
 * Each copy is ~550 KB of the bundle.
 */
function oneUndici(root: string): Plugin {
  const target = createRequire(path.join(root, 'package.json')).resolve('undici');
  return {
    name: 'one-undici',
    setup(b) {
      b.onResolve({ filter: /^undici$/ }, () => ({ path: target }));
    },
  };
}

/**
 * The schema validators compiled at build time, as `npm run build` does for the CLI: without them
 * every run of the Action would compile the schemas with ajv (~180 ms of a ~300 ms start). The loader
 * imports them by a computed name (so tsc leaves them optional); here that import is pointed at the
 * generated code, whose require()s of ajv's runtime helpers esbuild then bundles. Should the loader's
 * code change shape, the bundle still works and compiles the schemas at run time instead.
 */
function prebuiltValidators(root: string): Plugin {
  const LOOKUP = 'await import(specifier)';
  return {
    name: 'prebuilt-validators',
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/]config[\\/]validators\.ts$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes(LOOKUP)) return { contents: source, loader: 'ts', warnings: [{ text: 'validators.ts changed shape: the bundle compiles the schemas at run time' }] };
        return { contents: source.replace(LOOKUP, "await import('./validators.generated.js')"), loader: 'ts' };
      });
      b.onResolve({ filter: /^\.\/validators\.generated\.js$/ }, () => ({ path: 'validators.generated.js', namespace: 'postureops-validators' }));
      b.onLoad({ filter: /.*/, namespace: 'postureops-validators' }, () => ({
        contents: validatorModuleCode()
          .split('\n')
          .filter((l) => !l.includes('createRequire'))
          .join('\n'),
        loader: 'js',
        resolveDir: root,
      }));
    },
  };
}

/**
 * yaml loaded on first use (src/model/yaml-lib.ts) goes through createRequire, which esbuild leaves
 * to the runtime: in the bundle the module is a static import instead, so that yaml is bundled.
 */
function bundledYaml(): Plugin {
  return {
    name: 'bundled-yaml',
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/]model[\\/]yaml-lib\.ts$/ }, () => ({
        contents: "import * as yaml from 'yaml';\nexport const yamlLib = () => yaml;\nexport const yamlLoaded = () => true;\n",
        loader: 'ts',
      }));
    },
  };
}

/** Options of the committed bundle; `root` is the repository (paths in the output are relative to it). */
export function bundleOptions(root: string, outfile: string): BuildOptions {
  return {
    absWorkingDir: root,
    entryPoints: [ACTION_ENTRY],
    outfile,
    bundle: true,
    platform: 'node',
    // The runner uses node24; the bundle is kept runnable on Node 20 (the CLI's floor, and this project's CI).
    target: 'node20',
    format: 'esm',
    minifySyntax: true,
    minifyWhitespace: true,
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [oneUndici(root), prebuiltValidators(root), bundledYaml()],
    // Some bundled CommonJS dependencies require() Node's built-in modules.
    banner: { js: "import { createRequire as __postureopsRequire } from 'node:module'; const require = __postureopsRequire(import.meta.url);" },
  };
}

export async function buildBundle(root: string, outfile: string): Promise<void> {
  const { build } = await import('esbuild');
  await build(bundleOptions(root, outfile));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
  const out = path.resolve(process.argv[2] ?? path.join(root, ACTION_BUNDLE));
  buildBundle(root, out).then(
    () => process.stdout.write(`wrote ${path.relative(root, out)}\n`),
    (err: unknown) => {
      process.stderr.write(`build:action: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
