// The emulator stands apart (issues 12, 19): it imports nothing of the tool, not even the service's
// spellings (it keeps its own in src/emulator/spellings.ts), or it would repeat the tool's mistakes
// instead of catching them. test/emulator/api-facts.test.ts holds both tables against api-facts.md.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EMULATOR_DIR = join(ROOT, 'src', 'emulator');

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

/** The specifiers of `file` that reach outside the emulator, as problems. */
function violations(file: string, text: string): string[] {
  return specifiers(text).flatMap((spec) => {
    if (spec.startsWith('node:')) return [];
    if (!spec.startsWith('.')) return [`${relative(ROOT, file)}: package ${spec}`];
    const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
    if (target.startsWith(EMULATOR_DIR + sep)) return [];
    return [`${relative(ROOT, file)}: ${spec}`];
  });
}

describe('emulator import boundary', () => {
  const files = tsFiles(EMULATOR_DIR);

  it('imports nothing outside src/emulator (node: built-ins aside)', () => {
    expect(files.length).toBeGreaterThan(10);
    const problems = files.flatMap((f) => violations(f, readFileSync(f, 'utf8')));
    expect(problems).toEqual([]);
  });

  it('sees the imports it is meant to police', () => {
    const own = files.filter((f) => specifiers(readFileSync(f, 'utf8')).some((s) => s.endsWith('/spellings.js')));
    expect(own.length).toBeGreaterThan(0);
    const file = join(EMULATOR_DIR, 'collections', 'example.ts');
    const text = [
      "import { CHANNEL_TYPES } from '../../kinds/spellings.js';",
      "import type { SecretField } from '../../kinds/data.js';",
      "export { bucketOf } from '../../api/buckets.js';",
      "const m = await import('../../plan/steps/plan.js');",
      "import { masking } from '../masking.js';",
      "import { readFileSync } from 'node:fs';",
      "import YAML from 'yaml';",
    ].join('\n');
    expect(violations(file, text)).toEqual([
      'src/emulator/collections/example.ts: ../../kinds/spellings.js',
      'src/emulator/collections/example.ts: ../../kinds/data.js',
      'src/emulator/collections/example.ts: ../../api/buckets.js',
      'src/emulator/collections/example.ts: ../../plan/steps/plan.js',
      'src/emulator/collections/example.ts: package yaml',
    ]);
  });
});
