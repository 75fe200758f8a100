// The capabilities the next kinds need (policies, queries, exceptions, predefined policies), each
// driven by the step that reads it, through test-only kinds: a collection listed per parent (live
// read and pre-flight), one bulk update for many records (apply and its budget), a reference into a
// member of another record and an id derived from a suffix (plan), a check the service makes at plan
// time (the run layer's service checks and their pre-flight). The client is an in-test fake.

import { describe, expect, it } from 'vitest';
import { ApiError, type ApiClient, type ApiRequest, type ApiResponse, type BucketBudget } from '../../src/api/types.js';
import { bucketOf } from '../../src/api/buckets.js';
import type { Kind, RequestContext } from '../../src/kinds/types.js';
import type { CallStats } from '../../src/model/plan.js';
import type { JsonObject } from '../../src/model/json.js';
import { fetchLive } from '../../src/ops/live/fetch.js';
import { declaredParents } from '../../src/ops/live/needed-kinds.js';
import { readGroups, writeGroups } from '../../src/ops/budget/preflight.js';
import { budgetNeeds } from '../../src/ops/budget/budget.js';
import { serviceCheckGroups, serviceChecks } from '../../src/ops/live/service-checks.js';
import { apply } from '../../src/ops/apply/apply.js';
import { plan } from '../../src/plan/steps/plan.js';
import { ACCOUNTS, desired, desiredState, live, liveState } from '../engine/plan-fakes.js';
import { change, planOf } from '../engine/apply-fakes.js';

const API = '/api/v2';
const TENANT = 't1';
const req = (ctx: RequestContext, method: ApiRequest['method'], path: string, body?: unknown): ApiRequest => ({ method, path, account: ctx.account, ...(body !== undefined ? { body } : {}) });
/** ctx.get answers with `{data}` unwrapped. */
const records = (list: unknown): JsonObject[] => (Array.isArray(list) ? (list as JsonObject[]) : []);

/** The core every test kind shares: a list of `{id, name, spec}` records at `/api/v2/<collection>`. */
function core(kind: string, collection: string): Kind {
  const path = `${API}/${collection}`;
  return {
    kind,
    order: 0,
    documentKind: kind,
    schema: null,
    collection,
    fromDocument: () => ({ resources: [], diagnostics: [] }),
    list: async (ctx) => records(await ctx.get(path)).map((r) => ({ kind, account: ctx.account, name: String(r.name), id: String(r.id), spec: r.spec as JsonObject })),
    createRequest: (d, _c, ctx) => req(ctx, 'POST', path, { name: d.name, ...d.spec }),
    createdId: (body) => String((body as { data?: { id?: string } }).data?.id),
    updateRequests: (id, d, _changed, ctx) => [req(ctx, 'PATCH', `${path}/${id}`, d.spec)],
    deleteRequest: (id, ctx) => req(ctx, 'DELETE', `${path}/${id}`),
  };
}

/** A shelf offers its `items` as members (an alert profile offers its templates). */
const Shelf: Kind = core('Shelf', 'Shelves');

/** The service derives a rulebook's id, `<tenant>-<suffix>`, from the suffix (a custom policy). */
const Rulebook: Kind = {
  ...core('Rulebook', 'Rulebooks'),
  derivedId: {
    nameOf: (id) => (id.startsWith(`${TENANT}-`) ? id.slice(TENANT.length + 1) : undefined),
    rule: { pattern: /^[a-z]+(-[0-9]+)?$/, says: 'a name is lower-case letters, optionally `-` and digits' },
  },
  memberReferences: [
    {
      pointer: '/shelf',
      kind: 'Shelf',
      label: 'item',
      members: (spec, children) => [...(Array.isArray(spec.items) ? spec.items.map(String) : []), ...children.map((c) => c.name)],
    },
  ],
};

