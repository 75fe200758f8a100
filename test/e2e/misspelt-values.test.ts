// Issue 19: `eventCategory: [Cloud, Complaince]` used to validate, plan and apply with exit 0, its
// alerts routed nowhere. Through the CLI: validate and plan refuse it at file:line with "did you
// mean", before any request; a category far from every known one validates with a warning.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, oneLine } from './harness.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function repo(categories: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'postureops-misspelt-'));
  dirs.push(dir);
  await writeFile(join(dir, 'postureops.yaml'), 'accounts:\n  - name: prod\n');
  await writeFile(
    join(dir, 'rules.yaml'),
    'kind: AlertChannel\nname: hook\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/x\n---\n' +
      `kind: AlertRule\nname: cloud\nspec:\n  channels: [hook]\n  severity: [High, 2]\n  eventCategory: [${categories}]\n`,
  );
  return dir;
}

describe('a misspelt event category through the CLI', () => {
  it('validate and plan refuse it at file:line with the right suggestion, and plan sends nothing', async () => {
    const dir = await repo('Cloud, Complaince');
    const valid = await cli(['validate', dir], { cwd: dir });
    expect(valid.code).toBe(1);
    expect(valid.stdout + valid.stderr).toContain('rules.yaml:13:26: error[unknown-value]');
    expect(valid.stdout + valid.stderr).toContain('did you mean `Compliance`?');
    // An address nothing listens on: the plan must stop at the files.
    const plan = await cli(['plan', dir], { cwd: dir, env: { SVC_BASE_URL: 'http://127.0.0.1:9', SVC_API_KEY_ID: 'k', SVC_API_SECRET: 's' } });
    expect(plan.code).toBe(1);
    expect(plan.stdout + plan.stderr).toContain('did you mean `Compliance`?');
    expect(plan.stdout + plan.stderr).not.toMatch(/ECONNREFUSED|connect/i);
  });

  it('a far category validates with a warning that names it', async () => {
    const dir = await repo('Cloud, QuantumWorkloads');
    const valid = await cli(['validate', dir], { cwd: dir });
    expect(valid.code, valid.stderr).toBe(0);
    expect(valid.stdout + valid.stderr).toContain('rules.yaml:13:26: warning[unknown-value]');
    expect(oneLine(valid.stdout + valid.stderr)).toContain('`QuantumWorkloads` is not one this version knows');
  });
});
