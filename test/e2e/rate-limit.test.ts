// An apply that needs more calls than a bucket holds completes without a single 429: the client
// waits for the bucket to refill. The emulator and the client share a virtual clock that moves only
// when the client sleeps, so an hour of refill takes no real time, and requests take no virtual
// time however slow the machine is: the bucket cannot refill behind the client's back.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/client.js';
import type { RequestLogEntry } from '../../src/api/types.js';
import { loadConfig } from '../../src/config/load.js';
import { manualClock, startEmulator } from '../../src/emulator/index.js';
import { apply } from '../../src/ops/apply/apply.js';
import { fetchLive } from '../../src/ops/live/fetch.js';
import { plan } from '../../src/plan/steps/plan.js';
import { withBudget } from '../../src/ops/budget/budget.js';
import { KINDS } from '../../src/kinds/index.js';
import { virtualTime } from '../api/helpers.js';

const CHANNELS = 25;
const LIMIT = 10;

describe('rate limits during apply', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'postureops-rl-'));
    await writeFile(join(dir, 'postureops.yaml'), 'accounts:\n  - name: prod\nvariables: [HOOK_TOKEN]\n');
    const docs = Array.from(
      { length: CHANNELS },
      (_, i) => `kind: AlertChannel\nname: hook-${String(i).padStart(2, '0')}\nspec:\n  type: Webhook\n  data:\n    webhookUrl: https://hooks.example.com/${i}/\${env:HOOK_TOKEN}\n`,
    );
    await writeFile(join(dir, 'channels.yaml'), docs.join('---\n'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it(`creates ${CHANNELS} channels through a bucket of ${LIMIT} without a 429`, async () => {
    const clock = manualClock(Date.UTC(2026, 2, 1));
    const sleeps: number[] = [];
    const sleep = virtualTime(clock);
    const emu = await startEmulator({ accounts: ['prod'], rateLimit: LIMIT, clock });
    const log: RequestLogEntry[] = [];
    const waits: string[] = [];
    const client = createClient({
      baseUrl: emu.url,
      keyId: emu.keyId,
      secret: emu.secret,
      now: () => clock.now(),
      sleep: (ms) => {
        sleeps.push(ms);
        return sleep(ms);
      },
      maxWaitSeconds: 24 * 3600,
      onWait: (bucket) => waits.push(bucket),
      log: (e) => log.push(e),
    });
    try {
      const loaded = await loadConfig(dir, { env: { HOOK_TOKEN: 't0k3n' } });
      expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const live = await fetchLive(client, loaded.state!.root.accounts, KINDS);
      const result = withBudget(plan(loaded.state!, live, { apiCalls: live.calls }), KINDS, client.budget());
      expect(result.plan?.summary.create).toBe(CHANNELS);
      const create = result.plan!.budget.find((b) => b.bucket === 'POST AlertChannels');
      expect(create?.needed).toBe(CHANNELS);

      const report = await apply(result.plan!, client, { env: { HOOK_TOKEN: 't0k3n' } });
      expect(report.summary.done).toBe(CHANNELS);
      expect(log.filter((e) => e.status === 429)).toEqual([]);
      expect(waits).toContain('POST AlertChannels');
      // 25 creates through a bucket of 10 an hour: at least 15 refills of 6 minutes were waited for.
      expect(clock.now() - Date.UTC(2026, 2, 1)).toBeGreaterThanOrEqual((CHANNELS - LIMIT) * (3_600_000 / LIMIT));
      expect(sleeps.length).toBeGreaterThan(0);
    } finally {
      await client.close();
      await emu.close();
    }
  });
});
