import { describe, expect, it } from 'vitest';
import { apply } from '../../src/ops/apply/apply.js';
import type { ChangeResult } from '../../src/model/plan.js';
import { change, FakeService, fakeKind, permanent, planOf } from './apply-fakes.js';

const Widget = fakeKind('Widget', { testable: true, writeOnly: ['/token'] });
const Gadget = fakeKind('Gadget', { references: [{ kind: 'Widget', pointer: '/widgets' }] });
const Box = fakeKind('Box', { ownsChildren: true });
const Item = fakeKind('Item', { parentKind: 'Box', documentKind: null });
const kinds = [Widget, Gadget, Box, Item];

const summaryOf = (results: ChangeResult[]) => results.map((r) => `${r.status} ${r.key}${r.reason ? ` (${r.reason})` : ''}`);

describe('apply: order and parallelism', () => {
  it('starts a change only after its dependencies, resolves a reference created in the same run, reports in plan order', async () => {
    const svc = new FakeService();
    const oldGadget = svc.seed('prod', 'Gadgets', 'g0');
    const w2 = svc.seed('prod', 'Widgets', 'w2', { size: 1 });
    const plan = planOf([
      change({ action: 'create', kind: 'Widget', name: 'w1', after: { size: 3 } }),
      change({
        action: 'create',
        kind: 'Gadget',
        name: 'g1',
        after: { widgets: ['w1', 'w2'] },
        refs: [{ kind: 'Widget', name: 'w1' }, { kind: 'Widget', name: 'w2', id: w2 }],
        dependsOn: ['prod/Widget/w1'],
      }),
      change({ action: 'update', kind: 'Widget', name: 'w2', liveId: w2, after: { size: 2 }, changed: ['size'] }),
      change({ action: 'delete', kind: 'Gadget', name: 'g0', liveId: oldGadget }),
    ]);
    const report = await apply(plan, svc, { env: {}, kinds });

    expect(report.results.map((r) => r.key)).toEqual(plan.changes.map((c) => c.key));
    expect(report.results.every((r) => r.status === 'done')).toBe(true);
    const w1 = svc.records('prod', 'Widgets').find((r) => r.name === 'w1');
    expect(report.results[0].liveId).toBe(w1?.id);
    // The gadget was created after the widget's create completed, naming it by its new id.
    expect(svc.completed).toContain('POST /api/v2/Widgets');
    expect(svc.completed.indexOf('POST /api/v2/Widgets')).toBeLessThan(svc.completed.indexOf('POST /api/v2/Gadgets'));
    expect(svc.records('prod', 'Gadgets').find((r) => r.name === 'g1')?.spec).toEqual({ widgets: [w1?.id, w2] });
    expect(svc.records('prod', 'Widgets').find((r) => r.id === w2)?.spec).toEqual({ size: 2 });
    expect(svc.records('prod', 'Gadgets').some((r) => r.id === oldGadget)).toBe(false);
    expect(report.summary).toEqual({ create: 2, update: 1, replace: 0, delete: 1, done: 4, failed: 0, skipped: 0 });
  });

  it('runs independent changes in parallel, never more than the bound', async () => {
    const changes = Array.from({ length: 9 }, (_, i) => change({ action: 'create', kind: 'Widget', name: `w${i}` }));
    const svc3 = new FakeService();
    await apply(planOf(changes), svc3, { env: {}, kinds, concurrency: 3 });
    expect(svc3.maxInflight).toBe(3);
    expect(svc3.records('prod', 'Widgets')).toHaveLength(9);

    const svc1 = new FakeService();
    await apply(planOf(changes), svc1, { env: {}, kinds, concurrency: 1 });
    expect(svc1.maxInflight).toBe(1);
    expect(svc1.records('prod', 'Widgets').map((r) => r.name)).toEqual(changes.map((c) => c.name));

    const svcDefault = new FakeService();
    await apply(planOf(changes), svcDefault, { env: {}, kinds });
    expect(svcDefault.maxInflight).toBe(4);
  });

  it('skips every change depending (transitively) on a failed one and carries on with the others', async () => {
    const svc = new FakeService();
    svc.fault = (req) => (req.method === 'POST' && (req.body as { name: string }).name === 'w1' ? { when: 'before', error: permanent(400, 'Invalid data: size') } : undefined);
    const plan = planOf([
      change({ action: 'create', kind: 'Widget', name: 'w1' }),
      change({ action: 'create', kind: 'Gadget', name: 'g1', after: { widgets: ['w1'] }, refs: [{ kind: 'Widget', name: 'w1' }], dependsOn: ['prod/Widget/w1'] }),
      change({ action: 'create', kind: 'Gadget', name: 'g2', dependsOn: ['prod/Gadget/g1'] }),
      change({ action: 'create', kind: 'Widget', name: 'w3' }),
    ]);
    const report = await apply(plan, svc, { env: {}, kinds });
    expect(summaryOf(report.results)).toEqual([
      'failed prod/Widget/w1 (POST /api/v2/x failed (permanent): 400: Invalid data: size)',
      'skipped prod/Gadget/g1 (depends on prod/Widget/w1, which failed)',
      'skipped prod/Gadget/g2 (depends on prod/Widget/w1, which failed)',
      'done prod/Widget/w3',
    ]);
    expect(svc.log.filter((r) => r.path === '/api/v2/Gadgets')).toHaveLength(0);
    expect(report.summary).toEqual({ create: 4, update: 0, replace: 0, delete: 0, done: 1, failed: 1, skipped: 2 });
  });

  it('fails changes whose dependencies form a cycle instead of hanging', async () => {
    const svc = new FakeService();
    const plan = planOf([
      change({ action: 'create', kind: 'Widget', name: 'a', dependsOn: ['prod/Widget/b'] }),
      change({ action: 'create', kind: 'Widget', name: 'b', dependsOn: ['prod/Widget/a'] }),
      change({ action: 'create', kind: 'Widget', name: 'c' }),
    ]);
    const report = await apply(plan, svc, { env: {}, kinds });
    expect(report.results.map((r) => r.status)).toEqual(['failed', 'failed', 'done']);
    expect(report.results[0].reason).toContain('cycle');
  });

  it('calls the hooks for every change, in start and finish pairs, and keeps going when a hook throws', async () => {
    const svc = new FakeService();
    svc.fault = (req) => (req.method === 'POST' ? { when: 'before', error: permanent(409, 'conflict') } : undefined);
    const events: string[] = [];
    const plan = planOf([
      change({ action: 'create', kind: 'Widget', name: 'w1' }),
      change({ action: 'create', kind: 'Widget', name: 'w2', dependsOn: ['prod/Widget/w1'] }),
    ]);
    const report = await apply(plan, svc, {
      env: {},
      kinds,
      hooks: {
        onChangeStart: (c) => {
          events.push(`start ${c.key}`);
          throw new Error('display broke');
        },
        onChangeDone: (r) => events.push(`${r.status} ${r.key}`),
      },
    });
    expect(events).toEqual(['start prod/Widget/w1', 'failed prod/Widget/w1', 'skipped prod/Widget/w2']);
    expect(report.summary.failed).toBe(1);
  });
});

