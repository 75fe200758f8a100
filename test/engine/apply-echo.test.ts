// Issue 9: a 400 that echoes the request body must not carry a secret into apply's report (text,
// JSON, Markdown) or the Action's job summary, whether the secret came from the environment (a
// multi-line private key, echoed `\n`-escaped) or was written literally in a file (a Slack URL).

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply } from '../../src/ops/apply/apply.js';
import { type LiteralRef, literalDigest } from '../../src/model/env-markers.js';
import type { JsonObject } from '../../src/model/json.js';
import { renderApplyReport } from '../../src/render/index.js';
import { change, FakeService, fakeKind, permanent, planOf } from './apply-fakes.js';

const PRIVATE_KEY = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\nq3Zp9Fake+Key/Line2==\n-----END PRIVATE KEY-----\n';
const SLACK_URL = 'https://hooks.slack.com/services/T0FAKE/B0FAKE/q8Zr3LiteralSlackToken';
const Pubsub = fakeKind('Pubsub', { writeOnly: ['/privateKey'], sensitive: ['/url'] });
const ref: LiteralRef = { resource: 'prod/Pubsub/alerts', pointer: '/url', at: 'channels.yaml:1', sha256: literalDigest('prod/Pubsub/alerts', '/url', SLACK_URL) };
const plan = planOf([
  change({ action: 'create', kind: 'Pubsub', name: 'alerts', after: { privateKey: { $env: '${env:GCP_KEY}' }, url: { $literal: ref } } as unknown as JsonObject }),
]);
const FORMATS = ['text', 'json', 'markdown'] as const;

/** Every form the service might echo: the body as JSON (the key `\n`-escaped), URL-encoded, base64. */
function echo(body: unknown): string {
  const text = JSON.stringify(body);
  return `Invalid data: ${text} (query ${encodeURIComponent(SLACK_URL)}, b64 ${Buffer.from(PRIVATE_KEY).toString('base64')})`;
}

describe('apply: a service message echoing the request', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'postureops-echo-'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('shows neither the env private key nor the literal URL in any report format or the job summary', async () => {
    const svc = new FakeService();
    let sent = '';
    svc.fault = (req) => {
      sent = JSON.stringify(req.body);
      return { when: 'before', error: permanent(400, echo(req.body)) };
    };
    const report = await apply(plan, svc, { env: { GCP_KEY: PRIVATE_KEY }, kinds: [Pubsub], literals: (r) => (r.sha256 === ref.sha256 ? SLACK_URL : undefined) });
    // The request carried both real values, and the service did echo them, escaped and encoded.
    expect(sent).toContain(JSON.stringify(PRIVATE_KEY).slice(1, -1));
    expect(sent).toContain(SLACK_URL);
    expect(report.results[0].status).toBe('failed');
    expect(report.results[0].reason).toContain('Invalid data:');

    const escapedKey = JSON.stringify(PRIVATE_KEY).slice(1, -1);
    const forbidden = [SLACK_URL, encodeURIComponent(SLACK_URL), escapedKey, 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7', Buffer.from(PRIVATE_KEY).toString('base64').slice(8, 40)];
    for (const format of FORMATS) {
      const out = renderApplyReport(report, format, { color: false });
      expect(out).toContain('(sensitive)');
      for (const f of forbidden) expect(out, `${format}: ${f}`).not.toContain(f);
    }

    // The Action writes this same Markdown rendering to the job summary, through its own guard too.
    const markdown = renderApplyReport(report, 'markdown', { color: false });
    expect(markdown).toContain('Invalid data:');
    for (const f of forbidden) expect(markdown).not.toContain(f);
  });

  it('refuses to send a literal whose value it was not given, before any request', async () => {
    const svc = new FakeService();
    const report = await apply(plan, svc, { env: { GCP_KEY: PRIVATE_KEY }, kinds: [Pubsub] });
    expect(report.results[0]).toMatchObject({ status: 'failed' });
    expect(report.results[0].reason).toContain('channels.yaml:1');
    expect(svc.stats().total).toBe(0);
  });
});
