// validate makes no network call: nothing the configuration layer loads at run time reaches the
// HTTP client (src/api, except its plain modules of types and bucket names) or the engine.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Run-time imports (not `import type`) of a source file, as repository paths of .ts files. */
async function runtimeImports(file: string): Promise<string[]> {
  const text = await readFile(path.join(REPO, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gms)) {
    const spec = m[2];
    if (!spec.startsWith('.')) continue;
    out.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, '.ts'));
  }
  for (const m of text.matchAll(/import\(\s*'(\.[^']+)'\s*\)/g)) {
    out.push(path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1])).replace(/\.js$/, '.ts'));
  }
  return out;
}

describe('configuration layer boundaries', () => {
  it('loads neither the HTTP client nor the engine', async () => {
    const seen = new Set<string>();
    const queue = ['src/config/load.ts', 'src/render/diagnostics.ts'];
    while (queue.length > 0) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const dep of await runtimeImports(file)) queue.push(dep);
    }
    const reached = [...seen].sort();
    expect(reached).toContain('src/kinds/index.ts');
    const offline = ['src/api/types.ts', 'src/api/buckets.ts'];
    expect(reached.filter((f) => f.startsWith('src/api/') && !offline.includes(f))).toEqual([]);
    expect(reached.filter((f) => f.startsWith('src/plan/') || f.startsWith('src/ops/') || f.startsWith('src/emulator/'))).toEqual([]);
    for (const f of reached.filter((x) => x.startsWith('src/config/'))) {
      expect(await runtimeImports(f), f).not.toContainEqual(expect.stringMatching(/^src\/(api|engine)\//));
    }
  });
});
