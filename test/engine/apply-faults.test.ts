import { describe, expect, it } from 'vitest';
import { type ApiClient, type ApiRequest, ApiError } from '../../src/api/types.js';
import { CONFIRMED_REASON } from '../../src/ops/apply/apply-change.js';
import { apply } from '../../src/ops/apply/apply.js';
import { change, FakeService, fakeKind, permanent, planOf, unknownOutcome } from './apply-fakes.js';

const Widget = fakeKind('Widget');
const kinds = [Widget];
const createW1 = () => planOf([change({ action: 'create', kind: 'Widget', name: 'w1', after: { size: 1 } })]);
const calls = (svc: FakeService) => svc.log.map((r) => `${r.method} ${r.path}`);

describe('apply: creates whose outcome is unknown', () => {
  it('finds a create that happened by listing once, and does not repeat it', async () => {
    const svc = new FakeService();
    svc.fault = (req, i) => (i === 0 ? { when: 'after', error: unknownOutcome() } : undefined);
    const report = await apply(createW1(), svc, { env: {}, kinds });
    const stored = svc.records('prod', 'Widgets');
    expect(stored).toHaveLength(1);
    expect(report.results[0]).toMatchObject({ status: 'done', reason: CONFIRMED_REASON, liveId: stored[0].id });
    expect(calls(svc)).toEqual(['POST /api/v2/Widgets', 'GET /api/v2/Widgets']);
    expect(svc.log[1]).toMatchObject({ account: 'prod' });
  });

  it('repeats a create that did not happen, once it has looked', async () => {
    const svc = new FakeService();
    svc.fault = (req, i) => (i === 0 ? { when: 'before', error: unknownOutcome() } : undefined);
    let t = 0;
    const report = await apply(createW1(), svc, { env: {}, kinds, now: () => t, sleep: async (ms) => void (t += ms) });
    expect(calls(svc)).toEqual(['POST /api/v2/Widgets', 'GET /api/v2/Widgets', 'POST /api/v2/Widgets']);
    expect(svc.records('prod', 'Widgets')).toHaveLength(1);
    expect(report.results[0]).toMatchObject({ status: 'done', liveId: svc.records('prod', 'Widgets')[0].id });
    expect(report.results[0].reason).toBeUndefined();
  });

  it('fails a create the client did not send (transient: 429, budget, never connected) without a lookup', async () => {
    const svc = new FakeService();
    const transient = new ApiError({ kind: 'transient', status: 429, method: 'POST', path: '/api/v2/Widgets' });
    svc.fault = (req, i) => (i === 0 ? { when: 'before', error: transient } : undefined);
    const report = await apply(createW1(), svc, { env: {}, kinds });
    expect(calls(svc)).toEqual(['POST /api/v2/Widgets']);
    expect(report.results[0].status).toBe('failed');
    expect(report.results[0].reason).toContain('429');
    expect(svc.records('prod', 'Widgets')).toHaveLength(0);
  });

  it('treats a created response without an id as an unknown outcome', async () => {
    const svc = new FakeService();
    const kind = { ...Widget, createdId: () => Widget.createdId({}, { kind: 'Widget', account: 'prod', name: 'w1', spec: {}, envRefs: {} }) };
    const report = await apply(createW1(), svc, { env: {}, kinds: [kind] });
    expect(report.results[0]).toMatchObject({ status: 'done', reason: CONFIRMED_REASON });
    expect(calls(svc)).toEqual(['POST /api/v2/Widgets', 'GET /api/v2/Widgets']);
  });

  it('tries a create that stays unknown (and is not found) again for a budget of time, not a count: pauses of 1, 2, 4 s... up to 30 s', async () => {
    const svc = new FakeService();
    svc.fault = (req) => (req.method === 'POST' ? { when: 'before', error: unknownOutcome() } : undefined);
    let t = 0;
    const pauses: number[] = [];
    const report = await apply(createW1(), svc, { env: {}, kinds, now: () => t, sleep: async (ms) => void (pauses.push(ms), (t += ms)), retryBudgetMs: 120_000 });
    // 1+2+4+8+16+30+30+29 = 120 s: eight pauses, nine attempts, each after a look that found nothing.
    expect(pauses).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 29000]);
    expect(calls(svc).filter((c) => c.startsWith('POST'))).toHaveLength(9);
    expect(calls(svc).filter((c) => c.startsWith('GET'))).toHaveLength(9);
    expect(report.results[0].status).toBe('failed');
    expect(report.results[0].reason).toContain('create outcome unknown 9 times in 120s and not found by name');
  });

  it('a create that stays unknown but lands on a later attempt converges in the same apply', async () => {
    const svc = new FakeService();
    // The first four creates fail before the service processes them, the fifth lands but answers 500.
    svc.fault = (req, i) => (req.method === 'POST' ? (i < 8 ? { when: 'before', error: unknownOutcome() } : i === 8 ? { when: 'after', error: unknownOutcome() } : undefined) : undefined);
    let t = 0;
    const report = await apply(createW1(), svc, { env: {}, kinds, now: () => t, sleep: async (ms) => void (t += ms) });
    expect(report.results[0]).toMatchObject({ status: 'done', reason: CONFIRMED_REASON });
    expect(svc.records('prod', 'Widgets')).toHaveLength(1);
  });

  it('looks up a create that got no answer at all only after the longest a request may take', async () => {
    const svc = new FakeService();
    const dropped = new ApiError({ kind: 'outcome-unknown', method: 'POST', path: '/api/v2/Widgets', detail: 'network error (ECONNRESET)', networkCode: 'ECONNRESET' });
    svc.fault = (req, i) => (i === 0 ? { when: 'after', error: dropped } : undefined);
    let t = 0;
    const looked: number[] = [];
    const client: ApiClient = {
      request: <T,>(req: ApiRequest) => (req.method === 'GET' && looked.push(t), svc.request<T>(req)),
      budget: () => [],
      stats: () => svc.stats(),
      close: async () => undefined,
      requestBoundMs: () => 12_000,
    };
    const report = await apply(createW1(), client, { env: {}, kinds, now: () => t, sleep: async (ms) => void (t += ms) });
    expect(report.results[0]).toMatchObject({ status: 'done', reason: CONFIRMED_REASON });
    expect(looked).toEqual([12_000]);
  });

  it('fails, naming the ids, when the lookup finds more than one resource of that name', async () => {
    const svc = new FakeService();
    const existing = svc.seed('prod', 'Widgets', 'w1');
    svc.fault = (req, i) => (i === 0 ? { when: 'after', error: unknownOutcome() } : undefined);
    const report = await apply(createW1(), svc, { env: {}, kinds });
    const ids = svc.records('prod', 'Widgets').map((r) => r.id).sort();
    expect(ids).toContain(existing);
    expect(report.results[0]).toMatchObject({ status: 'failed', reason: `duplicate names after unknown outcome: ids ${ids.join(', ')}` });
  });

  it('fails when the lookup itself fails, and does not repeat the create', async () => {
    const svc = new FakeService();
    svc.fault = (req, i) =>
      i === 0 ? { when: 'before', error: unknownOutcome() } : req.method === 'GET' ? { when: 'before', error: permanent(403, 'Forbidden') } : undefined;
    const report = await apply(createW1(), svc, { env: {}, kinds });
    expect(report.results[0].status).toBe('failed');
    expect(report.results[0].reason).toContain('looking it up failed');
    expect(calls(svc)).toEqual(['POST /api/v2/Widgets', 'GET /api/v2/Widgets']);
  });

  it('does not look up after a permanent error: the create failed', async () => {
    const svc = new FakeService();
    svc.fault = () => ({ when: 'before', error: permanent(400, 'Invalid data') });
    const report = await apply(createW1(), svc, { env: {}, kinds });
    expect(calls(svc)).toEqual(['POST /api/v2/Widgets']);
    expect(report.results[0].status).toBe('failed');
  });

  it('reports a replace whose delete went through but whose create failed', async () => {
    const svc = new FakeService();
    const old = svc.seed('prod', 'Widgets', 'w1');
    svc.fault = (req) => (req.method === 'POST' ? { when: 'before', error: permanent(400, 'Invalid data') } : undefined);
    const report = await apply(planOf([change({ action: 'replace', kind: 'Widget', name: 'w1', liveId: old })]), svc, { env: {}, kinds });
    expect(report.results[0].status).toBe('failed');
    expect(report.results[0].reason).toMatch(new RegExp(`^deleted ${old}, but creating its replacement failed: .*400: Invalid data`));
  });
});
