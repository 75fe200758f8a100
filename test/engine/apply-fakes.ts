// Small fake kinds and an in-memory fake service for apply and export unit tests: enough of the
// Kind interface and of ApiClient to observe order, parallelism, faults and request bodies.

import { ApiError, type ApiClient, type ApiRequest, type ApiResponse, type BucketBudget } from '../../src/api/types.js';
import { type CallStats, type Change, type Plan, PLAN_FORMAT_VERSION } from '../../src/model/plan.js';
import type { DesiredResource, LiveResource } from '../../src/model/resource.js';
import type { Kind, Reference, RequestContext } from '../../src/kinds/types.js';
import type { Json, JsonObject } from '../../src/model/json.js';
import { getAt, setAt } from '../../src/model/json-pointer.js';

export interface FakeKindOptions {
  references?: Reference[];
  testable?: boolean;
  parentKind?: string;
  ownsChildren?: boolean;
  /** Write-only pointers (not returned by the service). */
  writeOnly?: string[];
  /** Secret pointers returned in clear. */
  sensitive?: string[];
  documentKind?: string | null;
}

const PREFIX = '/api/v2/';

export function fakeKind(name: string, opts: FakeKindOptions = {}): Kind {
  const collection = `${name}s`;
  const path = PREFIX + collection;
  const references = opts.references ?? [];
  const req = (ctx: RequestContext, method: ApiRequest['method'], p: string, body?: unknown): ApiRequest => ({
    method,
    path: p,
    account: ctx.orgAccess ? undefined : ctx.account,
    orgAccess: ctx.orgAccess,
    ...(body !== undefined ? { body } : {}),
  });
  const resolved = (desired: DesiredResource, ctx: RequestContext): JsonObject => {
    let spec = desired.spec;
    for (const ref of references) {
      const v = getAt(spec, ref.pointer);
      if (Array.isArray(v))
        spec = setAt(
          spec,
          ref.pointer,
          v.map((n) => ctx.resolve(ref.kind, String(n))),
        );
      else if (typeof v === 'string') spec = setAt(spec, ref.pointer, ctx.resolve(ref.kind, v));
    }
    return spec;
  };
  const kind: Kind = {
    kind: name,
    documentKind: opts.documentKind === undefined ? name : opts.documentKind,
    schema: null,
    references,
    order: 0,
    collection,
    ...(opts.parentKind || opts.ownsChildren
      ? { hierarchy: { ...(opts.parentKind ? { parentKind: opts.parentKind } : {}), ...(opts.ownsChildren ? { ownsChildren: true } : {}) } }
      : {}),
    fromDocument: () => ({ resources: [], diagnostics: [] }),
    async list(ctx) {
      const records = (await ctx.get(path)) as { id: string; name: string; spec: JsonObject; parent?: string }[];
      return records.map((r) => ({ kind: name, account: ctx.account, name: r.name, id: r.id, spec: r.spec, ...(r.parent ? { parent: r.parent } : {}) }));
    },
    createRequest: (desired, children, ctx) =>
      req(ctx, 'POST', path, {
        name: desired.name,
        spec: resolved(desired, ctx),
        children: children.map((c) => ({ kind: c.kind, name: c.name, parent: c.parent ?? null, spec: c.spec })),
      }),
    createdId: (body) => {
      const id = (body as { data?: { id?: unknown } })?.data?.id;
      if (typeof id !== 'string') throw new ApiError({ kind: 'outcome-unknown', method: 'POST', path, detail: 'no id in the response' });
      return id;
    },
    updateRequests: (id, desired, changed, ctx) => {
      const spec = resolved(desired, ctx);
      const body: JsonObject = {};
      for (const m of changed) body[m] = spec[m] ?? null;
      return [req(ctx, 'PATCH', `${path}/${id}`, { spec: body })];
    },
    deleteRequest: (id, ctx) => req(ctx, 'DELETE', `${path}/${id}`),
    compare: {
      replaceOn: [],
      setPointers: () => [],
    },
    secrets: {
      writeOnly: () => [...(opts.writeOnly ?? [])],
      sensitive: () => [...(opts.sensitive ?? [])],
      secretMembers: () => [],
    },
    ...(opts.testable ? { lifecycle: { testRequest: (id: string, ctx: RequestContext) => req(ctx, 'POST', `${path}/${id}/test`) } } : {}),
    export: {
      toDocument: (live: LiveResource, children: readonly LiveResource[]) =>
        opts.documentKind === null
          ? null
          : { kind: name, name: live.name, spec: children.length > 0 ? { ...live.spec, children: children.map((c) => c.name) } : live.spec },
    },
  };
  return kind;
}

export interface StoredRecord {
  id: string;
  name: string;
  spec: JsonObject;
}

/** What a fault does: fail without executing the request, or execute it and then fail. */
export interface Fault {
  when: 'before' | 'after';
  error: ApiError;
}