describe('apply: requests through the kind', () => {
  it('resolves env markers only in the request and names a missing variable without sending anything', async () => {
    const svc = new FakeService();
    const plan = planOf([
      change({ action: 'create', kind: 'Widget', name: 'w1', after: { token: { $env: 'Bearer ${env:TOKEN}' }, size: 1 } }),
      change({ action: 'create', kind: 'Widget', name: 'w2', after: { token: { $env: '${env:MISSING_ONE}' } } }),
    ]);
    const report = await apply(plan, svc, { env: { TOKEN: 'tok-123456' }, kinds });
    expect(svc.records('prod', 'Widgets').find((r) => r.name === 'w1')?.spec).toEqual({ token: 'Bearer tok-123456', size: 1 });
    expect(report.results[1]).toMatchObject({ status: 'failed', reason: 'environment variable not set: MISSING_ONE' });
    expect(svc.log.filter((r) => r.method === 'POST')).toHaveLength(1);
    // The plan itself still holds the marker, not the value.
    expect(JSON.stringify(plan)).not.toContain('tok-123456');
  });

  it('never stores a resolved secret in a reason or a test message', async () => {
    const secret = 'hunter2-very-secret';
    const svc = new FakeService();
    svc.fault = (req) => (req.method === 'POST' ? { when: 'before', error: permanent(400, `Invalid data: token ${secret} rejected`) } : undefined);
    const plan = planOf([change({ action: 'create', kind: 'Widget', name: 'w1', after: { token: { $env: '${env:TOKEN}' } } })]);
    const report = await apply(plan, svc, { env: { TOKEN: secret }, kinds });
    expect(report.results[0].status).toBe('failed');
    expect(report.results[0].reason).toContain('Invalid data: token (sensitive) rejected');
    expect(JSON.stringify(report)).not.toContain(secret);

    const svc2 = new FakeService();
    svc2.testFailure = `cannot reach ${secret}`;
    const report2 = await apply(plan, svc2, { env: { TOKEN: secret }, kinds, testResources: true });
    expect(report2.results[0]).toMatchObject({ status: 'done', test: { ok: false, message: 'cannot reach (sensitive)' } });
  });

  it('replaces by deleting then creating, and fails before the delete when the create cannot be built', async () => {
    const svc = new FakeService();
    const old = svc.seed('prod', 'Widgets', 'w1', { size: 1 });
    const report = await apply(planOf([change({ action: 'replace', kind: 'Widget', name: 'w1', liveId: old, after: { size: 2 } })]), svc, { env: {}, kinds });
    expect(svc.log.map((r) => `${r.method} ${r.path}`)).toEqual([`DELETE /api/v2/Widgets/${old}`, 'POST /api/v2/Widgets']);
    const now = svc.records('prod', 'Widgets');
    expect(now).toHaveLength(1);
    expect(report.results[0]).toMatchObject({ status: 'done', action: 'replace', liveId: now[0].id });
    expect(now[0].id).not.toBe(old);

    const svc2 = new FakeService();
    const old2 = svc2.seed('prod', 'Widgets', 'w1');
    const r2 = await apply(planOf([change({ action: 'replace', kind: 'Widget', name: 'w1', liveId: old2, after: { token: { $env: '${env:NOPE}' } } })]), svc2, {
      env: {},
      kinds,
    });
    expect(r2.results[0]).toMatchObject({ status: 'failed', reason: 'environment variable not set: NOPE' });
    expect(svc2.log).toHaveLength(0);
  });

  it('uses the id of a resource replaced earlier in the run, not the id the plan knew', async () => {
    const svc = new FakeService();
    const old = svc.seed('prod', 'Widgets', 'w1');
    const plan = planOf([
      change({ action: 'replace', kind: 'Widget', name: 'w1', liveId: old }),
      change({ action: 'create', kind: 'Gadget', name: 'g1', after: { widgets: ['w1'] }, refs: [{ kind: 'Widget', name: 'w1', id: old }], dependsOn: ['prod/Widget/w1'] }),
    ]);
    const report = await apply(plan, svc, { env: {}, kinds });
    expect(svc.records('prod', 'Gadgets')[0].spec).toEqual({ widgets: [report.results[0].liveId] });
    expect(report.results[0].liveId).not.toBe(old);
  });

  it('fails a change whose reference has no id and was not created in this run', async () => {
    const svc = new FakeService();
    const plan = planOf([change({ action: 'create', kind: 'Gadget', name: 'g1', after: { widgets: ['ghost'] }, refs: [{ kind: 'Widget', name: 'ghost' }] })]);
    const report = await apply(plan, svc, { env: {}, kinds });
    expect(report.results[0]).toMatchObject({ status: 'failed' });
    expect(report.results[0].reason).toContain('Widget "ghost" in account prod has no live id');
    expect(svc.log).toHaveLength(0);
  });

  it('counts a delete answered 404 as done (already gone)', async () => {
    const svc = new FakeService();
    const report = await apply(planOf([change({ action: 'delete', kind: 'Widget', name: 'w9', liveId: 'WIDGETS-404' })]), svc, { env: {}, kinds });
    expect(report.results[0]).toMatchObject({ status: 'done', reason: 'already gone', liveId: 'WIDGETS-404' });
  });

  it('creates children with their owner, as resources of the owned kind', async () => {
    const svc = new FakeService();
    const plan = planOf([
      change({ action: 'create', kind: 'Box', name: 'B1', after: { color: 'red' }, children: [{ name: 'B1.first', after: { text: 'x' } }] }),
    ]);
    await apply(plan, svc, { env: {}, kinds });
    expect(svc.log[0].body).toMatchObject({ name: 'B1', children: [{ kind: 'Item', name: 'B1.first', parent: 'B1', spec: { text: 'x' } }] });
  });

  it('addresses organization-level accounts with Org-Access instead of Account-Name', async () => {
    const svc = new FakeService();
    const plan = planOf([change({ action: 'create', kind: 'Widget', name: 'w1', account: 'org' })], [{ name: 'org', orgAccess: true }]);
    const report = await apply(plan, svc, { env: {}, kinds });
    expect(report.results[0].status).toBe('done');
    expect(svc.log[0]).toMatchObject({ orgAccess: true, account: undefined });
  });
});