/** Waivers are listed per rulebook: `GET /Waivers?rulebookId=` (a policy's exceptions). */
const Waiver: Kind = {
  ...core('Waiver', 'Waivers'),
  hierarchy: { parentKind: 'Rulebook' },
  perParent: { parentKind: 'Rulebook', path: (id) => `${API}/Waivers?rulebookId=${encodeURIComponent(id)}` },
  list: async (ctx) =>
    (
      await Promise.all(
        (ctx.parents ?? []).map(async (p) =>
          records(await ctx.get(`${API}/Waivers?rulebookId=${encodeURIComponent(p.id)}`)).map((r) => ({
            kind: 'Waiver',
            account: ctx.account,
            name: String(r.name),
            id: String(r.id),
            parent: p.name,
            spec: r.spec as JsonObject,
          })),
        ),
      )
    ).flat(),
};

/** Presets are updated all at once: `PATCH /Presets` with a bare array (the predefined policies). */
const Preset: Kind = {
  ...core('Preset', 'Presets'),
  bulkUpdate: { request: (updates, ctx) => req(ctx, 'PATCH', `${API}/Presets`, updates.map((u) => ({ id: u.id, ...u.desired.spec }))) },
};

/** A check's text is validated by the service at plan time (a query's `validate`). */
const Check: Kind = {
  ...core('Check', 'Checks'),
  serviceCheck: {
    request: (d, ctx) => req(ctx, 'POST', `${API}/Checks/validate`, { text: d.spec.text }),
    verdict: ({ status, message }) => (status >= 400 ? (message ?? `refused (${status})`) : undefined),
  },
};

const KINDS: readonly Kind[] = [Shelf, Rulebook, Waiver, Preset, Check];

/** Answers from a table by path; `refuse` turns a request into a 400 with the service's message. */
class Service implements ApiClient {
  readonly requests: ApiRequest[] = [];
  constructor(
    private readonly table: Record<string, unknown>,
    private readonly refuse: (req: ApiRequest) => string | undefined = () => undefined,
  ) {}
  async request<T = unknown>(r: ApiRequest): Promise<ApiResponse<T>> {
    this.requests.push(r);
    await new Promise((done) => setImmediate(done));
    const refusal = this.refuse(r);
    if (refusal !== undefined) throw new ApiError({ kind: 'permanent', status: 400, serviceMessage: refusal, method: r.method, path: r.path });
    return { status: 200, body: (r.method === 'GET' ? (this.table[r.path] ?? { data: [] }) : { data: {} }) as T };
  }
  budget(): BucketBudget[] {
    return [];
  }
  stats(): CallStats {
    return { total: this.requests.length, byBucket: {} };
  }
  async close(): Promise<void> {}
}

describe('capability perParent: a collection listed per parent', () => {
  const table = {
    [`${API}/Rulebooks`]: { data: [1, 2, 3].map((n) => ({ id: `${TENANT}-book${['', 'a', 'b', 'c'][n]}`, name: `book${['', 'a', 'b', 'c'][n]}`, spec: {} })) },
    [`${API}/Waivers?rulebookId=t1-booka`]: { data: [{ id: 'w1', name: 'w-one', spec: { reason: 'r' } }] },
    [`${API}/Waivers?rulebookId=t1-bookb`]: { data: [{ id: 'w2', name: 'w-two', spec: { reason: 'r' } }] },
  };
  const state = desiredState([desired('Waiver', 'w-one', { reason: 'r' }, { parent: 'booka' }), desired('Waiver', 'w-new', { reason: 'n' }, { parent: 'bookc' })]);
  const parentsOf = declaredParents(state, KINDS);

  it('the live read lists the records of the declared parents only, one request each, after the parents', async () => {
    const client = new Service(table);
    const read = await fetchLive(client, [ACCOUNTS[0]], [Rulebook, Waiver], { parentsOf });
    const paths = client.requests.map((r) => r.path);
    expect(paths).toEqual([`${API}/Rulebooks`, `${API}/Waivers?rulebookId=t1-booka`, `${API}/Waivers?rulebookId=t1-bookc`]);
    expect(read.resources.filter((r) => r.kind === 'Waiver')).toEqual([{ kind: 'Waiver', account: 'prod', name: 'w-one', id: 'w1', parent: 'booka', spec: { reason: 'r' } }]);
    // Without a choice (export), every live parent is read.
    const all = new Service(table);
    await fetchLive(all, [ACCOUNTS[0]], [Rulebook, Waiver]);
    expect(all.requests.filter((r) => r.path.startsWith(`${API}/Waivers`))).toHaveLength(3);
  });

  it('the pre-flight counts one request per declared parent, and asks for the parents', () => {
    const groups = readGroups([ACCOUNTS[0]], () => [Rulebook, Waiver], 'both', parentsOf);
    expect(groups).toEqual([
      { buckets: [bucketOf('GET', `${API}/Waivers?rulebookId=x`)], requests: 2 },
      { buckets: [bucketOf('GET', `${API}/Rulebooks`)], requests: 1 },
    ]);
    expect(() => readGroups([ACCOUNTS[0]], () => [Waiver])).toThrow(/read per parent/);
  });
});

