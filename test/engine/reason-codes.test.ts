// Every reason code of the closed union (src/model/reasons.ts) is made by the code that owns it,
// through its real path (the planner, apply, the create guard), and every rendering shows it by its
// code: JSON carries it, the terminal paints it by its tone, Markdown shows the message (and lists a
// done change with a warning outside the fold).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ApiError, RequestInterrupted } from '../../src/api/types.js';
import { plan as buildPlan } from '../../src/plan/steps/plan.js';
import { apply, countNotStarted, summarize } from '../../src/ops/apply/apply.js';
import { CreatedIds, runChange } from '../../src/ops/apply/apply-change.js';
import type { Leases } from '../../src/ops/lease/lease.js';
import type { FetchContext } from '../../src/kinds/types.js';
import { type ApplyReport, type Change, type ChangeResult, type Plan, PLAN_FORMAT_VERSION } from '../../src/model/plan.js';
import { CHANGE_REASON_CODES, type ChangeReasonCode, REASON_CODES, RESULT_REASON_CODES, type ResultReasonCode } from '../../src/model/reasons.js';
import { escapeMd } from '../../src/model/inert.js';
import { renderApplyReport, renderPlan } from '../../src/render/index.js';
import { REASON_TONE, type ReasonTone } from '../../src/render/reasons.js';
import { change, FakeService, fakeKind, permanent, planOf, unknownOutcome } from './apply-fakes.js';
import { desired, desiredState, FAKE_KINDS, live, liveState } from './plan-fakes.js';

const Widget = fakeKind('Widget');
const Gadget = fakeKind('Gadget', { references: [{ kind: 'Widget', pointer: '/widgets' }] });
const kinds = [Widget, Gadget];

/** The planner's changes for a desired and a live state of the fake kinds (prune on for Rule). */
function planned(d: Parameters<typeof desiredState>[0], l: Parameters<typeof liveState>[0]): Change[] {
  const result = buildPlan(desiredState(d, { Rule: true }), liveState(l), { kinds: FAKE_KINDS });
  expect(result.diagnostics.filter((x) => x.severity === 'error')).toEqual([]);
  return result.plan!.changes;
}

const hook = (url: string) => ({ type: 'Webhook', data: { url } });

/** One change of the planner, by key. */
const changeOf = (changes: Change[], key: string): Change => changes.find((c) => c.key === key)!;

const CHANGE_SCENARIOS: Record<ChangeReasonCode, { tone: ReasonTone; make: () => Change }> = {
  'replace-because-cannot-update': {
    tone: 'warning',
    make: () => changeOf(planned([desired('Channel', 'ops', { type: 'Slack', data: { url: 'u' } })], [live('Channel', 'ops', 'C1', hook('u'))]), 'prod/Channel/ops'),
  },
  'update-because-reference-replaced': {
    tone: 'note',
    make: () =>
      changeOf(
        planned(
          [desired('Channel', 'ops', { type: 'Slack', data: { url: 'u' } }), desired('Rule', 'r', { channels: ['ops'], severity: [1] })],
          [live('Channel', 'ops', 'C1', hook('u')), live('Rule', 'r', 'R1', { channels: ['ops'], severity: [1] })],
        ),
        'prod/Rule/r',
      ),
  },
  'delete-because-not-declared': {
    tone: 'note',
    make: () => changeOf(planned([], [live('Rule', 'stray', 'R9', { channels: [], severity: [1] })]), 'prod/Rule/stray'),
  },
  'delete-because-not-in-parent': {
    tone: 'note',
    make: () =>
      changeOf(
        planned(
          [desired('Profile', 'P', { extends: 'SVC_A' })],
          [live('Profile', 'P', 'P', { extends: 'SVC_A' }), live('Template', 'P.gone', 'P.gone', { subject: 'g' }, { parent: 'P' })],
        ),
        'prod/Template/P.gone',
      ),
  },
};

