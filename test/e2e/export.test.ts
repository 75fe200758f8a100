// Issue 6 through the CLI: export live state, then validate and plan the export to "no changes".

import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { cli, EXAMPLES, exampleEnv, serviceEnv } from './harness.js';

describe('postureops export', () => {
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ['prod', 'staging'] });
    dir = await mkdtemp(join(tmpdir(), 'postureops-export-'));
    env = { ...exampleEnv(), ...serviceEnv(emu) };
    const applied = await cli(['apply', EXAMPLES, '--auto-approve'], { env });
    expect(applied.code, applied.stderr).toBe(0);
  });
  afterAll(async () => {
    await emu?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function files(root: string): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) {
        const path = join(entry.parentPath, entry.name);
        out[path.slice(root.length + 1)] = await readFile(path, 'utf8');
      }
    }
    return out;
  }

  it('writes a repository that validates and plans to no changes, byte-identical when run twice', async () => {
    const out = join(dir, 'first');
    const res = await cli(['export', '--out', out, '--account', 'prod', '--account', 'staging'], { env });
    expect(res.code, res.stderr).toBe(0);
    const written = await files(out);
    expect(Object.keys(written)).toContain('postureops.yaml');
    expect(Object.keys(written)).toContain(join('prod', 'alert-rules.yaml'));
    // No secret value of the examples reached a file; a generic webhook's URL is an ordinary value.
    for (const [name, value] of Object.entries(exampleEnv())) {
      if (name === 'SOC_WEBHOOK_URL') continue;
      for (const [path, text] of Object.entries(written)) expect(text, path).not.toContain(value);
    }
    expect(written[join('prod', 'alert-channels.yaml')]).toContain(`webhookUrl: ${exampleEnv().SOC_WEBHOOK_URL}`);

    // Provide the variables SECRETS.md lists: compared secrets with the live values, write-only ones
    // with anything of the right shape (a registry's role, which the service never returns, is an ARN).
    const note = written['SECRETS.md'];
    const exportEnv: Record<string, string> = { ...serviceEnv(emu) };
    const liveValue: Record<string, string> = { slackUrl: 'SLACK_OPS_URL', hecToken: 'SPLUNK_HEC_TOKEN', teamsUrl: 'TEAMS_PLATFORM_URL' };
    for (const m of note.matchAll(/\| `(SECRET_[A-Z0-9_]+)` \| \w+ \| ([\w-]+) \| `([^`]+)` \| (compared|write-only) \|/g)) {
      const [, variable, name, field, how] = m;
      const leaf = field.split('/').pop()!;
      const source = name === 'security-slack' ? 'SLACK_SECURITY_URL' : liveValue[leaf];
      exportEnv[variable] = how === 'compared' ? exampleEnv()[source] : leaf === 'roleArn' ? 'arn:aws:iam::123456789012:role/any' : 'any-value';
    }
    expect(Object.keys(exportEnv).length).toBeGreaterThan(5);

    const valid = await cli(['validate', out], { env: exportEnv });
    expect(valid.code, valid.stdout).toBe(0);
    const planned = await cli(['plan', out, '--detailed-exitcode'], { env: exportEnv });
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);

    const again = join(dir, 'second');
    expect((await cli(['export', '--out', again, '--account', 'prod', '--account', 'staging'], { env })).code).toBe(0);
    expect(await files(again)).toEqual(written);
  });

  it('needs --account, and --force for a folder that is not empty', async () => {
    const none = await cli(['export', '--out', join(dir, 'x')], { env });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('--account');

    const out = join(dir, 'busy');
    expect((await cli(['export', '--out', out, '--account', 'prod'], { env })).code).toBe(0);
    const refused = await cli(['export', '--out', out, '--account', 'prod'], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--force');
    expect((await cli(['export', '--out', out, '--account', 'prod', '--force'], { env })).code).toBe(0);
  });
});
