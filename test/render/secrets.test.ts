import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Change, Plan } from '../../src/model/plan.js';
import type { JsonObject } from '../../src/model/json.js';
import { renderApplyReport, renderPlan } from '../../src/render/index.js';
import { fixtureApplyReport, fixturePlan, fixtureRefusedPlan } from './fixtures.js';

// A value that must never reach a rendering: it lives only in this test's environment, and, in the
// "leaky" plan, where a careless planner could have left it (unmasked at sensitive pointers).
const SECRET = 'xoxb-FAKE-SECRET-4f1c9a7e2b';
const VARS = ['SLACK_URL', 'DD_API_KEY', 'SPLUNK_HEC_TOKEN', 'GHCR_TOKEN', 'AWS_EXTERNAL_ID'];

function leakyPlan(): Plan {
  const plan = fixturePlan();
  plan.changes = plan.changes.map((c): Change => {
    if (c.name === 'splunk') {
      return {
        ...c,
        before: { ...c.before, data: { ...(c.before!.data as JsonObject), hecToken: SECRET } },
        diff: [...(c.diff ?? []), { op: 'replace' as const, path: '/data/hecToken', value: SECRET }],
      };
    }
    if (c.name === 'ecr') {
      return {
        ...c,
        before: { ...c.before, data: { ...(c.before!.data as JsonObject), accessKeyCredentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: SECRET } } },
        diff: [{ op: 'replace' as const, path: '/data', value: { credentials: { username: 'ci-bot', password: SECRET } } }],
      };
    }
    if (c.name === 'datadog') return { ...c, before: { ...c.before, data: { ...(c.before!.data as JsonObject), apiKey: SECRET } } };
    return c;
  });
  return plan;
}

describe('no secret reaches a rendering', () => {
  const saved: Record<string, string | undefined> = {};
  beforeEach(() => {
    for (const v of VARS) {
      saved[v] = process.env[v];
      process.env[v] = SECRET;
    }
  });
  afterEach(() => {
    for (const v of VARS) {
      if (saved[v] === undefined) delete process.env[v];
      else process.env[v] = saved[v];
    }
  });

  for (const format of ['text', 'json', 'markdown'] as const) {
    it(`plan ${format}: env-derived values show as their variable, never as the value`, () => {
      for (const plan of [fixturePlan(), fixtureRefusedPlan()]) {
        const out = renderPlan(plan, format, { color: format === 'text' });
        expect(out).not.toContain(SECRET);
        expect(out).toContain('SLACK_URL');
      }
    });

    it(`plan ${format}: values left at sensitive or write-only pointers are masked`, () => {
      const out = renderPlan(leakyPlan(), format, { color: false });
      expect(out).not.toContain(SECRET);
      expect(out).toContain('(sensitive)');
    });

    it(`apply ${format}: no secret`, () => {
      expect(renderApplyReport(fixtureApplyReport(), format, { color: false })).not.toContain(SECRET);
    });
  }

  it('json keeps env markers as markers (apply resolves them) and masks the leaked values', () => {
    const doc = JSON.parse(renderPlan(leakyPlan(), 'json', { color: false }));
    const splunk = doc.changes.find((c: { name: string }) => c.name === 'splunk');
    expect(splunk.after.data.hecToken).toEqual({ $env: '${env:SPLUNK_HEC_TOKEN}' });
    expect(splunk.before.data.hecToken).toBe('(sensitive)');
    const ecr = doc.changes.find((c: { name: string }) => c.name === 'ecr');
    expect(ecr.diff[0].value.credentials).toEqual({ username: 'ci-bot', password: '(sensitive)' });
  });
});