/** The result of one change's key in an apply of `changes` against `svc`. */
async function applied(svc: FakeService, changes: Change[], key: string, options: { signal?: AbortSignal; env?: Record<string, string> } = {}): Promise<ChangeResult> {
  // A virtual clock: a create whose outcome stays unknown is tried again for minutes.
  let t = 0;
  const report = await apply(planOf(changes), svc, { env: options.env ?? {}, kinds, signal: options.signal, now: () => t, sleep: async (ms) => void (t += ms) });
  return report.results.find((r) => r.key === key)!;
}

const w1 = () => change({ action: 'create', kind: 'Widget', name: 'w1', after: { size: 1 } });

const RESULT_SCENARIOS: Record<ResultReasonCode, { status: ChangeResult['status']; tone: ReasonTone; make: () => Promise<ChangeResult> }> = {
  'created-after-unknown-outcome': {
    status: 'done',
    tone: 'note',
    make: () => {
      const svc = new FakeService();
      svc.fault = (_req, i) => (i === 0 ? { when: 'after', error: unknownOutcome() } : undefined);
      return applied(svc, [w1()], 'prod/Widget/w1');
    },
  },

  'already-gone': {
    status: 'done',
    tone: 'note',
    make: () => applied(new FakeService(), [change({ action: 'delete', kind: 'Widget', name: 'w1', liveId: 'WIDGETS-404' })], 'prod/Widget/w1'),
  },
  'not-started': {
    status: 'skipped',
    tone: 'note',
    make: () => {
      const stop = new AbortController();
      stop.abort('SIGINT');
      return applied(new FakeService(), [w1()], 'prod/Widget/w1', { signal: stop.signal });
    },
  },
  'dependency-failed': {
    status: 'skipped',
    tone: 'note',
    make: () => {
      const svc = new FakeService();
      svc.fault = (req) => (req.method === 'POST' && req.path === '/api/v2/Widgets' ? { when: 'before', error: permanent(400, 'Invalid data') } : undefined);
      return applied(svc, [w1(), change({ action: 'create', kind: 'Gadget', name: 'g1', dependsOn: ['prod/Widget/w1'] })], 'prod/Gadget/g1');
    },
  },
  'dependency-cycle': {
    status: 'failed',
    tone: 'failure',
    make: () =>
      applied(
        new FakeService(),
        [
          change({ action: 'create', kind: 'Widget', name: 'a', dependsOn: ['prod/Widget/b'] }),
          change({ action: 'create', kind: 'Widget', name: 'b', dependsOn: ['prod/Widget/a'] }),
        ],
        'prod/Widget/a',
      ),
  },
  'request-failed': {
    status: 'failed',
    tone: 'failure',
    make: () => {
      const svc = new FakeService();
      svc.fault = () => ({ when: 'before', error: permanent(400, 'Invalid data: size') });
      return applied(svc, [w1()], 'prod/Widget/w1');
    },
  },
  'outcome-unknown': {
    status: 'failed',
    tone: 'failure',
    make: () => {
      const svc = new FakeService();
      svc.fault = (req) => (req.method === 'POST' ? { when: 'before', error: unknownOutcome() } : undefined);
      return applied(svc, [w1()], 'prod/Widget/w1');
    },
  },
  interrupted: {
    status: 'failed',
    tone: 'failure',
    make: () => {
      const svc = new FakeService();
      svc.fault = () => ({ when: 'before', error: new RequestInterrupted('POST', '/api/v2/Widgets', true) as unknown as ApiError });
      return applied(svc, [w1()], 'prod/Widget/w1');
    },
  },
  'replacement-failed': {
    status: 'failed',
    tone: 'failure',
    make: () => {
      const svc = new FakeService();
      const old = svc.seed('prod', 'Widgets', 'w1');
      svc.fault = (req) => (req.method === 'POST' ? { when: 'before', error: permanent(400, 'Invalid data') } : undefined);
      return applied(svc, [change({ action: 'replace', kind: 'Widget', name: 'w1', liveId: old })], 'prod/Widget/w1');
    },
  },
  'missing-value': {
    status: 'failed',
    tone: 'failure',
    make: () =>
      applied(new FakeService(), [change({ action: 'create', kind: 'Widget', name: 'w1', after: { token: { $env: '${env:MISSING_ONE}' } } })], 'prod/Widget/w1'),
  },
  'no-longer-live': {
    status: 'failed',
    tone: 'failure',
    make: async () => {
      // A kind whose ids are credentials reads the record afresh: it is not there any more.
      const svc = new FakeService();
      const report = await apply(planOf([change({ action: 'update', kind: 'Widget', name: 'w1', liveId: 'WIDGETS-9', changed: ['size'] })]), svc, {
        env: {},
        kinds: [
          {
            ...Widget,
            credentials: {
              ...Widget.credentials,
              secretIds: true,
            },
          },
        ],
      });
      return report.results[0];
    },
  },
  'invalid-change': {
    status: 'failed',
    tone: 'failure',
    make: () => applied(new FakeService(), [change({ action: 'update', kind: 'Widget', name: 'w1' })], 'prod/Widget/w1'),
  },
  'change-failed': {
    status: 'failed',
    tone: 'failure',
    make: async () => {
      const broken = {
        ...Widget,
        createRequest: () => {
          throw new TypeError('the kind could not build its request');
        },
      };
      const report = await apply(planOf([w1()]), new FakeService(), { env: {}, kinds: [broken] });
      return report.results[0];
    },
  },
};

