// No per-run state in module scope: a run's client, clock, waits, start and budget memory belong to
// its Run object (src/run/run.ts), so two runs in one process (tests, the demo, a server) never see
// each other's. A module-level Map, WeakMap or Set in the adapters or the run layer, or a module-level
// `let`, is how that state crept in before (issue 21); each one that remains is listed here with why it
// is not per run.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';

const ROOT = packageRoot();

/** Module-level collections and variables that hold no run's data, with the reason. */
const ALLOWED: Record<string, string> = {
  'cmd/terminal.ts:consoles': 'one status line per stderr stream, shared by every run that writes to that stream',
  'src/github/secrets.ts:SKIP_DIRS': 'a constant: the folder names a secret scan never enters',
  'cmd/io.ts:chmodded': 'log files already narrowed to mode 0600 by this process: a fact about the file, true for every later run',
};

function files(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name);
    return e.isDirectory() ? files(rel) : e.name.endsWith('.ts') ? [rel] : [];
  });
}

describe('per-run state', () => {
  it('no module-level Map, WeakMap, Set or `let` in cmd/, src/github/ or src/run/ but those that hold no run', () => {
    const found: string[] = [];
    for (const file of ['cmd', 'src/github', 'src/run'].flatMap(files)) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      for (const m of text.matchAll(/^(?:export\s+)?(?:const|let|var)\s+(\w+)\s*(?::[^=]+)?=\s*new\s+(?:Weak)?(?:Map|Set)\b/gm)) found.push(`${file}:${m[1]}`);
      for (const m of text.matchAll(/^(?:export\s+)?(?:let|var)\s+(\w+)/gm)) found.push(`${file}:${m[1]}`);
    }
    expect(found.filter((f) => !(f in ALLOWED))).toEqual([]);
    // The rule sees what it looks for: the one allowed map is found.
    expect(found).toContain('cmd/terminal.ts:consoles');
  });

});
