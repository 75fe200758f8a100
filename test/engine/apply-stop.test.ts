// Apply stopping early: an interruption or a service that cannot be reached stops new changes from
// starting; changes under way finish; the report covers every change and says why it stopped.
import { describe, expect, it } from 'vitest';
import { ApiError, RequestInterrupted, ServiceUnreachable } from '../../src/api/types.js';
import { apply } from '../../src/ops/apply/apply.js';
import type { ChangeResult } from '../../src/model/plan.js';
import { change, FakeService, fakeKind, planOf } from './apply-fakes.js';

const Widget = fakeKind('Widget');
const kinds = [Widget];
const statuses = (results: ChangeResult[]) => results.map((r) => `${r.status} ${r.name}${r.reason ? ` (${r.reason})` : ''}`);
const creates = (n: number) => Array.from({ length: n }, (_, i) => change({ action: 'create', kind: 'Widget', name: `w${i + 1}` }));

describe('apply: interruption', () => {
  it('starts nothing after the signal, lets the change under way finish, and reports the rest as not started', async () => {
    const svc = new FakeService();
    const signal = new AbortController();
    const report = await apply(planOf(creates(5)), svc, {
      env: {},
      kinds,
      concurrency: 1,
      signal: signal.signal,
      hooks: { onChangeStart: (c) => c.name === 'w2' && signal.abort('SIGINT') },
    });
    expect(statuses(report.results)).toEqual([
      'done w1',
      'done w2',
      'skipped w3 (not started: interrupted by SIGINT)',
      'skipped w4 (not started: interrupted by SIGINT)',
      'skipped w5 (not started: interrupted by SIGINT)',
    ]);
    expect(report.stopped).toEqual({ cause: 'interrupted', message: 'interrupted by SIGINT', notStarted: 3 });
    expect(svc.records('prod', 'Widgets').map((r) => r.name)).toEqual(['w1', 'w2']);
  });

  it('a dependent of a change that never started is not started either, not "failed"', async () => {
    const svc = new FakeService();
    const signal = new AbortController();
    signal.abort('SIGTERM');
    const plan = planOf([change({ action: 'create', kind: 'Widget', name: 'a' }), change({ action: 'create', kind: 'Widget', name: 'b', dependsOn: ['prod/Widget/a'] })]);
    const report = await apply(plan, svc, { env: {}, kinds, signal: signal.signal });
    expect(statuses(report.results)).toEqual(['skipped a (not started: interrupted by SIGTERM)', 'skipped b (not started: interrupted by SIGTERM)']);
    expect(svc.log).toEqual([]);
  });

  it('a change whose request the interruption kept from being sent is not started; one that may have landed failed', async () => {
    const svc = new FakeService();
    const signal = new AbortController();
    // Both changes are under way when the signal comes; w1's request was never sent, w2's may have landed.
    svc.fault = (_req, index) => {
      signal.abort('SIGINT');
      return { when: 'before', error: new RequestInterrupted('POST', '/api/v2/Widgets', index === 1) as unknown as ApiError };
    };
    const report = await apply(planOf(creates(2)), svc, { env: {}, kinds, concurrency: 2, signal: signal.signal });
    expect(report.results[0]).toMatchObject({ status: 'skipped', reason: 'not started: interrupted by SIGINT' });
    expect(report.results[1].status).toBe('failed');
    expect(report.results[1].reason).toContain('whether it reached the service is unknown');
    expect(report.stopped?.notStarted).toBe(1);
  });
});

describe('apply: an unreachable service', () => {
  it('stops at the first ServiceUnreachable: nothing more is sent, the report names the address', async () => {
    const svc = new FakeService();
    const dead = new ServiceUnreachable('http://127.0.0.1:9', 'ECONNREFUSED', 4);
    svc.fault = (_req, index) => (index >= 2 ? { when: 'before', error: dead as unknown as ApiError } : undefined);
    const report = await apply(planOf(creates(6)), svc, { env: {}, kinds, concurrency: 1 });
    expect(report.results.map((r) => r.status)).toEqual(['done', 'done', 'skipped', 'skipped', 'skipped', 'skipped']);
    expect(report.results[2].reason).toBe(`not started: ${dead.message}`);
    expect(report.stopped).toMatchObject({ cause: 'unreachable', notStarted: 4 });
    expect(report.stopped?.message).toContain('http://127.0.0.1:9');
    // One request met the dead service; no change was tried after it.
    expect(svc.log).toHaveLength(3);
  });
});
