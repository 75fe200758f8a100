// Issue 35's rehearsal, end to end: the real CLI against the emulator (the "service" here), which
// counts every request it receives. The rehearsal runs on an emulator of its own in the CLI's
// process, seeded with the lists the run read: nothing of it reaches the service.

import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ReceivedRequest, startEmulator } from '../../src/emulator/index.js';
import { cli, EXAMPLES, exampleEnv, oneLine, rawApi, serviceEnv } from './harness.js';

type Emu = Awaited<ReturnType<typeof startEmulator>>;
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

/** The service: an emulator that records every request it receives. */
async function service(): Promise<{ emu: Emu; seen: ReceivedRequest[] }> {
  const seen: ReceivedRequest[] = [];
  const emu = await startEmulator({ accounts: ['prod', 'staging'], onRequest: (r) => seen.push(r) });
  cleanup.push(() => emu.close());
  return { emu, seen };
}

/** Requests that change something (the token exchange and list searches aside). */
const writes = (seen: readonly ReceivedRequest[]) => seen.filter((r) => r.method !== 'GET' && !r.path.endsWith('/search') && !r.path.endsWith('/access/tokens'));

async function repo(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'postureops-rh-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

// A webhook first, then a Datadog channel whose site the service does not know: validate only warns
// (a value the service may have added since), the service answers 400.
const REFUSED = {
  'postureops.yaml': 'accounts:\n  - name: prod\nvariables: [DD_KEY]\n',
  'a-hook.yaml': 'kind: AlertChannel\nname: a-hook\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/a\n',
  'b-datadog.yaml': 'kind: AlertChannel\nname: b-datadog\nspec:\n  type: Datadog\n  data:\n    apiKey: ${env:DD_KEY}\n    datadogSite: us5\n    datadogType: Logs Detail\n',
};
const DD_KEY = 'dd-api-key-5f1e0c';

describe('rehearsal before apply', () => {
  it('stops an apply whose change the service would refuse before its first write, --force or not; --no-rehearse sends it and the service refuses it half-way', async () => {
    const { emu, seen } = await service();
    const dir = await repo(REFUSED);
    const env = { ...serviceEnv(emu), DD_KEY };
    const validated = await cli(['validate', dir], { env });
    expect(validated.code).toBe(0);

    for (const force of [[], ['--force']]) {
      const before = seen.length;
      const r = await cli(['apply', dir, '--auto-approve', '--no-lease', ...force], { env });
      expect(r.code, r.stderr).toBe(3);
      expect(oneLine(r.stdout)).toContain('rehearsal refused create prod/AlertChannel/b-datadog: POST /api/v2/AlertChannels failed (permanent): 400: Invalid data: #1: [data/datadogSite: must be one of "com", "eu"] (1 change accepted); nothing was sent to the service');
      expect(oneLine(r.stderr)).toContain('postureops: refused: the rehearsal refused a change (create prod/AlertChannel/b-datadog:');
      expect(oneLine(r.stderr)).toContain('--no-rehearse skips the rehearsal');
      // The service saw the reads (a token and the lists), no write.
      expect(seen.length).toBeGreaterThan(before);
      expect(writes(seen)).toEqual([]);
      expect(r.stdout + r.stderr).not.toContain(DD_KEY);
    }
    expect((await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' })).body.data).toEqual([]);

    // Without the rehearsal the service gets the same answer, after the first change is written.
    const unrehearsed = await cli(['apply', dir, '--auto-approve', '--no-lease', '--no-rehearse'], { env });
    expect(unrehearsed.code).toBe(1);
    expect(unrehearsed.stdout).not.toContain('rehears');
    expect(oneLine(unrehearsed.stdout)).toContain('data/datadogSite: must be one of "com", "eu"');
    expect(writes(seen).map((w) => `${w.method} ${w.path}`)).toEqual(['POST /api/v2/AlertChannels', 'POST /api/v2/AlertChannels']);
    expect((await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' })).body.data.map((c: { name: string }) => c.name)).toEqual(['a-hook']);
  });

  it('plan says what the rehearsal found in text, JSON and Markdown, spends nothing of the service on it, and --no-rehearse leaves it out', async () => {
    const { emu, seen } = await service();
    const dir = await mkdtemp(join(tmpdir(), 'postureops-rh-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    await cp(EXAMPLES, dir, { recursive: true, filter: (src) => !src.endsWith('/.env') });
    const env = { ...serviceEnv(emu), ...exampleEnv() };
    const applied = await cli(['apply', dir, '--auto-approve', '--no-lease'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    // Changes to channels whose secrets the service lists masked (left out, or ""): the rehearsal's
    // emulator holds them as the service does, and accepts writes that leave them alone.
    const edit = async (file: string, from: string, to: string) => {
      const { readFile } = await import('node:fs/promises');
      const text = await readFile(join(dir, file), 'utf8');
      expect(text).toContain(from);
      await writeFile(join(dir, file), text.replace(from, to));
    };
    await edit('channels/pagerduty.yaml', 'spec:\n', 'spec:\n  enabled: false\n');
    await edit('registries/dockerhub.yaml', 'enabled: 1', 'enabled: 0');
    await edit('channels/datadog.yaml', 'datadogSite: eu', 'datadogSite: com');

    const counted = async (args: string[]) => {
      const from = seen.length;
      const r = await cli(args, { env });
      return { ...r, requests: seen.slice(from).map((q) => `${q.method} ${q.path} ${q.account ?? ''}`).sort() };
    };
    const text = await counted(['plan', dir, '--force']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('rehearsed: 4 changes accepted, the result plans clean\nPlan: 0 to create, 4 to update, 0 to replace, 0 to delete.');
    const json = await counted(['plan', dir, '--force', '--format', 'json']);
    expect(JSON.parse(json.stdout).rehearsal).toEqual({ outcome: 'clean', accepted: 4 });
    const markdown = await counted(['plan', dir, '--force', '--format', 'markdown']);
    expect(markdown.stdout).toContain('\n\nrehearsed: 4 changes accepted, the result plans clean\n\n');
    const none = await counted(['plan', dir, '--force', '--no-rehearse', '--format', 'json']);
    expect(JSON.parse(none.stdout).rehearsal).toBeUndefined();
    const plain = await counted(['plan', dir, '--force', '--no-rehearse']);
    expect(plain.stdout).not.toContain('rehears');
    // The same requests to the service with the rehearsal or without it: reads only.
    for (const r of [text, json, markdown]) expect(r.requests).toEqual(none.requests);
    expect(writes(seen.slice(-none.requests.length))).toEqual([]);
    for (const r of [text, json, markdown]) for (const value of Object.values(exampleEnv())) expect(r.stdout + r.stderr).not.toContain(value);
  });

  it('a plan without changes is not rehearsed', async () => {
    const { emu } = await service();
    const dir = await repo({ 'postureops.yaml': 'accounts:\n  - name: prod\n', 'hook.yaml': REFUSED['a-hook.yaml'] });
    const env = serviceEnv(emu);
    expect((await cli(['apply', dir, '--auto-approve', '--no-lease'], { env })).code).toBe(0);
    const r = await cli(['plan', dir, '--format', 'json', '--detailed-exitcode'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).rehearsal).toBeUndefined();
  });
});
