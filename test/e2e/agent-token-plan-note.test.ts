// The plan of a new agent access token says, before anything is applied, that the service will issue
// its value, where it can be kept (--credentials-out, the Action's output) and how to read it later;
// the words come from the kind (Kind.issuedNote), the renderers show them as any other note.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/index.js';
import { cli, oneLine, serviceEnv } from './harness.js';

let emu: RunningEmulator;
let dir: string;

beforeAll(async () => {
  emu = await startEmulator({ accounts: ['prod'] });
  dir = await mkdtemp(join(tmpdir(), 'postureops-token-note-'));
  await writeFile(join(dir, 'postureops.yaml'), 'accounts:\n  - name: prod\n');
  await writeFile(join(dir, 'tokens.yaml'), 'kind: AgentAccessToken\nname: k8s-prod\nspec: {}\n---\nkind: AlertChannel\nname: hook\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/x\n');
});
afterAll(async () => {
  await emu.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the plan of a new agent access token', () => {
  it('says in text, Markdown and JSON that a value will be issued, where --credentials-out keeps it, and how to read it later; no other change says so', async () => {
    const [text, md, json] = await Promise.all(['text', 'markdown', 'json'].map((format) => cli(['plan', dir, '--format', format], { env: serviceEnv(emu) })));
    for (const r of [text, md, json]) expect(r.code, r.stderr).toBe(0);
    expect(text.stdout).toMatch(/create AgentAccessToken k8s-prod[^\n]*\n(?: {4}\S[^\n]*\n)?\s+the service issues its value on create:/);
    expect(oneLine(text.stdout)).toMatch(/create AgentAccessToken k8s-prod.* the service issues its value on create: `apply --credentials-out FILE` keeps it in FILE/);
    expect(oneLine(text.stdout)).toContain('without either it is not kept');
    expect(oneLine(text.stdout)).toContain('GET /api/v2/AgentAccessTokens/{id}');
    expect(md.stdout).toContain('the service issues its value on create');
    const changes = (JSON.parse(json.stdout) as { changes: { kind: string; issued?: string }[] }).changes;
    const token = changes.find((c) => c.kind === 'AgentAccessToken');
    expect(token?.issued).toMatch(/--credentials-out FILE.*accessToken, the value, which is also its id/);
    expect(changes.filter((c) => c.issued !== undefined)).toHaveLength(1);
  });
});
