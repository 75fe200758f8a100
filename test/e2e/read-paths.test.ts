// Reads across buckets: a list and its search return the same records from separate rate-limit
// functionalities. Whichever path reads, the plan is the same byte for byte; reading through both
// lets one key read twice as many accounts in an hour without waiting.

import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnvText } from '../../cmd/env-file.js';
import { createClient } from '../../src/api/client.js';
import type { RequestLogEntry } from '../../src/api/types.js';
import { loadConfig } from '../../src/config/load.js';
import { manualClock, startEmulator } from '../../src/emulator/index.js';
import { apply } from '../../src/ops/apply/apply.js';
import { fetchLive, type ReadPaths } from '../../src/ops/live/fetch.js';
import { neededKinds } from '../../src/ops/live/needed-kinds.js';
import { plan } from '../../src/plan/steps/plan.js';
import { KINDS } from '../../src/kinds/index.js';
import type { DesiredState } from '../../src/model/account.js';
import type { Plan } from '../../src/model/plan.js';
import { renderPlan } from '../../src/render/index.js';
import { renderPlanMarkdown } from '../../src/render/plan-markdown.js';
import { packageRoot } from '../../src/util/package-root.js';
import { virtualTime } from '../api/helpers.js';
import { rawApi } from './harness.js';

describe('a plan read through the lists, the searches, or both', () => {
  const examples = join(packageRoot(), 'examples');
  const env = parseEnvText(readFileSync(join(examples, '.env.example'), 'utf8'));
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  let desired: DesiredState;

  beforeAll(async () => {
    emu = await startEmulator({ accounts: ['prod', 'staging'], rateLimit: 1_000_000 });
    const loaded = await loadConfig(examples, { env });
    desired = loaded.state!;
    // Apply the examples, then drift: one channel changed by hand, one the files do not declare.
    const client = createClient({ baseUrl: emu.url, keyId: emu.keyId, secret: emu.secret });
    const live = await fetchLive(client, desired.root.accounts, KINDS);
    const first = plan(desired, live, {}).plan!;
    const report = await apply(first, client, { env });
    expect(report.summary.failed).toBe(0);
    await client.close();
    const channels = await rawApi(emu, 'GET', '/api/v2/AlertChannels', { account: 'prod' });
    const email = (channels.body.data as { intgGuid: string; type: string }[]).find((c) => c.type === 'EmailUser')!;
    expect((await rawApi(emu, 'PATCH', `/api/v2/AlertChannels/${email.intgGuid}`, { account: 'prod', body: { enabled: 0 } })).status).toBe(200);
    const made = await rawApi(emu, 'POST', '/api/v2/AlertChannels', {
      account: 'staging',
      body: { name: 'hand-made', type: 'Webhook', enabled: 1, data: { webhookUrl: 'https://hooks.example.com/x' } },
    });
    expect(made.status).toBe(201);
    // Prune on for most kinds (every kind is then read); channels stay unpruned to list the unmanaged one.
    const pruned = (kind: string) => kind !== 'AgentAccessToken' && kind !== 'AlertChannel';
    desired = { ...desired, root: { ...desired.root, prune: Object.fromEntries(KINDS.map((k) => [k.kind, pruned(k.kind)])) } };
  });

  afterAll(async () => {
    await emu.close();
  });

  async function planVia(readPaths: ReadPaths): Promise<Plan> {
    const client = createClient({ baseUrl: emu.url, keyId: emu.keyId, secret: emu.secret });
    try {
      const live = await fetchLive(client, desired.root.accounts, KINDS, { readPaths, kindsOf: neededKinds(desired, KINDS) });
      return plan(desired, live, { apiCalls: live.calls }).plan!;
    } finally {
      await client.close();
    }
  }

  it('gives byte-identical plans in every rendering; only the requests made differ', async () => {
    const [list, search, both] = [await planVia('list'), await planVia('search'), await planVia('both')];
    // The paths really differ: the lists alone, then the searches wherever a kind has one.
    expect(Object.keys(list.apiCalls.byBucket).some((b) => b.endsWith('/search'))).toBe(false);
    // Alert profiles, report rules, queries, policies and policy exceptions have no search.
    const unsearchable = ['GET AlertProfiles', 'GET ReportRules', 'GET Queries', 'GET Policies', 'GET Exceptions'];
    expect(Object.keys(search.apiCalls.byBucket).filter((b) => b.startsWith('GET ') && !unsearchable.includes(b))).toEqual([]);
    expect(Object.keys(both.apiCalls.byBucket).filter((b) => b.endsWith('/search')).length).toBeGreaterThan(0);
    // Something to show: the drift and the unmanaged channel.
    expect(list.changes.length).toBeGreaterThan(0);
    expect(list.unmanaged.map((u) => u.name)).toContain('hand-made');
    const without = (p: Plan) => ({ ...p, apiCalls: { total: 0, byBucket: {} } });
    for (const other of [search, both]) {
      expect(renderPlan(without(other), 'json', { color: false })).toBe(renderPlan(without(list), 'json', { color: false }));
      expect(renderPlanMarkdown(other, undefined, { runStats: false })).toBe(renderPlanMarkdown(list, undefined, { runStats: false }));
      expect(JSON.stringify(without(other))).toBe(JSON.stringify(without(list)));
    }
  });
});