describe('capability bulkUpdate: one request for many records', () => {
  const updates = [
    change({ kind: 'Preset', name: 'p1', action: 'update', liveId: 'P-1', after: { enabled: true }, changed: ['enabled'] }),
    change({ kind: 'Preset', name: 'p2', action: 'update', liveId: 'P-2', after: { enabled: false }, changed: ['enabled'] }),
    change({ kind: 'Check', name: 'c1', action: 'update', liveId: 'C-1', after: { text: 'x' }, changed: ['text'] }),
  ];

  it('apply sends the updates of an account as one request with a bare array, and each change is done', async () => {
    const client = new Service({});
    const report = await apply(planOf(updates), client, { env: {}, kinds: KINDS });
    const writes = client.requests.filter((r) => r.method !== 'GET');
    expect(writes.filter((r) => r.path === `${API}/Presets`)).toEqual([
      {
        method: 'PATCH',
        path: `${API}/Presets`,
        account: 'prod',
        body: [
          { id: 'P-1', enabled: true },
          { id: 'P-2', enabled: false },
        ],
      },
    ]);
    expect(writes.filter((r) => r.path === `${API}/Checks/C-1`)).toHaveLength(1);
    expect(report.results.map((r) => [r.name, r.status])).toEqual([
      ['p1', 'done'],
      ['p2', 'done'],
      ['c1', 'done'],
    ]);
  });

  it('a refused bulk request fails every change it carried', async () => {
    const client = new Service({}, (r) => (r.path === `${API}/Presets` ? 'Invalid severity' : undefined));
    const report = await apply(planOf(updates.slice(0, 2)), client, { env: {}, kinds: KINDS });
    expect(report.results.map((r) => [r.name, r.status, r.reasonCode])).toEqual([
      ['p1', 'failed', 'request-failed'],
      ['p2', 'failed', 'request-failed'],
    ]);
    expect(client.requests).toHaveLength(1);
  });

  it('the pre-flight and the plan budget count one request per account for them', () => {
    const accounts = [ACCOUNTS[0]];
    expect(writeGroups(updates, KINDS, accounts)).toEqual([
      { buckets: [bucketOf('PATCH', `${API}/Presets`)], requests: 1 },
      { buckets: [bucketOf('PATCH', `${API}/Checks/C-1`)], requests: 1 },
    ]);
    expect(budgetNeeds(updates, KINDS, accounts).needs.map((n) => [n.bucket, n.needed])).toEqual([
      [bucketOf('PATCH', `${API}/Checks/C-1`), 1],
      [bucketOf('PATCH', `${API}/Presets`), 1],
    ]);
  });
});

