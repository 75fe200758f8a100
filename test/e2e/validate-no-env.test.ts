// `validate --no-env`: what a pull request from a fork (no secrets) can still check.

import { describe, expect, it } from 'vitest';
import { makeRepo } from '../config/helpers.js';
import { bareExamples, cli, exampleEnv, oneLine } from './harness.js';

const EXAMPLES = bareExamples();

describe('validate --no-env', () => {
  it('the examples with no variable set: valid, and one note naming what was skipped', async () => {
    const r = await cli(['validate', EXAMPLES, '--no-env']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    const at = lines.findIndex((l) => l.startsWith('Skipped (--no-env)'));
    expect(lines.filter((l) => l.startsWith('Skipped (--no-env)'))).toHaveLength(1);
    // One sentence, wrapped to 80 columns: the line and the ones that hang under it.
    let end = at + 1;
    while (end < lines.length && lines[end].startsWith('  ')) end++;
    const note = oneLine(lines.slice(at, end).join('\n'));
    for (const name of Object.keys(exampleEnv())) expect(note).toContain(name);
    expect(r.stdout).toContain('Valid: ');
    expect(r.stdout).not.toContain('env-missing');
  });

  it('an empty variable (a secret CI does not have) is skipped, not a misleading type error', async () => {
    const env = { ...exampleEnv(), SLACK_OPS_URL: '' };
    const strict = await cli(['validate', EXAMPLES], { env });
    expect(strict.code).toBe(1);
    const relaxed = await cli(['validate', EXAMPLES, '--no-env'], { env });
    expect(relaxed.code).toBe(0);
    expect(relaxed.stdout).not.toContain('https:// URL');
    expect(relaxed.stdout).toMatch(/^Skipped \(--no-env\): not checked 1 variable that is unset or empty: SLACK_OPS_URL$/m);
  });

  it('everything else is still checked', async () => {
    const dir = await makeRepo({
      'postureops.yaml': 'accounts:\n  - name: prod\nvariables: [NOPE_URL]\n',
      'c.yaml': 'kind: AlertChannel\nname: s\nspec:\n  type: SlackChannel\n  enabled: maybe\n  data:\n    slackUrl: ${env:NOPE_URL}\n',
    });
    const r = await cli(['validate', dir, '--no-env'], { env: {} });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('enabled');
    expect(r.stdout).toContain('Skipped (--no-env): not checked 1 variable that is unset or empty: NOPE_URL');
  });

  it('--format json keeps stdout one document; the note goes to stderr', async () => {
    const r = await cli(['validate', EXAMPLES, '--no-env', '--format', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).valid).toBe(true);
    expect(r.stderr).toContain('Skipped (--no-env)');
  });
});
