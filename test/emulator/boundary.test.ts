// The emulator stands apart (issue 12): it may share the service's spellings with the tool, never
// the tool's tables, or it would repeat the tool's mistakes instead of catching them.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EMULATOR_DIR = join(ROOT, 'src', 'emulator');
const SPELLINGS = join(ROOT, 'src', 'kinds', 'spellings.ts');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every module specifier of a file: imports, type imports, re-exports and dynamic imports. */
function specifiers(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/** The specifiers of `file` that reach outside the emulator (other than spellings.ts), as problems. */
function violations(file: string, text: string): string[] {
  return specifiers(text).flatMap((spec) => {
    if (spec.startsWith('node:')) return [];
    if (!spec.startsWith('.')) return [`${relative(ROOT, file)}: package ${spec}`];
    const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
    if (target.startsWith(EMULATOR_DIR + sep) || target === SPELLINGS) return [];
    return [`${relative(ROOT, file)}: ${spec}`];
  });
}

describe('emulator import boundary', () => {
  const files = tsFiles(EMULATOR_DIR);

  it('imports nothing outside src/emulator but src/kinds/spellings.ts (and node: built-ins)', () => {
    expect(files.length).toBeGreaterThan(10);
    const problems = files.flatMap((f) => violations(f, readFileSync(f, 'utf8')));
    expect(problems).toEqual([]);
  });

  it('shares a leaf: spellings.ts imports nothing, so nothing else comes along with it', () => {
    expect(specifiers(readFileSync(SPELLINGS, 'utf8'))).toEqual([]);
  });

  it('sees the imports it is meant to police', () => {
    const shared = files.filter((f) => specifiers(readFileSync(f, 'utf8')).some((s) => s.endsWith('/kinds/spellings.js')));
    expect(shared.length).toBeGreaterThan(0);
    const file = join(EMULATOR_DIR, 'collections', 'example.ts');
    const text = [
      "import { CHANNEL_TYPES } from '../../kinds/spellings.js';",
      "import type { SecretField } from '../../kinds/data.js';",
      "export { bucketOf } from '../../api/buckets.js';",
      "const m = await import('../../engine/plan.js');",
      "import { masking } from '../masking.js';",
      "import { readFileSync } from 'node:fs';",
      "import YAML from 'yaml';",
    ].join('\n');
    expect(violations(file, text)).toEqual([
      'src/emulator/collections/example.ts: ../../kinds/data.js',
      'src/emulator/collections/example.ts: ../../api/buckets.js',
      'src/emulator/collections/example.ts: ../../engine/plan.js',
      'src/emulator/collections/example.ts: package yaml',
    ]);
  });
});
