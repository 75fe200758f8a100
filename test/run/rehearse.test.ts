// The rehearsal in the run layer (src/run/rehearse.ts), against the emulator on 127.0.0.1 as the
// service: the stand-in it is handed is seeded with the lists as read; what the stand-in answers is
// outside text (masked, never a secret); a plan without changes starts none; a result that does
// not plan clean is reported, not refused.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { startEmulator } from '../../src/emulator/index.js';
import type { DesiredState } from '../../src/model/account.js';
import { NO_BUDGET_MEMORY } from '../../src/run/budget-memory.js';
import { planRun } from '../../src/run/plan-run.js';
import type { RehearsalSeed, StartRehearsal } from '../../src/run/rehearse.js';
import { renderPlan } from '../../src/render/index.js';
import { forwardingProxy, rawApi, serviceEnv } from '../e2e/harness.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

const SLACK = 'https://hooks.slack.com/services/T0/B0/rehearse-secret-7c1d';

async function desiredOf(files: Record<string, string>, env: Record<string, string>): Promise<{ dir: string; desired: DesiredState }> {
  const dir = await mkdtemp(join(tmpdir(), 'postureops-rh-run-'));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  const loaded = await loadConfig(dir, { env });
  if (!loaded.state) throw new Error(JSON.stringify(loaded.diagnostics));
  return { dir, desired: loaded.state };
}

async function service() {
  const emu = await startEmulator({ accounts: ['prod'] });
  cleanup.push(() => emu.close());
  return emu;
}

/** A stand-in: the emulator seeded as asked, behind a proxy that answers what `intercept` takes. */
function behindProxy(intercept: Parameters<typeof forwardingProxy>[1]): StartRehearsal {
  return async (seed) => {
    const inner = await startEmulator(seed);
    const proxy = await forwardingProxy(inner.url, intercept);
    return { url: proxy.url, keyId: inner.keyId, secret: inner.secret, close: async () => (await proxy.close(), await inner.close()) };
  };
}

const ROOT = 'accounts:\n  - name: prod\nvariables: [SLACK_URL]\n';
const SLACK_DOC = 'kind: AlertChannel\nname: ops-slack\nspec:\n  type: SlackChannel\n  data:\n    slackUrl: ${env:SLACK_URL}\n';

