// No per-run state in module scope: a run's client, clock, waits, start and budget memory belong to
// its Run object (src/run/run.ts), so two runs in one process (tests, the demo, a server) never see
// each other's. A module-level Map or WeakMap in the adapters or the run layer is how that state crept
// in before (issue 21); each one that remains is listed here with why it is not per run.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';

const ROOT = packageRoot();

/** Module-level maps that hold no run's data, with the reason. */
const ALLOWED: Record<string, string> = {
  'cmd/terminal.ts:consoles': 'one status line per stderr stream, shared by every run that writes to that stream',
};

function files(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name);
    return e.isDirectory() ? files(rel) : e.name.endsWith('.ts') ? [rel] : [];
  });
}

describe('per-run state', () => {
  it('no module-level Map or WeakMap in cmd/, src/github/ or src/run/ but those that hold no run', () => {
    const found: string[] = [];
    for (const file of ['cmd', 'src/github', 'src/run'].flatMap(files)) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      for (const m of text.matchAll(/^(?:export\s+)?(?:const|let|var)\s+(\w+)\s*(?::[^=]+)?=\s*new\s+(?:Weak)?Map\b/gm)) found.push(`${file}:${m[1]}`);
    }
    expect(found.filter((f) => !(f in ALLOWED))).toEqual([]);
    // The rule sees what it looks for: the one allowed map is found.
    expect(found).toContain('cmd/terminal.ts:consoles');
  });

});