describe('capabilities of plan: a reference into a member, an id derived from a suffix', () => {
  const shelf = desired('Shelf', 'shelf-a', { items: ['x'] });
  const planOfBooks = (books: ReturnType<typeof desired>[], lives = [live('Shelf', 'shelf-b', 'S2', { items: ['y'] })]) =>
    plan({ ...desiredState([shelf, ...books]), root: { ...desiredState([]).root, prune: {} } }, liveState(lives), { kinds: KINDS });

  it('a member of a declared or live resource is found; a missing member or resource is an error that says which', () => {
    const ok = planOfBooks([desired('Rulebook', 'alpha', { shelf: 'shelf-a.x' }), desired('Rulebook', 'beta', { shelf: 'shelf-b.y' })]);
    expect(ok.diagnostics).toEqual([]);
    expect(ok.plan!.changes.find((c) => c.name === 'alpha')!.refs).toEqual([{ kind: 'Shelf', name: 'shelf-a' }]);
    const bad = planOfBooks([desired('Rulebook', 'alpha', { shelf: 'shelf-a.z' }), desired('Rulebook', 'beta', { shelf: 'shelf-c.y' }), desired('Rulebook', 'gamma', { shelf: 'shelf-a' })]);
    expect(bad.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ['unknown-reference', 'Rulebook alpha refers to item "z" of Shelf shelf-a, which has no such item'],
      ['unknown-reference', 'Rulebook beta refers to Shelf shelf-c, which is neither declared nor live in account prod'],
      ['unknown-reference', 'Rulebook gamma names "shelf-a", which is not <Shelf>.<item>'],
    ]);
    expect(bad.diagnostics[0]).toMatchObject({ field: '/shelf', file: 'config/resources.yaml', hint: 'its items: x' });
  });

  it('the live twin is the record whose id derives from the name; a name the service would not take is an error', () => {
    const lives = [live('Shelf', 'shelf-b', 'S2', { items: ['y'] }), live('Rulebook', 'Alpha (console title)', 't1-alpha', { shelf: 'shelf-b.y' })];
    const matched = planOfBooks([desired('Rulebook', 'alpha', { shelf: 'shelf-b.y' })], lives);
    expect(matched.diagnostics).toEqual([]);
    expect(matched.plan!.changes.filter((c) => c.kind === 'Rulebook')).toEqual([]);
    const bad = planOfBooks([desired('Rulebook', 'Alpha_1', { shelf: 'shelf-b.y' })], lives);
    expect(bad.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ['invalid-value', 'Rulebook Alpha_1: the service derives its id from its name, and a name is lower-case letters, optionally `-` and digits'],
    ]);
  });
});

describe('capability serviceCheck: the service asked at plan time, counted in the pre-flight', () => {
  const state = desiredState([desired('Check', 'good', { text: 'ok' }, { line: 3 }), desired('Check', 'bad', { text: 'broken {' }, { line: 9 }), desired('Check', 'same', { text: 'x' })]);
  const checkPlan = planOf([
    change({ kind: 'Check', name: 'good', action: 'create', after: { text: 'ok' } }),
    change({ kind: 'Check', name: 'bad', action: 'update', liveId: 'C2', after: { text: 'broken {' } }),
    change({ kind: 'Check', name: 'gone', action: 'delete', liveId: 'C3' }),
  ]);

  it('one request per created or changed resource; a refusal is an error at the file and line, the service text made inert', async () => {
    const client = new Service({}, (r) => ((r.body as { text?: string }).text === 'broken {' ? 'Invalid query: unbalanced \u001b[31mbrace' : undefined));
    const diagnostics = await serviceChecks(client, checkPlan, state, KINDS);
    expect(client.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ['POST', `${API}/Checks/validate`, { text: 'ok' }],
      ['POST', `${API}/Checks/validate`, { text: 'broken {' }],
    ]);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ severity: 'error', code: 'service-check-failed', file: 'config/resources.yaml', line: 9 });
    expect(diagnostics[0].message).toMatch(/^Check bad in account prod: the service refuses it: Invalid query: unbalanced /);
    expect(diagnostics[0].message).not.toContain('\u001b');
  });

  it('anything but a refusal fails the run', async () => {
    const client = new Service({}, () => undefined);
    client.request = async (r) => {
      throw new ApiError({ kind: 'transient', status: 503, method: r.method, path: r.path });
    };
    await expect(serviceChecks(client, checkPlan, state, KINDS)).rejects.toBeInstanceOf(ApiError);
  });

  it('the pre-flight counts one request per declared resource of a checked kind in the accounts read', () => {
    expect(serviceCheckGroups(state, [ACCOUNTS[0]], KINDS)).toEqual([{ buckets: [bucketOf('POST', `${API}/Checks/validate`)], requests: 3 }]);
    expect(serviceCheckGroups(state, [ACCOUNTS[1]], KINDS)).toEqual([]);
  });
});