describe('240 accounts in one hour with one key', () => {
  const accounts = Array.from({ length: 240 }, (_, i) => `acct-${String(i).padStart(3, '0')}`);
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'postureops-240-'));
    await writeFile(join(dir, 'postureops.yaml'), `accounts:\n${accounts.map((a) => `  - name: ${a}\n`).join('')}defaults:\n  account: ${accounts[0]}\n`);
    await writeFile(
      join(dir, 'alerts.yaml'),
      'kind: AlertChannel\nname: hook\naccount: "*"\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/a\n---\n' +
        'kind: AlertRule\nname: critical\naccount: "*"\nspec:\n  channels: [hook]\n  severity: [critical]\n',
    );
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function readAll(readPaths: ReadPaths) {
    // The service's clock moves only when the client sleeps: any wait shows as time on it.
    const clock = manualClock();
    const emu = await startEmulator({ accounts, rateLimit: 120, clock });
    const waits: number[] = [];
    const log: RequestLogEntry[] = [];
    const client = createClient({
      baseUrl: emu.url,
      keyId: emu.keyId,
      secret: emu.secret,
      now: clock.now,
      sleep: virtualTime(clock),
      onWait: (_bucket, secondsLeft) => secondsLeft > 0 && waits.push(secondsLeft),
      log: (e) => log.push(e),
      maxWaitSeconds: 7200,
    });
    const start = clock.now();
    try {
      const desired = (await loadConfig(dir, { env: {} })).state!;
      const live = await fetchLive(client, desired.root.accounts, KINDS, { readPaths, kindsOf: neededKinds(desired, KINDS) });
      return { live, waits, statuses: log.map((e) => e.status), elapsedMs: clock.now() - start };
    } finally {
      await client.close();
      await emu.close();
    }
  }

  it('reads them through both functionalities without a 429 and without waiting', async () => {
    const { live, waits, statuses, elapsedMs } = await readAll('both');
    expect(live.calls.byBucket).toEqual({
      'GET AlertChannels': 120,
      'POST AlertChannels/search': 120,
      'GET AlertRules': 120,
      'POST AlertRules/search': 120,
      // The groups the rules may name (live ids become names); they have a search too.
      'GET ResourceGroups': 120,
      'POST ResourceGroups/search': 120,
      'POST access/tokens': 1,
    });
    expect(statuses.filter((s) => s !== 200 && s !== 201)).toEqual([]);
    expect(waits).toEqual([]);
    expect(elapsedMs).toBe(0);
    // Empty accounts: nothing live but the service's default groups, and every account was read.
    expect(live.resources.filter((r) => !r.managedByService)).toEqual([]);
    expect(live.unread?.length).toBe(240);
  });

  it('through the lists alone, the same read waits an hour for the second half', async () => {
    const { live, waits, statuses, elapsedMs } = await readAll('list');
    expect(statuses.filter((s) => s !== 200 && s !== 201)).toEqual([]);
    expect(live.calls.byBucket['GET AlertChannels']).toBe(240);
    expect(waits.length).toBeGreaterThan(0);
    // 120 more reads of one bucket refilling 120 an hour: about an hour on the service's clock.
    expect(elapsedMs).toBeGreaterThan(3000_000);
    expect(elapsedMs).toBeLessThan(3700_000);
  });
});
