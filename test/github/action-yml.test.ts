// action.yml: a node24 JavaScript action whose entry is the committed bundle, built from the sources.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ACTION_BUNDLE, buildBundle } from '../../src/github/bundle.js';
import { packageRoot } from '../../src/util/package-root.js';

const root = packageRoot();
const action = parse(readFileSync(join(root, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, { description: string; value?: string }>;
  runs: { using: string; main: string; steps?: unknown };
};

describe('action.yml', () => {
  it('runs the committed bundle on node24, with no install step', () => {
    expect(action.runs.using).toBe('node24');
    expect(action.runs.main).toBe(ACTION_BUNDLE);
    expect(action.runs.steps).toBeUndefined();
    expect(readFileSync(join(root, '.gitignore'), 'utf8').split('\n')).not.toContain('action-dist/');
  });

  it('declares the inputs the adapter reads and the outputs it writes', () => {
    expect(Object.keys(action.inputs)).toEqual(['directory', 'mode', 'apply-branches', 'accounts', 'target', 'rotate', 'max-duration', 'changed-since', 'shard', 'plan-out', 'plans', 'github-token', 'comment', 'labels', 'fail-on-refusal', 'attribute', 'rehearse']);
    expect(action.inputs['github-token'].default).toBe('${{ github.token }}');
    expect(action.inputs.labels.default).toBe('false');
    const source = ['action.ts', 'report.ts', 'settings.ts', 'routing-report.ts'].map((f) => readFileSync(join(root, 'src/github', f), 'utf8')).join('\n');
    for (const name of Object.keys(action.inputs)) expect(source).toContain(`'${name}'`);
    for (const name of Object.keys(action.outputs).filter((n) => !n.startsWith('count-'))) expect(source).toMatch(new RegExp(`'${name}'|[{ ]${name}: `));
  });

  it('the committed bundle is exactly what the sources build', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'postureops-bundle-'));
    try {
      const out = join(dir, 'index.js');
      await buildBundle(root, out);
      const fresh = readFileSync(out);
      const committed = readFileSync(join(root, ACTION_BUNDLE));
      // On failure: run `npm run build:action` and commit action-dist/.
      expect(committed.equals(fresh), 'action-dist/index.js is stale: run npm run build:action').toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