const ESC = { failure: '\u001b[31m', warning: '\u001b[33m', note: '\u001b[2m' } as const;

function planWith(c: Change): Plan {
  return { ...planOf([c]), formatVersion: PLAN_FORMAT_VERSION };
}

function reportWith(r: ChangeResult): ApplyReport {
  return { formatVersion: PLAN_FORMAT_VERSION, accounts: ['prod'], results: [r], summary: summarize([r]), apiCalls: { total: 0, byBucket: {} }, waitedSeconds: 0 };
}

describe('reason codes: every one is made and rendered', () => {
  it('the scenarios cover the union exactly, and each code is documented and has a tone', () => {
    expect(Object.keys({ ...CHANGE_SCENARIOS, ...RESULT_SCENARIOS }).sort()).toEqual(Object.keys(REASON_CODES).sort());
    expect(Object.keys(REASON_TONE).sort()).toEqual(Object.keys(REASON_CODES).sort());
    for (const text of Object.values(REASON_CODES)) expect(text.length).toBeGreaterThan(10);
    // The plan's and apply's codes are apart: a change never carries a result's code.
    expect(Object.keys(CHANGE_REASON_CODES).filter((c) => c in RESULT_REASON_CODES)).toEqual([]);
  });

  it('docs/commands.md lists exactly the codes, in the order of the union', () => {
    const docs = readFileSync(new URL('../../docs/commands.md', import.meta.url), 'utf8');
    const section = docs.slice(docs.indexOf('### Reason codes'));
    const listed = [...section.matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1]);
    expect(listed).toEqual(Object.keys(REASON_CODES));
  });

  for (const [code, s] of Object.entries(CHANGE_SCENARIOS) as [ChangeReasonCode, (typeof CHANGE_SCENARIOS)[ChangeReasonCode]][]) {
    it(`change: ${code}`, () => {
      const c = s.make();
      expect(c.reasonCode).toBe(code);
      expect(c.reason).toMatch(/\w/);
      expect(REASON_TONE[code]).toBe(s.tone);
      const plan = planWith(c);
      const doc = JSON.parse(renderPlan(plan, 'json', { color: false }));
      expect(doc.changes[0]).toMatchObject({ reasonCode: code, reason: c.reason });
      expect(renderPlan(plan, 'text', { color: true })).toContain(`${ESC[s.tone]}${c.reason}`);
      expect(renderPlan(plan, 'markdown', { color: false })).toContain(escapeMd(c.reason!));
    });
  }

  for (const [code, s] of Object.entries(RESULT_SCENARIOS) as [ResultReasonCode, (typeof RESULT_SCENARIOS)[ResultReasonCode]][]) {
    it(`result: ${code}`, async () => {
      const r = await s.make();
      expect(r).toMatchObject({ status: s.status, reasonCode: code });
      expect(r.reason).toMatch(/\w/);
      expect(REASON_TONE[code]).toBe(s.tone);
      const report = reportWith(r);
      const doc = JSON.parse(renderApplyReport(report, 'json', { color: false }));
      expect(doc.results[0]).toMatchObject({ reasonCode: code, reason: r.reason });
      expect(renderApplyReport(report, 'text', { color: true })).toContain(`${ESC[s.tone]}${r.reason}`);
      const md = renderApplyReport(report, 'markdown', { color: false });
      expect(md).toContain(escapeMd(r.reason!));
      // A done change with a warning is listed outside the folded "Done" list; nothing else is.
      expect(md.includes('### Done, with a warning (1)')).toBe(s.status === 'done' && s.tone === 'warning');
    });
  }
});

