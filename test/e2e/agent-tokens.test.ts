// Agent access tokens end to end, through the real CLI against the emulator: created with their value
// handed out in one place only (--credentials-out, mode 0600), disabled by prune (tokens cannot be
// deleted), never re-created once disabled, and their value in no output, log or plan file.

import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/index.js';
import { cli, rawApi, serviceEnv } from './harness.js';

let emu: RunningEmulator;
let dir: string;

beforeEach(async () => {
  emu = await startEmulator({ accounts: ['prod', 'staging'] });
  dir = await mkdtemp(join(tmpdir(), 'postureops-tokens-'));
});
afterEach(async () => {
  await emu.close();
  await rm(dir, { recursive: true, force: true });
});

async function repo(prune: boolean, documents: string): Promise<string> {
  const root = join(dir, 'repo');
  await mkdir(root, { recursive: true });
  await writeFile(join(root, 'postureops.yaml'), `accounts:\n  - name: prod\nprune: ${prune}\n`);
  await writeFile(join(root, 'tokens.yaml'), documents);
  return root;
}

const TOKENS = `kind: AgentAccessToken
name: k8s-prod
spec:
  description: Kubernetes agents
---
kind: AgentAccessToken
name: retired
spec:
  enabled: false
`;

async function liveTokens(): Promise<{ accessToken: string; tokenAlias: string; tokenEnabled: string; props: { description: string } }[]> {
  return (await rawApi(emu, 'GET', '/api/v2/AgentAccessTokens', { account: 'prod' })).body.data;
}

describe('AgentAccessToken against the emulator', () => {
  it('creates a token, hands its value to --credentials-out only, disables it by prune and never re-creates it', async () => {
    const env = serviceEnv(emu);
    const root = await repo(false, TOKENS);
    const outputs: string[] = [];
    const creds = join(dir, 'creds.json');

    // The declared disabled token is not listed and not created: it is as declared.
    const planned = await cli(['plan', root, '--format', 'json', '--out', join(dir, 'first.plan')], { env });
    expect(planned.code).toBe(0);
    const changes = JSON.parse(planned.stdout).changes;
    expect(changes.map((c: { action: string; name: string }) => `${c.action} ${c.name}`)).toEqual(['create k8s-prod']);

    const applied = await cli(['apply', root, '--auto-approve', '--format', 'json', '--verbose', '--credentials-out', creds], { env });
    outputs.push(applied.stdout, applied.stderr);
    expect(applied.code, applied.stderr).toBe(0);
    const live = await liveTokens();
    expect(live.map((t) => [t.tokenAlias, t.tokenEnabled, t.props.description])).toEqual([['k8s-prod', '1', 'Kubernetes agents']]);
    const value = live[0].accessToken;
    expect(value).toMatch(/^[0-9A-Fa-f]{32,}$/);

    // The one place the value is meant for: the credentials file, mode 0600.
    expect(JSON.parse(await readFile(creds, 'utf8'))).toEqual({ 'prod/AgentAccessToken/k8s-prod': value });
    expect((await stat(creds)).mode & 0o777).toBe(0o600);

    // A description change is a PATCH whose path holds the value: the verbose log hides it.
    await writeFile(join(root, 'tokens.yaml'), TOKENS.replace('Kubernetes agents', 'Kubernetes agents of prod'));
    const saved = join(dir, 'update.plan');
    const update = await cli(['plan', root, '--out', saved, '--verbose'], { env });
    outputs.push(update.stdout, update.stderr, await readFile(saved, 'utf8'));
    expect(update.stdout).toContain('k8s-prod');
    const patched = await cli(['apply', root, '--plan', saved, '--auto-approve', '--verbose'], { env });
    outputs.push(patched.stdout, patched.stderr);
    expect(patched.code, patched.stderr).toBe(0);
    expect(patched.stderr).toMatch(/PATCH \/api\/v2\/AgentAccessTokens\/\[redacted\]/);
    expect((await liveTokens())[0].props.description).toBe('Kubernetes agents of prod');

    // Prune: tokens cannot be deleted, so the plan says it disables, and apply disables.
    // A blanket `prune: true` leaves tokens alone (disabling is for good): they are pruned only by name.
    await writeFile(join(root, 'postureops.yaml'), 'accounts:\n  - name: prod\nprune: true\n');
    await writeFile(join(root, 'tokens.yaml'), '');
    const blanket = await cli(['plan', root, '--format', 'json'], { env });
    expect(JSON.parse(blanket.stdout).changes).toEqual([]);
    await writeFile(join(root, 'postureops.yaml'), 'accounts:\n  - name: prod\nprune: {AgentAccessToken: true}\n');
    await writeFile(join(root, 'tokens.yaml'), '');
    const pruning = await cli(['plan', root, '--format', 'json'], { env });
    outputs.push(pruning.stdout, pruning.stderr);
    const deletion = JSON.parse(pruning.stdout).changes;
    expect(deletion).toHaveLength(1);
    expect(deletion[0]).toMatchObject({ action: 'delete', kind: 'AgentAccessToken', name: 'k8s-prod' });
    expect(deletion[0].reason).toContain('disabled: agent access tokens cannot be deleted');
    expect(deletion[0].reasonCode).toBe('delete-because-not-declared');
    // It removes every live resource of the account: refused without --force, whatever the count.
    expect(JSON.parse(pruning.stdout).refusal).toMatchObject({ code: 'safety-threshold', details: ['prod: all 1 live resources of the account deleted (1 delete, 0 update, 0 replace)'] });
    const refused = await cli(['apply', root, '--auto-approve'], { env });
    expect(refused.code).toBe(3);
    expect(await liveTokens()).toHaveLength(1);
    const disabled = await cli(['apply', root, '--auto-approve', '--force', '--verbose'], { env });
    outputs.push(disabled.stdout, disabled.stderr);
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(await liveTokens()).toEqual([]);
    const byId = await rawApi(emu, 'GET', `/api/v2/AgentAccessTokens/${value}`, { account: 'prod' });
    expect(byId.body.data.tokenEnabled).toBe('0');

    // Declared disabled and not listed: no change, and nothing re-created.
    await writeFile(join(root, 'tokens.yaml'), 'kind: AgentAccessToken\nname: k8s-prod\nspec:\n  enabled: false\n');
    const settled = await cli(['plan', root, '--detailed-exitcode'], { env });
    outputs.push(settled.stdout, settled.stderr);
    expect(settled.code, settled.stdout).toBe(0);

    for (const text of outputs) expect(text).not.toContain(value);
    expect(await readFile(join(dir, 'first.plan'), 'utf8')).not.toContain(value);
  });

  it('says where the value was not kept when --credentials-out is not given', async () => {
    const root = await repo(false, TOKENS);
    const applied = await cli(['apply', root, '--auto-approve'], { env: serviceEnv(emu) });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stderr).toContain('pass --credentials-out FILE to keep them');
    const value = (await liveTokens())[0].accessToken;
    expect(applied.stdout + applied.stderr).not.toContain(value);
  });
});
