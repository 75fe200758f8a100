// Small fake kinds and builders for the planner's unit tests: the engine must work with any Kind.

import type { ApiClient, ApiRequest, ApiResponse, BucketBudget } from '../../src/api/types.js';
import type { CallStats } from '../../src/model/plan.js';
import type { DesiredState } from '../../src/model/account.js';
import { bucketOf } from '../../src/api/buckets.js';
import type { DesiredResource, LiveResource } from '../../src/model/resource.js';
import type { FetchContext, Kind } from '../../src/kinds/types.js';
import type { Json, JsonObject } from '../../src/model/json.js';
import type { LiveState } from '../../src/model/live.js';

type Rec = Record<string, unknown>;

const base = {
  schema: null,
  fromDocument: () => ({ resources: [], diagnostics: [] }),
  createdId: (body: unknown): string => String((body as Rec)?.id ?? ''),
};

/** A channel: `type` cannot change in place; Pager keys are write-only, Slack urls come back in clear. */
export const Channel: Kind = {
  ...base,
  kind: 'Channel',
  documentKind: 'Channel',
  order: 10,
  collection: 'AlertChannels',
  async list(ctx: FetchContext): Promise<LiveResource[]> {
    const rows = (await ctx.get('/api/v2/AlertChannels')) as Rec[];
    return rows.map((r) => ({
      kind: 'Channel',
      account: ctx.account,
      name: String(r.name),
      id: String(r.intgGuid),
      spec: { type: r.type, data: r.data } as JsonObject,
    }));
  },
  createRequest: (d, _c, ctx) => ({ method: 'POST', path: '/api/v2/AlertChannels', account: ctx.account, body: d.spec }),
  updateRequests: (id, d, changed, ctx) => [
    { method: 'PATCH', path: `/api/v2/AlertChannels/${id}`, account: ctx.account, body: Object.fromEntries(changed.map((m) => [m, d.spec[m]])) },
  ],
  deleteRequest: (id, ctx) => ({ method: 'DELETE', path: `/api/v2/AlertChannels/${id}`, account: ctx.account }),
  compare: {
    replaceOn: ['type'],
    setPointers: (spec) => (Array.isArray(spec.tags) ? ['/tags'] : []),
  },
  secrets: {
    writeOnly: (spec) => (spec.type === 'Pager' ? ['/data/apiKey'] : []),
    sensitive: (spec) => (spec.type === 'Slack' ? ['/data/url'] : []),
  },
};

/** A rule routes to channels by name (live: by id until fetch maps them). */
export const Rule: Kind = {
  ...base,
  kind: 'Rule',
  documentKind: 'Rule',
  order: 20,
  collection: 'AlertRules',
  references: [{ kind: 'Channel', pointer: '/channels' }],
  async list(ctx: FetchContext): Promise<LiveResource[]> {
    const rows = (await ctx.get('/api/v2/AlertRules')) as Rec[];
    return rows.map((r) => ({
      kind: 'Rule',
      account: ctx.account,
      name: String((r.filters as Rec).name),
      id: String(r.mcGuid),
      spec: { channels: r.intgGuidList, severity: (r.filters as Rec).severity } as JsonObject,
    }));
  },
  createRequest: (d, _c, ctx) => ({
    method: 'POST',
    path: '/api/v2/AlertRules',
    account: ctx.account,
    body: { intgGuidList: (d.spec.channels as string[]).map((n) => ctx.resolve('Channel', n)) },
  }),
  updateRequests: (id, _d, _changed, ctx) => [{ method: 'PATCH', path: `/api/v2/AlertRules/${id}`, account: ctx.account }],
  deleteRequest: (id, ctx) => ({ method: 'DELETE', path: `/api/v2/AlertRules/${id}`, account: ctx.account }),
  compare: {
    setPointers: () => ['/channels', '/severity'],
  },
};

/** A profile creates its templates in one call; `extends` cannot change in place. */
export const Profile: Kind = {
  ...base,
  kind: 'Profile',
  order: 30,
  documentKind: 'Profile',
  collection: 'AlertProfiles',
  async list(ctx: FetchContext): Promise<LiveResource[]> {
    const rows = (await ctx.get('/api/v2/AlertProfiles')) as Rec[];
    return rows.map((r) => ({
      kind: 'Profile',
      account: ctx.account,
      name: String(r.alertProfileId),
      id: String(r.alertProfileId),
      spec: { extends: r.extends ?? null } as JsonObject,
      info: { descriptionKeys: (r.descriptionKeys ?? []) as Json },
      ...(String(r.alertProfileId).startsWith('SVC_') ? { managedByService: true } : {}),
    }));
  },
  createRequest: (d, children, ctx) => ({
    method: 'POST',
    path: '/api/v2/AlertProfiles',
    account: ctx.account,
    body: { alertProfileId: d.name, extends: d.spec.extends, alerts: children.map((c) => c.spec) },
  }),
  updateRequests: (id, _d, _changed, ctx) => [{ method: 'PATCH', path: `/api/v2/AlertProfiles/${id}`, account: ctx.account }],
  deleteRequest: (id, ctx) => ({ method: 'DELETE', path: `/api/v2/AlertProfiles/${id}`, account: ctx.account }),
  hierarchy: {
    ownsChildren: true,
  },
  compare: {
    replaceOn: ['extends'],
  },
};