describe('reason codes: counts and renderings read the code, never the words', () => {
  const result = (over: Partial<ChangeResult>): ChangeResult => ({
    key: 'prod/Widget/w',
    action: 'create',
    kind: 'Widget',
    account: 'prod',
    name: 'w',
    status: 'skipped',
    ...over,
  });

  it('a skipped change whose message reads like "not started:" is not counted as not started unless its code says so', () => {
    const lookalike = result({ reason: 'not started: looks like a stop, but a dependency failed', reasonCode: 'dependency-failed' });
    const real = result({ key: 'prod/Widget/x', reason: 'interrupted by SIGINT', reasonCode: 'not-started' });
    expect(countNotStarted([lookalike])).toBe(0);
    expect(countNotStarted([lookalike, real])).toBe(1);
    // The code alone decides, whatever the message is.
    expect(countNotStarted([result({ reason: 'anything', reasonCode: 'not-started' })])).toBe(1);
    // A failed change is never "not started", even with that code's words (a dependency cycle).
    expect(countNotStarted([result({ status: 'failed', reason: 'not started: its dependencies form a cycle (a)', reasonCode: 'dependency-cycle' })])).toBe(0);
  });

  it("apply's stopped count is the not-started code's: a change cut off in flight is failed, not counted", async () => {
    const svc = new FakeService();
    const stop = new AbortController();
    svc.fault = (_req, index) => {
      stop.abort('SIGINT');
      return { when: 'before', error: new RequestInterrupted('POST', '/api/v2/Widgets', index === 0) as unknown as ApiError };
    };
    const report = await apply(planOf([w1(), change({ action: 'create', kind: 'Widget', name: 'w2' }), change({ action: 'create', kind: 'Widget', name: 'w3' })]), svc, {
      env: {},
      kinds,
      concurrency: 1,
      signal: stop.signal,
    });
    expect(report.results.map((r) => [r.status, r.reasonCode])).toEqual([
      ['failed', 'interrupted'],
      ['skipped', 'not-started'],
      ['skipped', 'not-started'],
    ]);
    expect(report.stopped).toMatchObject({ cause: 'interrupted', notStarted: 2 });
  });

  it('the terminal paints by the code: a failure-like message under a note code stays quiet, a quiet message under a failure code is red', () => {
    const quiet = reportWith(result({ status: 'done', reason: 'FAILED: request refused', reasonCode: 'already-gone' }));
    expect(renderApplyReport(quiet, 'text', { color: true })).toContain(`${ESC.note}FAILED: request refused`);
    const loud = reportWith(result({ status: 'failed', reason: 'all fine', reasonCode: 'request-failed' }));
    expect(renderApplyReport(loud, 'text', { color: true })).toContain(`${ESC.failure}all fine`);
    // Markdown: a done change is folded unless its code is a warning, whatever its words.
    const worded = reportWith(result({ status: 'done', reason: 'two remain; removing failed', reasonCode: 'created-after-unknown-outcome' }));
    expect(renderApplyReport(worded, 'markdown', { color: false })).not.toContain('with a warning');
  });
});
