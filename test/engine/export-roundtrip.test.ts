// The acceptance test of export: a folder exported from a busy service, loaded with the listed
// variables set, plans to no changes. Everything real: emulator, client, fetch, loader, planner.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import type { ApiClient } from '../../src/api/types.js';
import { loadConfig } from '../../src/config/load.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { exportConfig, writeExport } from '../../src/ops/export/export.js';
import { fetchLive } from '../../src/ops/live/fetch.js';
import { plan } from '../../src/plan/steps/plan.js';
import type { LiveState } from '../../src/model/live.js';
import { KINDS } from '../../src/kinds/index.js';
import { getAt } from '../../src/model/json-pointer.js';
import { seedService } from './export-seed.js';

const accounts = [
  { name: 'prod', orgAccess: false },
  { name: 'staging', orgAccess: false },
];
const PER_KIND_PER_ACCOUNT = 25;

let emulator: RunningEmulator;
let client: ApiClient;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ accounts: ['prod', 'staging'], rateLimit: 100_000 });
  client = createClient({ baseUrl: emulator.url, keyId: emulator.keyId, secret: emulator.secret });
  dir = await mkdtemp(join(tmpdir(), 'postureops-roundtrip-'));
  await seedService(client, ['prod', 'staging'], { perKindPerAccount: PER_KIND_PER_ACCOUNT });
});

afterAll(async () => {
  await client?.close();
  await emulator?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * The environment a user would set from SECRETS.md: live values for compared secrets, anything of
 * the right shape for write-only ones (a registry's role, which the service never returns, is an ARN).
 */
function envFor(live: LiveState, secrets: ReturnType<typeof exportConfig>['secrets']): Record<string, string> {
  const env: Record<string, string> = {};
  for (const s of secrets) {
    if (s.writeOnly) {
      env[s.variable] = s.field.endsWith('/roleArn') ? 'arn:aws:iam::123456789012:role/rotated' : `rotated-${s.variable.toLowerCase()}`;
      continue;
    }
    const resource = live.resources.find((r) => r.account === s.account && r.kind === s.kind && r.name === s.name);
    const value = resource ? getAt(resource.spec, s.field) : undefined;
    expect(typeof value, `${s.variable}`).toBe('string');
    env[s.variable] = value as string;
  }
  return env;
}

describe('export round trip against the emulator', () => {
  it('exports a seeded service so that the first plan on the folder has no changes', async () => {
    const live = await fetchLive(client, accounts, KINDS);
    for (const kind of KINDS) {
      // The predefined policies are the service's ten per account; their state is what is exported.
      expect(live.resources.filter((r) => r.kind === kind.kind && !r.managedByService).length, kind.kind).toBeGreaterThanOrEqual(kind.lifecycle?.stateOnly ? 20 : 50);
    }
    const result = exportConfig(live, { accounts });
    expect(result.diagnostics).toEqual([]);
    expect(result.files.map((f) => f.path)).toEqual([
      'SECRETS.md',
      'postureops.yaml',
      'prod/agent-access-tokens.yaml',
      'prod/alert-channels.yaml',
      'prod/alert-profiles.yaml',
      'prod/alert-rules.yaml',
      'prod/cloud-accounts.yaml',
      'prod/container-registries.yaml',
      'prod/data-export-rules.yaml',
      'prod/policies.yaml',
      'prod/policy-exceptions.yaml',
      'prod/predefined-policies.yaml',
      'prod/queries.yaml',
      'prod/report-rules.yaml',
      'prod/resource-groups.yaml',
      'prod/vulnerability-exceptions.yaml',
      'staging/agent-access-tokens.yaml',
      'staging/alert-channels.yaml',
      'staging/alert-profiles.yaml',
      'staging/alert-rules.yaml',
      'staging/cloud-accounts.yaml',
      'staging/container-registries.yaml',
      'staging/data-export-rules.yaml',
      'staging/policies.yaml',
      'staging/policy-exceptions.yaml',
      'staging/predefined-policies.yaml',
      'staging/queries.yaml',
      'staging/report-rules.yaml',
      'staging/resource-groups.yaml',
      'staging/vulnerability-exceptions.yaml',
    ]);
    const out = join(dir, 'exported');
    await writeExport(out, result);

    // No secret the seed wrote appears anywhere in the folder; a generic webhook's URL is no secret.
    for (const f of result.files) {
      const text = await readFile(join(out, f.path), 'utf8');
      expect(text).toBe(f.content);
      expect(text).not.toMatch(/secret-|slacksecret|secretpart|-----KEY/);
    }
    expect(result.files.find((f) => f.path === 'prod/alert-channels.yaml')?.content).toMatch(/webhookUrl: https:\/\/hooks\.example\.com\/\S+websecret/);
    expect(result.secrets.length).toBeGreaterThan(50);
    expect(result.secrets.some((s) => s.writeOnly) && result.secrets.some((s) => !s.writeOnly)).toBe(true);

    const env = envFor(live, result.secrets);
    const loaded = await loadConfig(out, { env, cwd: out });
    expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(loaded.state).toBeDefined();

    const again = await fetchLive(client, accounts, KINDS);
    const planned = plan(loaded.state!, again, {});
    expect(planned.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(planned.plan?.changes.map((c) => `${c.action} ${c.key}`)).toEqual([]);
    expect(planned.plan?.unmanaged).toEqual([]);

    // Exporting again gives the same bytes.
    expect(exportConfig(again, { accounts }).files).toEqual(result.files);
  });

  it('refuses to overwrite the exported folder without force, and replaces it with force', async () => {
    const live = await fetchLive(client, accounts, KINDS);
    const result = exportConfig(live, { accounts, kindNames: ['AlertChannel'] });
    const out = join(dir, 'exported-twice');
    await writeExport(out, result);
    await expect(writeExport(out, result)).rejects.toThrow('not empty');
    await writeExport(out, result, { force: true });
    expect(await readFile(join(out, 'prod/alert-channels.yaml'), 'utf8')).toBe(result.files.find((f) => f.path === 'prod/alert-channels.yaml')?.content);
  });
});