describe('apply: test channels and the report', () => {
  it('tests created, updated and replaced resources of testable kinds only when asked', async () => {
    const svc = new FakeService();
    const w = svc.seed('prod', 'Widgets', 'w2');
    const plan = planOf([
      change({ action: 'create', kind: 'Widget', name: 'w1' }),
      change({ action: 'update', kind: 'Widget', name: 'w2', liveId: w, changed: ['size'], after: { size: 1 } }),
      change({ action: 'create', kind: 'Gadget', name: 'g1' }),
    ]);
    const report = await apply(plan, svc, { env: {}, kinds, testResources: true });
    expect(report.results.map((r) => r.test)).toEqual([{ ok: true }, { ok: true }, undefined]);
    expect(svc.log.filter((r) => r.path.endsWith('/test'))).toHaveLength(2);

    const quiet = new FakeService();
    const r2 = await apply(planOf([change({ action: 'create', kind: 'Widget', name: 'w1' })]), quiet, { env: {}, kinds });
    expect(r2.results[0].test).toBeUndefined();
    expect(quiet.log.some((r) => r.path.endsWith('/test'))).toBe(false);

    const failing = new FakeService();
    failing.testFailure = 'Slack answered 404';
    const r3 = await apply(planOf([change({ action: 'create', kind: 'Widget', name: 'w1' })]), failing, { env: {}, kinds, testResources: true });
    expect(r3.results[0]).toMatchObject({ status: 'done', test: { ok: false, message: 'Slack answered 404' } });
    expect(r3.summary.failed).toBe(0);
  });

  it('reports the calls this apply made and the seconds it waited', async () => {
    const svc = new FakeService();
    await svc.request({ method: 'GET', path: '/api/v2/Widgets' });
    let waited = 5;
    const report = await apply(planOf([change({ action: 'create', kind: 'Widget', name: 'w1' })]), svc, {
      env: {},
      kinds,
      testResources: true,
      waited: () => {
        const now = waited;
        waited += 7;
        return now;
      },
    });
    expect(report.apiCalls).toEqual({ total: 2, byBucket: { 'POST Widgets': 1, 'POST Widgets/test': 1 } });
    expect(report.waitedSeconds).toBe(7);
    expect(report.formatVersion).toBe(2);
  });

  it('refuses a concurrency that is not a positive integer', async () => {
    const plan = planOf([change({ action: 'create', kind: 'Widget', name: 'w1' })]);
    for (const concurrency of [0, -1, 1.5, Number.NaN]) {
      await expect(apply(plan, new FakeService(), { env: {}, kinds, concurrency })).rejects.toThrow('concurrency must be a positive integer');
    }
  });

  it('refuses a plan with two changes of one key', async () => {
    const c = change({ action: 'create', kind: 'Widget', name: 'w1' });
    await expect(apply(planOf([c, c]), new FakeService(), { env: {}, kinds })).rejects.toThrow('two changes with the key prod/Widget/w1');
  });
});