/** An in-memory service: one list per (account, collection); ids `<COLLECTION>-<n>`. */
export class FakeService implements ApiClient {
  readonly log: ApiRequest[] = [];
  readonly store = new Map<string, StoredRecord[]>();
  inflight = 0;
  maxInflight = 0;
  /** Completed requests, in completion order: `METHOD path`. */
  readonly completed: string[] = [];
  fault?: (req: ApiRequest, index: number) => Fault | undefined;
  /** Answers for test requests: `undefined` → 204, else the service message of a 400. */
  testFailure?: string;
  private nextId = 1;
  private readonly calls: CallStats = { total: 0, byBucket: {} };

  records(account: string, collection: string): StoredRecord[] {
    const key = `${account}|${collection}`;
    let list = this.store.get(key);
    if (!list) {
      list = [];
      this.store.set(key, list);
    }
    return list;
  }

  seed(account: string, collection: string, name: string, spec: JsonObject = {}): string {
    const id = `${collection.toUpperCase()}-${this.nextId++}`;
    this.records(account, collection).push({ id, name, spec });
    return id;
  }

  async request<T = unknown>(req: ApiRequest): Promise<ApiResponse<T>> {
    const index = this.log.length;
    this.log.push(structuredClone(req));
    const [collection, id, sub] = req.path.slice(PREFIX.length).split('/');
    this.calls.total++;
    const bucket = `${req.method} ${collection}${sub ? '/' + sub : ''}`;
    this.calls.byBucket[bucket] = (this.calls.byBucket[bucket] ?? 0) + 1;
    this.inflight++;
    this.maxInflight = Math.max(this.maxInflight, this.inflight);
    try {
      // Let other requests start, so parallel changes overlap here.
      await new Promise((r) => setImmediate(r));
      const fault = this.fault?.(req, index);
      if (fault?.when === 'before') throw fault.error;
      const res = this.execute(req, req.orgAccess ? '(org)' : (req.account ?? ''), collection, id, sub);
      if (fault?.when === 'after') throw fault.error;
      this.completed.push(`${req.method} ${req.path}`);
      return res as ApiResponse<T>;
    } finally {
      this.inflight--;
    }
  }

  private execute(req: ApiRequest, account: string, collection: string, id?: string, sub?: string): ApiResponse {
    const list = this.records(account, collection);
    const notFound = () => new ApiError({ kind: 'permanent', status: 404, serviceMessage: 'Not found', method: req.method, path: req.path });
    if (req.method === 'GET' && id === undefined) return { status: 200, body: { data: structuredClone(list) } };
    if (req.method === 'POST' && id === undefined) {
      const body = req.body as { name: string; spec: JsonObject };
      const newId = this.seed(account, collection, body.name, body.spec);
      return { status: 201, body: { data: { id: newId, name: body.name } } };
    }
    const i = list.findIndex((r) => r.id === id);
    if (req.method === 'POST' && sub === 'test') {
      if (i < 0) throw notFound();
      if (this.testFailure !== undefined) {
        throw new ApiError({ kind: 'permanent', status: 400, serviceMessage: this.testFailure, method: 'POST', path: req.path });
      }
      return { status: 204, body: undefined };
    }
    if (i < 0) throw notFound();
    if (req.method === 'PATCH') {
      list[i] = { ...list[i], spec: { ...list[i].spec, ...((req.body as { spec: JsonObject }).spec ?? {}) } };
      return { status: 200, body: { data: list[i] } };
    }
    if (req.method === 'DELETE') {
      list.splice(i, 1);
      return { status: 204, body: undefined };
    }
    return { status: 200, body: { data: list[i] } };
  }

  budget(): BucketBudget[] {
    return [];
  }
  stats(): CallStats {
    return this.calls;
  }
  async close(): Promise<void> {}
}

export function permanent(status: number, message: string, path = '/api/v2/x'): ApiError {
  return new ApiError({ kind: 'permanent', status, serviceMessage: message, method: 'POST', path });
}

export function unknownOutcome(path = '/api/v2/x'): ApiError {
  return new ApiError({ kind: 'outcome-unknown', status: 500, method: 'POST', path });
}

type ChangeInit = Partial<Change> & Pick<Change, 'action' | 'kind' | 'name'>;

/** A change with the plan's bookkeeping filled in; `after` defaults to an empty spec for writes. */
export function change(init: ChangeInit): Change {
  const account = init.account ?? 'prod';
  return {
    key: `${account}/${init.kind}/${init.name}`,
    account,
    writeOnly: [],
    sensitive: [],
    dependsOn: [],
    liveDigest: 'absent',
    ...(init.action !== 'delete' ? { after: {} as JsonObject } : {}),
    ...init,
  };
}

export function planOf(changes: Change[], accounts = [{ name: 'prod', orgAccess: false }]): Plan {
  const count = (a: string) => changes.filter((c) => c.action === a).length;
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    accounts,
    changes,
    summary: { create: count('create'), update: count('update'), replace: count('replace'), delete: count('delete'), unmanaged: 0 },
    unmanaged: [],
    diagnostics: [],
    apiCalls: { total: 0, byBucket: {} },
    budget: [],
  };
}

export function json(value: unknown): Json {
  return value as Json;
}