describe('rehearsal (run layer)', () => {
  it('seeds the stand-in with the lists as the run read them, and sends the service nothing for it', async () => {
    const emu = await service();
    // Live: a channel of a type no table knows, with members of its own; the plan adds a Slack channel.
    expect((await rawApi(emu, 'POST', '/api/v2/AlertChannels', { account: 'prod', body: { name: 'old', type: 'Webhook', enabled: 1, data: { webhookUrl: 'https://x.example.com/a' } } })).status).toBe(201);
    emu.seed('prod', 'AlertChannels', [{ intgGuid: 'PROD_NEW', name: 'newer', type: 'TeamsWorkflow', enabled: 1, data: { flowUrl: 'https://flow.example.com' }, futureMember: { a: 1 } }]);
    const env = { ...serviceEnv(emu), SLACK_URL: SLACK };
    const { dir, desired } = await desiredOf({ 'postureops.yaml': ROOT, 'c.yaml': SLACK_DOC }, env);
    const seeds: RehearsalSeed[] = [];
    const start: StartRehearsal = async (seed) => {
      seeds.push(structuredClone(seed));
      return startEmulator(seed);
    };
    const before = emu.requestCount();
    const planned = await planRun({ env, flags: {}, memory: () => NO_BUDGET_MEMORY }, { desired, dir, rehearse: start });
    const sent = emu.requestCount() - before;
    await planned.run.close();
    expect(planned.plan.rehearsal).toEqual({ outcome: 'clean', accepted: 1 });
    expect(seeds).toHaveLength(1);
    expect(seeds[0].accounts).toEqual(['prod']);
    const channels = seeds[0].seedFromLists.prod.AlertChannels as Array<Record<string, unknown>>;
    expect(channels.map((c) => c.name)).toEqual(['old', 'newer']);
    expect(channels[1]).toMatchObject({ type: 'TeamsWorkflow', futureMember: { a: 1 } });
    // The same read without a rehearsal costs the service as much.
    const again = await planRun({ env, flags: {}, memory: () => NO_BUDGET_MEMORY }, { desired, dir });
    await again.run.close();
    expect(emu.requestCount() - before - sent).toBe(sent);
  });

  it("masks what the stand-in answers: a refusal that echoes the request carries no secret, in the plan or its renderings", async () => {
    const emu = await service();
    const env = { ...serviceEnv(emu), SLACK_URL: SLACK };
    const { dir, desired } = await desiredOf({ 'postureops.yaml': ROOT, 'c.yaml': SLACK_DOC }, env);
    // A stand-in that refuses every create with the body it was sent, a terminal escape and a mention in it.
    const start = behindProxy((req, res) => {
      if (req.method !== 'POST' || !req.url?.endsWith('/AlertChannels')) return false;
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({ message: `\u001b[31m @admins refused ${body}` })));
      return true;
    });
    const planned = await planRun({ env, flags: {}, memory: () => NO_BUDGET_MEMORY }, { desired, dir, rehearse: start });
    await planned.run.close();
    const { plan } = planned;
    expect(plan.rehearsal?.outcome).toBe('refused');
    expect(plan.refusal?.code).toBe('rehearsal');
    expect(plan.rehearsal?.refused?.[0].message).toContain('refused {');
    const everything = [JSON.stringify(plan), ...(['text', 'json', 'markdown'] as const).map((f) => renderPlan(plan, f, { color: false }))];
    for (const out of everything) expect(out).not.toContain(SLACK);
    for (const out of everything.slice(1)) {
      expect(out).not.toContain('\u001b[31m');
    }
    // A mention becomes a code span: nobody is notified.
    const markdown = renderPlan(plan, 'markdown', { color: false });
    expect(markdown).toContain('`@admins`');
    expect(markdown).not.toMatch(/(^|[^`\w])@admins/);
  });

  it('starts no stand-in for a plan without changes', async () => {
    const emu = await service();
    const env = { ...serviceEnv(emu), SLACK_URL: SLACK };
    const { dir, desired } = await desiredOf({ 'postureops.yaml': ROOT }, env);
    let started = 0;
    const start: StartRehearsal = async (seed) => {
      started++;
      return startEmulator(seed);
    };
    const planned = await planRun({ env, flags: {}, memory: () => NO_BUDGET_MEMORY }, { desired, dir, rehearse: start });
    await planned.run.close();
    expect(planned.plan.changes).toEqual([]);
    expect(planned.plan.rehearsal).toBeUndefined();
    expect(started).toBe(0);
  });

  it('reports a result that still plans changes, without refusing the plan; a stand-in that cannot start refuses it', async () => {
    const emu = await service();
    const env = { ...serviceEnv(emu), SLACK_URL: SLACK };
    const { dir, desired } = await desiredOf({ 'postureops.yaml': ROOT, 'c.yaml': SLACK_DOC }, env);
    // A stand-in that accepts the create and then lists no channel: the result plans the create again.
    const forgetful = behindProxy((req, res) => {
      const listing = (req.method === 'GET' && req.url === '/api/v2/AlertChannels') || (req.method === 'POST' && req.url === '/api/v2/AlertChannels/search');
      if (listing) res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"data":[]}');
      return listing;
    });
    const planned = await planRun({ env, flags: {}, memory: () => NO_BUDGET_MEMORY }, { desired, dir, rehearse: forgetful });
    await planned.run.close();
    expect(planned.plan.rehearsal).toEqual({ outcome: 'unsettled', accepted: 1, remaining: [{ key: 'prod/AlertChannel/ops-slack', action: 'create' }], remainingCount: 1 });
    expect(planned.plan.refusal).toBeUndefined();
    expect(renderPlan(planned.plan, 'text', { color: false })).toContain('rehearsed: 1 change accepted, but the result still plans 1 change: create prod/AlertChannel/ops-slack');

    const broken: StartRehearsal = async () => {
      throw new Error('emulator: invalid options: no port');
    };
    const refused = await planRun({ env, flags: {}, memory: () => NO_BUDGET_MEMORY }, { desired, dir, rehearse: broken });
    await refused.run.close();
    expect(refused.plan.rehearsal).toEqual({ outcome: 'failed', accepted: 0, message: 'the rehearsal could not run: emulator: invalid options: no port' });
    expect(refused.plan.refusal).toMatchObject({ code: 'rehearsal', message: 'the rehearsal could not run: emulator: invalid options: no port; nothing was sent to the service' });
  });
});
