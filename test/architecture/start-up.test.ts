// What a command loads before it runs: the static imports of the built files (what Node evaluates
// eagerly; type imports are gone by then). A plain plan and validate load only what they run: the
// rehearsal, attribution, git and scope narrowing are imported where they are used (docs/performance.md,
// "Sixth round").
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist');

/** The files `entries` (under dist/) load eagerly: their static imports, transitively; packages left out. */
function eagerClosure(...entries: string[]): Set<string> {
  const seen = new Set<string>();
  const todo = entries.map((e) => path.join(DIST, e));
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    const specifiers = [...text.matchAll(/^(?:import|export)\s[^;]*?from\s+'([^']+)'|^import\s+'([^']+)'/gms)].map((m) => m[1] ?? m[2]);
    for (const s of specifiers) if (s.startsWith('.')) todo.push(path.resolve(path.dirname(file), s));
  }
  return new Set([...seen].map((f) => path.relative(DIST, f).split(path.sep).join('/')));
}

describe('start-up: what a command loads before it runs', () => {
  it('the plan run loads the planner, not the rehearsal, the attribution, git or the scope narrowing', () => {
    const loaded = eagerClosure('src/run/plan-run.js');
    expect(loaded).toContain('src/plan/steps/plan.js');
    expect(loaded).toContain('src/ops/live/fetch.js');
    const lazy = ['src/run/rehearse.js', 'src/ops/apply/apply.js', 'src/ops/live/attribute.js', 'src/util/git.js', 'src/config/changed.js', 'src/plan/core/plan-scope.js', 'src/ops/apply/applied.js'];
    for (const file of lazy) expect(existsSync(path.join(DIST, file)), file).toBe(true);
    expect(lazy.filter((f) => loaded.has(f))).toEqual([]);
  });

  it("validate's loading and its errors load nothing of the operations half or the client", () => {
    const loaded = eagerClosure('src/run/load.js', 'src/run/errors.js', 'cmd/commands/validate.js');
    expect(loaded).toContain('src/config/load.js');
    expect([...loaded].filter((f) => f.startsWith('src/ops/') || f === 'src/api/client.js')).toEqual([]);
  });
});

describe("start-up: V8's tier-up is tuned before anything runs", () => {
  it("the CLI entry's first import is the tuning, so every later module's functions get its budget", () => {
    const text = readFileSync(path.join(DIST, 'cmd/postureops.js'), 'utf8');
    const first = /^import\s[^;]*?'([^']+)'|^import\s+'([^']+)'/m.exec(text);
    expect(first?.[1] ?? first?.[2]).toBe('../src/util/v8-tiering.js');
  });
});
