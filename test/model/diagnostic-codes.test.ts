// Diagnostic codes are a closed set (src/model/diagnostic-codes.ts): each has a meaning, docs/diagnostics.md
// lists exactly them, and each is made somewhere in the source (a code nothing makes is a stale line).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIAGNOSTIC_CODES, isDiagnosticCode } from '../../src/model/diagnostic-codes.js';
import { packageRoot } from '../../src/util/package-root.js';

const ROOT = packageRoot();
const CODES = Object.keys(DIAGNOSTIC_CODES);

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name));
}

describe('diagnostic codes', () => {
  it('each has a one-line meaning, and codes are kebab-case', () => {
    for (const [code, meaning] of Object.entries(DIAGNOSTIC_CODES)) {
      expect(code).toMatch(/^[a-z]+(-[a-z0-9]+)*$/);
      expect(meaning.length, code).toBeGreaterThan(15);
      expect(meaning, code).not.toMatch(/\n/);
    }
    expect(isDiagnosticCode('yaml-syntax')).toBe(true);
    expect(isDiagnosticCode('no-such-code')).toBe(false);
    expect(isDiagnosticCode('toString')).toBe(false);
  });

  it('docs/diagnostics.md lists exactly the codes with their meanings, in the order of the set', () => {
    const docs = readFileSync(join(ROOT, 'docs', 'diagnostics.md'), 'utf8');
    const rows = [...docs.matchAll(/^\| `([a-z0-9-]+)` \| (.*) \|$/gm)].map((m) => [m[1], m[2].replace(/\\\|/g, '|')]);
    expect(rows).toEqual(Object.entries(DIAGNOSTIC_CODES));
    // The commands page points to it.
    expect(readFileSync(join(ROOT, 'docs', 'commands.md'), 'utf8')).toContain('](diagnostics.md)');
  });

  it('each code is made somewhere in the source', () => {
    const text = [...sources('src'), ...sources('cmd')]
      .filter((f) => !f.endsWith('diagnostic-codes.ts') && !f.includes(`${join('src', 'emulator')}`))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    expect(CODES.filter((code) => !text.includes(`'${code}'`))).toEqual([]);
  });
});
