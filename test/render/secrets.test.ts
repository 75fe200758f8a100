import { describe, expect, it } from 'vitest';
import { apply } from '../../src/ops/apply/apply.js';
import type { Change, Plan } from '../../src/model/plan.js';
import type { Json, JsonObject } from '../../src/model/json.js';
import { renderApplyReport, renderPlan } from '../../src/render/index.js';
import { getAt, setAt } from '../../src/model/json-pointer.js';
import { change as fakeChange, FakeService, fakeKind, permanent, planOf } from '../engine/apply-fakes.js';
import { fixturePlan, fixtureRefusedPlan } from './fixtures.js';

// Renderers are pure functions of the plan or report: a secret can reach a rendering only if it is
// in what they are given. So these tests put a real-looking secret value exactly where a careless
// planner could leave one (at sensitive and write-only pointers, in before, after and the diff) and
// check that no rendering prints it; and they check first that a renderer that ignored the pointers
// would print it, so that the assertions can fail.

const SECRET = 'xoxb-FAKE-SECRET-4f1c9a7e2b';
const FORMATS = ['text', 'json', 'markdown'] as const;

const secretPointers = (c: Change) => [...new Set([...c.sensitive, ...c.writeOnly])];

/** `spec` with SECRET at each of `pointers` whose parent exists (never inventing structure). */
function withSecret(spec: JsonObject | undefined, pointers: string[]): JsonObject | undefined {
  if (spec === undefined) return undefined;
  let out = spec;
  for (const p of pointers) {
    const parent = getAt(out, p.slice(0, p.lastIndexOf('/')));
    if (parent !== null && typeof parent === 'object' && !Array.isArray(parent)) out = setAt(out, p, SECRET);
  }
  return out;
}

/**
 * The fixture plan with SECRET at every secret pointer of `before` and in a diff operation, also
 * inside a value that replaces a secret's parent. With `inAfter`, also in `after`, as a literal
 * secret written in a document would be (instead of an env marker).
 */
function leakyPlan(opts: { inAfter: boolean }): Plan {
  const plan = structuredClone(fixturePlan());
  plan.changes = plan.changes.map((c): Change => {
    const pointers = secretPointers(c);
    if (pointers.length === 0) return c;
    const diff = [...(c.diff ?? [])];
    if (c.before !== undefined) for (const p of pointers) diff.push({ op: 'replace', path: p, value: SECRET });
    if (c.name === 'ecr') diff.push({ op: 'replace', path: '/data', value: { credentials: { username: 'ci-bot', password: SECRET } } });
    return {
      ...c,
      before: withSecret(c.before, pointers),
      after: opts.inAfter ? withSecret(c.after, pointers) : c.after,
      diff: c.action === 'create' ? c.diff : diff,
    };
  });
  return plan;
}

/** The same plan, but with no pointer declared secret: what a renderer ignoring the pointers would see. */
function withoutPointers(plan: Plan): Plan {
  return { ...plan, changes: plan.changes.map((c) => ({ ...c, sensitive: [], writeOnly: [] })) };
}

describe('no secret reaches a plan rendering', () => {
  it('the leaky plans hold the secret where a renderer ignoring the pointers would print it', () => {
    for (const inAfter of [false, true]) {
      const plan = leakyPlan({ inAfter });
      for (const format of FORMATS) {
        const unmasked = renderPlan(withoutPointers(plan), format, { color: false });
        expect(unmasked, `${format}, inAfter ${inAfter}`).toContain(SECRET);
      }
    }
    // Every change with a secret pointer carries it: create (after), update, replace, delete (before).
    const carriers = leakyPlan({ inAfter: true }).changes.filter((c) => JSON.stringify(c).includes(SECRET));
    expect(carriers.map((c) => c.name).sort()).toEqual(['aws-config', 'datadog', 'ecr', 'ops-slack', 'splunk']);
  });

  for (const format of FORMATS) {
    it(`plan ${format}: env-derived values show as their variable`, () => {
      for (const plan of [fixturePlan(), fixtureRefusedPlan()]) {
        const out = renderPlan(plan, format, { color: format === 'text' });
        for (const name of ['SLACK_URL', 'DD_API_KEY', 'SPLUNK_HEC_TOKEN', 'GHCR_TOKEN', 'AWS_EXTERNAL_ID']) {
          expect(out, `${format}: ${name}`).toContain(`\${env:${name}}`);
        }
      }
    });

    it(`plan ${format}: values at sensitive or write-only pointers are masked, in before, after and the diff`, () => {
      for (const inAfter of [false, true]) {
        for (const color of format === 'text' ? [false, true] : [false]) {
          const out = renderPlan(leakyPlan({ inAfter }), format, { color });
          expect(out, `inAfter ${inAfter}, color ${color}`).not.toContain(SECRET);
          expect(out).toContain('(sensitive)');
        }
      }
    });
  }

  it('json keeps env markers as markers (apply resolves them) and masks the leaked values', () => {
    const doc = JSON.parse(renderPlan(leakyPlan({ inAfter: false }), 'json', { color: false }));
    const splunk = doc.changes.find((c: { name: string }) => c.name === 'splunk');
    expect(splunk.after.data.hecToken).toEqual({ $env: '${env:SPLUNK_HEC_TOKEN}' });
    expect(splunk.before.data.hecToken).toBe('(sensitive)');
    const ecr = doc.changes.find((c: { name: string }) => c.name === 'ecr');
    expect(ecr.diff.at(-1).value.credentials).toEqual({ username: 'ci-bot', password: '(sensitive)' });
    const literal = JSON.parse(renderPlan(leakyPlan({ inAfter: true }), 'json', { color: false }));
    expect(literal.changes.find((c: { name: string }) => c.name === 'splunk').after.data.hecToken).toBe('(sensitive)');
  });
});

describe('no secret reaches an apply rendering', () => {
  // An apply report holds no specs; a secret could only come in through a service message that
  // echoes a value apply sent. Apply removes resolved values before the report is rendered.
  const Widget = fakeKind('Widget', { testable: true, writeOnly: ['/token'] });
  const plan = planOf([
    fakeChange({ action: 'create', kind: 'Widget', name: 'w1', after: { token: { $env: '${env:TOKEN}' } as Json } }),
    fakeChange({ action: 'create', kind: 'Widget', name: 'w2', after: { size: 1 } }),
  ]);

  for (const format of FORMATS) {
    it(`apply ${format}: a secret echoed by the service in an error or a channel test is not printed`, async () => {
      const svc = new FakeService();
      svc.fault = (req) =>
        req.method === 'POST' && (JSON.stringify(req.body) ?? '').includes(SECRET) ? { when: 'before', error: permanent(400, `Invalid data: token ${SECRET} rejected`) } : undefined;
      svc.testFailure = `cannot reach ${SECRET}`;
      const report = await apply(plan, svc, { env: { TOKEN: SECRET }, kinds: [Widget], testResources: true });
      // The service did echo it: w1 failed with the message, w2 was created and its test failed.
      expect(report.results.map((r) => r.status)).toEqual(['failed', 'done']);
      const out = renderApplyReport(report, format, { color: false });
      expect(out).toContain('Invalid data: token (sensitive) rejected');
      expect(out).toContain('cannot reach (sensitive)');
      expect(out).not.toContain(SECRET);
    });
  }
});
