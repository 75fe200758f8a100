// Files read on worker threads give exactly what one thread gives: the same documents and resources,
// the same problems in the same order. Workers run the compiled module (dist/, built by `npm test`);
// run from the sources the loader finds no worker module and reads on the main thread.

import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { workersFor } from '../../src/config/parallel-load.js';
import { packageRoot } from '../../src/util/package-root.js';
import { makeRepo, ROOT_TWO } from './helpers.js';

type LoadModule = typeof import('../../src/config/load.js');
type ParallelModule = typeof import('../../src/config/parallel-load.js');

const dist = (rel: string) => pathToFileURL(path.join(packageRoot(), 'dist', rel)).href;

/** Many files, good and bad: syntax errors, schema errors, duplicates across files, missing variables, references. */
function files(): Record<string, string> {
  const out: Record<string, string> = { 'postureops.yaml': ROOT_TWO };
  for (let i = 0; i < 40; i++) {
    const n = String(i).padStart(2, '0');
    out[`f${n}.yaml`] =
      i % 7 === 3
        ? `kind: AlertChannel\nname: broken-${n}\nspec:\n  type: Webhook\n  data: {webhookUrl: "unclosed\n`
        : `kind: AlertChannel\nname: hook-${n}\naccount: "*"\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://h/${n}/\${env:${i % 5 === 0 ? 'UNSET' : 'TOKEN'}}\n` +
          `---\nkind: AlertRule\nname: rule-${n}\nspec:\n  channels: [hook-${n}, ghost-${n}]\n  severity: [critical${i % 4 === 0 ? ', nope' : ''}]\n  eventCategory: [Cloud]\n` +
          (i % 6 === 0 ? `---\nkind: AlertChannel\nname: hook-00\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://dup\n  extra: 1\n` : '');
  }
  return out;
}

describe('reading files on worker threads', () => {
  it('gives the same resources and problems, in the same order, as one thread', async () => {
    const { loadConfig, loadDocuments } = (await import(dist('src/config/load.js'))) as LoadModule;
    const { workersFor: compiledWorkersFor } = (await import(dist('src/config/parallel-load.js'))) as ParallelModule;
    const dir = await makeRepo(files());
    const env = { TOKEN: 'secret-token' };
    // The compiled module has its worker: with `parallel: true` it is used.
    expect(compiledWorkersFor([{ file: 'a', text: '' }, { file: 'b', text: '' }], true)).toBeGreaterThan(0);
    const one = await loadConfig(dir, { env, cwd: dir, parallel: false });
    const many = await loadConfig(dir, { env, cwd: dir, parallel: true });
    expect(one.diagnostics.length).toBeGreaterThan(20);
    expect(many).toEqual(one);
    expect(JSON.stringify(many)).toBe(JSON.stringify(one));
    const docsOne = await loadDocuments(dir, undefined, { env, cwd: dir, parallel: false });
    const docsMany = await loadDocuments(dir, undefined, { env, cwd: dir, parallel: true });
    expect(docsMany.diagnostics).toEqual(docsOne.diagnostics);
    expect(docsMany.loaded.map((d) => [d.kind, d.name, d.source, [...d.positions.values]])).toEqual(
      docsOne.loaded.map((d) => [d.kind, d.name, d.source, [...d.positions.values]]),
    );
  });

  it('is not used for small repositories, when turned off, or without the compiled worker', () => {
    const two = [
      { file: 'a.yaml', text: 'x: 1\n' },
      { file: 'b.yaml', text: 'y: 2\n' },
    ];
    // From the sources (as vitest runs them) there is no load-worker.js beside parallel-load.ts.
    expect(workersFor(two, true)).toBe(0);
    expect(workersFor(two, undefined)).toBe(0);
  });

  it('in the compiled module: unasked only for large repositories on 4 CPUs or more, never with parallel: false', async () => {
    const { workersFor: compiled, PARALLEL_MIN_CHARS } = (await import(dist('src/config/parallel-load.js'))) as ParallelModule;
    const small = [
      { file: 'a.yaml', text: 'x: 1\n' },
      { file: 'b.yaml', text: 'y: 2\n' },
    ];
    const large = [
      { file: 'a.yaml', text: 'x'.repeat(PARALLEL_MIN_CHARS) },
      { file: 'b.yaml', text: 'y: 2\n' },
    ];
    expect(compiled(small, undefined)).toBe(0);
    expect(compiled(large, false)).toBe(0);
    expect(compiled([large[0]], true)).toBe(0);
    // Unasked, only on machines with 4 CPUs or more; asked, wherever there is a second file.
    const { availableParallelism } = await import('node:os');
    expect(compiled(large, undefined)).toBe(availableParallelism() >= 4 ? 1 : 0);
    expect(compiled(large, true)).toBe(1);
  });
});