/** Templates live inside profiles: name `<profile>.<template>`; placeholders checked against the parent. */
export const Template: Kind = {
  ...base,
  kind: 'Template',
  order: 40,
  documentKind: null,
  collection: 'AlertProfiles',
  async list(ctx: FetchContext): Promise<LiveResource[]> {
    const rows = (await ctx.get('/api/v2/AlertProfiles')) as Rec[];
    return rows.flatMap((p) =>
      ((p.alerts ?? []) as Rec[]).map((t) => ({
        kind: 'Template',
        account: ctx.account,
        name: `${String(p.alertProfileId)}.${String(t.name)}`,
        id: `${String(p.alertProfileId)}.${String(t.name)}`,
        parent: String(p.alertProfileId),
        spec: { subject: t.subject } as JsonObject,
        ...(String(p.alertProfileId).startsWith('SVC_') ? { managedByService: true } : {}),
      })),
    );
  },
  check(desired, live) {
    const parent = live.find((r) => r.kind === 'Profile' && r.name === desired.parent);
    const keys = ((parent?.info?.descriptionKeys ?? []) as Rec[]).map((k) => k.name);
    const used = [...String(desired.spec.subject).matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]);
    return used
      .filter((u) => parent && !keys.includes(u))
      .map((u) => ({ severity: 'error' as const, code: 'unknown-placeholder', message: `${desired.name} uses {{${u}}}` }));
  },
  createRequest: (d, _c, ctx) => ({ method: 'POST', path: `/api/v2/AlertProfiles/${d.parent}/AlertTemplates`, account: ctx.account }),
  updateRequests: (id, d, _changed, ctx) => [{ method: 'PATCH', path: `/api/v2/AlertProfiles/${d.parent}/AlertTemplates/${id.split('.')[1]}`, account: ctx.account }],
  deleteRequest: (id, ctx) => ({
    method: 'DELETE',
    path: `/api/v2/AlertProfiles/${id.split('.')[0]}/AlertTemplates/${id.split('.')[1]}`,
    account: ctx.account,
  }),
  hierarchy: {
    parentKind: 'Profile',
  },
};

export const FAKE_KINDS: readonly Kind[] = [Channel, Rule, Profile, Template];

export function desired(
  kind: string,
  name: string,
  spec: JsonObject,
  extra: { account?: string; envRefs?: Record<string, string>; parent?: string; line?: number } = {},
): DesiredResource {
  return {
    kind,
    account: extra.account ?? 'prod',
    name,
    ...(extra.parent !== undefined ? { parent: extra.parent } : {}),
    spec,
    envRefs: extra.envRefs ?? {},
    source: { file: 'config/resources.yaml', line: extra.line ?? 1, column: 1 },
  };
}

export function live(
  kind: string,
  name: string,
  id: string,
  spec: JsonObject,
  extra: { account?: string; parent?: string; managedByService?: boolean; info?: JsonObject } = {},
): LiveResource {
  return {
    kind,
    account: extra.account ?? 'prod',
    name,
    id,
    ...(extra.parent !== undefined ? { parent: extra.parent } : {}),
    spec,
    ...(extra.info ? { info: extra.info } : {}),
    ...(extra.managedByService ? { managedByService: true } : {}),
  };
}

export const ACCOUNTS = [
  { name: 'prod', orgAccess: false },
  { name: 'staging', orgAccess: false },
];

export function desiredState(resources: DesiredResource[], prune: Record<string, boolean> = {}): DesiredState {
  return {
    root: {
      file: 'postureops.yaml',
      accounts: ACCOUNTS,
      defaultAccount: 'prod',
      prune: { Channel: false, Rule: false, Profile: false, Template: false, ...prune },
    },
    resources,
  };
}

export function liveState(resources: LiveResource[]): LiveState {
  return { accounts: ACCOUNTS, resources, calls: { total: 0, byBucket: {} } };
}

/** An ApiClient answering GETs from a table per (account or 'org', path), recording every request. */
export class FakeClient implements ApiClient {
  readonly requests: ApiRequest[] = [];
  private readonly counts: CallStats = { total: 0, byBucket: {} };

  constructor(private readonly tables: Record<string, Record<string, unknown>>) {}

  async request<T = unknown>(req: ApiRequest): Promise<ApiResponse<T>> {
    this.requests.push(req);
    this.counts.total++;
    const bucket = bucketOf(req.method, req.path);
    this.counts.byBucket[bucket] = (this.counts.byBucket[bucket] ?? 0) + 1;
    await new Promise((r) => setImmediate(r));
    const table = this.tables[req.orgAccess ? 'org' : (req.account ?? '')] ?? {};
    return { status: 200, body: (table[req.path] ?? { data: [] }) as T };
  }
  budget(): BucketBudget[] {
    return [];
  }
  stats(): CallStats {
    return { total: this.counts.total, byBucket: { ...this.counts.byBucket } };
  }
  async close(): Promise<void> {}
}
