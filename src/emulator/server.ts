// The request pipeline: faults → body (1 MB cap) → route → bearer check (except public routes) →
// rate-limit bucket of the key's user → account → handler → persist. Every answer carries the
// RateLimit-* headers.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { addressOf, Tokens } from './auth.js';
import { bucketOf, Buckets, unroutedBucketOf, type RateState } from './buckets.js';
import type { Clock } from './clock.js';
import { activityRoutes } from './collections/activities.js';
import { agentAccessTokenRoutes } from './collections/agent-access-tokens.js';
import { alertChannelRoutes } from './collections/alert-channels.js';
import { alertProfileRoutes } from './collections/alert-profiles.js';
import { alertRuleRoutes } from './collections/alert-rules.js';
import { auditLogRoutes } from './collections/audit-logs.js';
import { cloudAccountRoutes } from './collections/cloud-accounts.js';
import { containerRegistryRoutes } from './collections/container-registries.js';
import { dataExportRuleRoutes } from './collections/data-export-rules.js';
import { policyRoutes } from './collections/policies.js';
import { policyExceptionRoutes } from './collections/policy-exceptions.js';
import { queryRoutes } from './collections/queries.js';
import { reportRuleRoutes } from './collections/report-rules.js';
import { vulnerabilityExceptionRoutes } from './collections/vulnerability-exceptions.js';
import { resourceGroupRoutes } from './collections/resource-groups.js';
import { docsRoutes } from './collections/docs.js';
import { schemaRoutes } from './collections/schemas.js';
import { tokenRoutes } from './collections/tokens.js';
import { ActivityData } from './activity-data.js';
import { FaultInjector } from './faults.js';
import { ChannelHealth } from './health.js';
import { HttpError, isoTime, type ExtraType, type HandlerResult, type RequestContext } from './http.js';
import type { ApiKey } from './keys.js';
import { Router, type Route, type RouteMatch } from './router.js';
import { API_PREFIX } from './service-facts.js';
import type { Store } from './store.js';

export const MAX_BODY_BYTES = 1024 * 1024;

/** Owner of the buckets of requests made without a known key (public routes, bad tokens). */
const ANONYMOUS = '(anonymous)';

const USER_ACTIONS: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' };

export interface ServiceConfig {
  accounts: string[];
  keys: ApiKey[];
  clock: Clock;
  rateLimit: number;
  faults: number;
  faultSeed: number;
  store: Store;
  /** Seed and density (records per day per dataset per account) of the generated activity data. */
  activitySeed: number;
  activityRows: number;
  extraTypes?: readonly ExtraType[];
  /** Sees every request with a well-formed body, before it is checked (tests record what was sent). */
  onRequest?: (request: ReceivedRequest) => void;
  /** The vendor prefix of the predefined alert profiles and queries (SVC_; the real service's is LW_). */
  predefinedPrefix: string;
  /** The vendor's name: `owner` of predefined queries and policies, `<vendor>-global-<n>` policy ids. */
  vendor: string;
  /** The alert channels (names or intgGuids) that fail from the start. */
  failChannels?: readonly string[];
  /** Seeded from list bodies: a type the emulator does not know is carried, not refused. */
  carryUnknown?: boolean;
}

/** A request as the emulator received it. */
export interface ReceivedRequest {
  method: string;
  path: string;
  account?: string;
  body: unknown;
}

/** `bad-type` (no JSON Content-Type) is refused after authentication; it carries no value. */
type Body = { kind: 'ok'; value: unknown } | { kind: 'too-large' } | { kind: 'bad-json' } | { kind: 'bad-type'; value: undefined };

function isJsonType(header: string | undefined): boolean {
  return /^application\/([\w.+-]*\+)?json\b/i.test(header ?? '');
}

/** Reads at most MAX_BODY_BYTES; past that it stops reading and reports `too-large`. */
function readBody(req: IncomingMessage): Promise<Body> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > MAX_BODY_BYTES) return Promise.resolve({ kind: 'too-large' });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.off('data', onData);
        req.off('end', onEnd);
        req.pause();
        resolve({ kind: 'too-large' });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      const text = Buffer.concat(chunks).toString('utf8');
      // Seeds 000/001: every call, token creation included and bodies or not, carries the header.
      if (!isJsonType(req.headers['content-type'])) return resolve({ kind: 'bad-type', value: undefined });
      if (text.trim() === '') return resolve({ kind: 'ok', value: undefined });
      try {
        resolve({ kind: 'ok', value: JSON.parse(text) });
      } catch {
        resolve({ kind: 'bad-json' });
      }
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown, rate: RateState, extra: Record<string, string> = {}): void {
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(rate.limit),
    'RateLimit-Remaining': String(rate.remaining),
    'RateLimit-Reset': String(rate.resetSeconds),
    ...extra,
  };
  if (status === 204 || body === undefined) {
    res.writeHead(status, headers).end();
    return;
  }
  const text = JSON.stringify(body);
  headers['Content-Type'] = 'application/json; charset=utf-8';
  headers['Content-Length'] = String(Buffer.byteLength(text));
  res.writeHead(status, headers).end(text);
}

function segmentsOf(pathname: string): string[] | undefined {
  const rest = pathname.slice(API_PREFIX.length).replace(/\/+$/, '');
  try {
    return rest
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
}

/** A user's bucket of a functionality: two keys of one user share it. */
const userBucket = (user: string, functionality: string): string => `${user}\u0000${functionality}`;

function baseUrlOf(req: IncomingMessage): string {
  const host = req.headers.host ?? `${req.socket.localAddress}:${req.socket.localPort}`;
  return `http://${host}`;
}

export class Service {
  private readonly router: Router;
  private readonly tokens: Tokens;
  private readonly buckets: Buckets;
  private readonly faults: FaultInjector;
  private count = 0;
  /** Pass-through records by `<account>|<collection>`: listed as given, never checked (see seed). */
  private readonly passthrough = new Map<string, unknown[]>();
  private readonly health = new ChannelHealth();

  constructor(private readonly cfg: ServiceConfig) {
    this.tokens = new Tokens(cfg.keys);
    const vendor = { prefix: cfg.predefinedPrefix, name: cfg.vendor };
    // A channel failing at the last run keeps its "since" when it still fails; the others heal.
    const before = new Map(cfg.store.failingChannels().map((f) => [f.name, f.since]));
    for (const name of cfg.failChannels ?? []) this.health.fail(name, before.get(name) ?? cfg.clock.now());
    const failing = this.health.list();
    if (JSON.stringify(failing) !== JSON.stringify(cfg.store.failingChannels())) {
      cfg.store.setFailingChannels(failing);
      cfg.store.save();
    }
    const activities = new ActivityData(cfg.activitySeed, cfg.activityRows);
    const routes: Route[] = [
      ...tokenRoutes(this.tokens),
      ...docsRoutes(() => this.router.all),
      ...schemaRoutes(),
      ...agentAccessTokenRoutes(),
      ...alertChannelRoutes(),
      ...alertRuleRoutes(),
      ...alertProfileRoutes(cfg.predefinedPrefix),
      ...cloudAccountRoutes(),
      ...containerRegistryRoutes(),
      ...resourceGroupRoutes(),
      ...reportRuleRoutes(),
      ...queryRoutes(vendor),
      ...policyRoutes(vendor),
      ...policyExceptionRoutes(vendor),
      ...vulnerabilityExceptionRoutes(),
      ...dataExportRuleRoutes(),
      ...auditLogRoutes(),
      ...activityRoutes(activities, cfg.accounts),
    ];
    this.router = new Router(routes);
    this.buckets = new Buckets(cfg.rateLimit, cfg.clock);
    this.faults = new FaultInjector(cfg.faults, cfg.faultSeed);
  }

  requestCount(): number {
    return this.count;
  }

  setRateLimit(limit: number): void {
    this.cfg.rateLimit = limit;
    this.buckets.setCapacity(limit);
  }

  /** Makes the alert channels of that name (or intgGuid) fail from now on, in every account. */
  failChannel(name: string, details?: string): void {
    this.health.fail(name, this.cfg.clock.now(), details);
    this.cfg.store.setFailingChannels(this.health.list());
    this.cfg.store.save();
  }

  /** Heals the channels of that name (or intgGuid); false when none was failing under it. */
  healChannel(name: string): boolean {
    const healed = this.health.heal(name);
    this.cfg.store.setFailingChannels(this.health.list());
    this.cfg.store.save();
    return healed;
  }

  /**
   * Records the live service holds beyond what this emulator models (unknown types and members, other
   * spellings): stored as given and appended to the list response of `collection` (e.g.
   * `AlertChannels`) in `account`, unchecked and unmasked. Nothing else sees them: the emulator stays
   * strict for everything sent to it.
   */
  seed(account: string, collection: string, records: readonly unknown[]): void {
    const key = `${account.toLowerCase()}|${collection}`;
    this.passthrough.set(key, [...(this.passthrough.get(key) ?? []), ...structuredClone(records)]);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.count += 1;
    // The service's time is the emulator's clock (virtual in tests), not the host's: clients judge
    // time by this header (the apply lease does).
    const stampDate = () => res.setHeader('Date', new Date(this.cfg.clock.now()).toUTCString());
    stampDate();
    const method = (req.method ?? 'GET').toUpperCase();
    const url = new URL(req.url ?? '/', 'http://emulator');
    const pathname = url.pathname;
    const isApi = pathname === API_PREFIX || pathname.startsWith(API_PREFIX + '/');
    // Routing first (it has no effects), so the bucket follows the route that matched.
    const segments = isApi ? segmentsOf(pathname) : undefined;
    const match: RouteMatch = segments === undefined ? { kind: 'not-found' } : this.router.match(method, segments);
    const functionality = match.kind === 'not-found' ? unroutedBucketOf(method, pathname) : bucketOf(method, match.pattern);
    const route = match.kind === 'found' ? match.route : undefined;
    const last = pathname.replace(/\/+$/, '').split('/').pop();
    const isResourceWrite = isApi && route?.public !== true && method !== 'GET' && last !== 'search' && last !== 'test';
    // Answers given before a request counts show the bucket of the token's user, if any.
    const peek = () => this.buckets.peek(userBucket(this.tokens.peekKey(req.headers)?.user ?? ANONYMOUS, functionality));

    const fault = this.faults.next(isResourceWrite);
    if (fault === 'drop') {
      req.socket.destroy();
      return;
    }
    if (fault === 'rate-limit') {
      return send(res, 429, { message: 'Rate limit exceeded' }, { limit: this.cfg.rateLimit, remaining: 0, resetSeconds: 1 });
    }
    if (fault === 'server-error') return send(res, 500, { message: 'Internal Server Error' }, peek());
    if (fault === 'unavailable') return send(res, 503, { message: 'Service Unavailable' }, peek());

    const body = await readBody(req);
    // 400, not 413: the seed's status table has no 413, and 400 says what applies ("malformed
    // request; do not repeat without changes").
    if (body.kind === 'too-large') {
      return send(res, 400, { message: `Request body larger than ${MAX_BODY_BYTES} bytes` }, peek(), { Connection: 'close' });
    }
    if (body.kind === 'bad-json') return send(res, 400, { message: 'Invalid JSON body' }, peek());
    const accountHeader = req.headers['account-name'];
    this.cfg.onRequest?.({ method, path: pathname, ...(typeof accountHeader === 'string' ? { account: accountHeader } : {}), body: structuredClone(body.value) });

    let rate = peek();
    try {
      if (!isApi) throw new HttpError(404, 'Not found');
      // After authentication (a request without a token is a 401 first), before the bucket: like a
      // malformed body. The OpenAPI page (the emulator's own, no login) stays readable in a browser.
      const badType = body.kind === 'bad-type' && !(route?.public === true && method === 'GET');
      const refuseType = () => {
        throw new HttpError(400, 'Content-Type must be application/json: send the header Content-Type: application/json on every request');
      };
      let key: ApiKey | undefined;
      if (route?.public === true) {
        if (badType) refuseType();
        const owner = this.tokens.keyNamed(body.value)?.user ?? ANONYMOUS;
        const taken = this.buckets.take(userBucket(owner, functionality));
        rate = taken.state;
        if (!taken.allowed) throw new HttpError(429, 'Rate limit exceeded');
      } else {
        key = this.tokens.verify(req.headers, this.cfg.clock.now());
        if (badType) refuseType();
        const taken = this.buckets.take(userBucket(key.user, functionality));
        rate = taken.state;
        if (!taken.allowed) throw new HttpError(429, 'Rate limit exceeded');
      }
      if (segments === undefined || match.kind === 'not-found') throw new HttpError(404, 'Not found');
      if (match.kind === 'method-not-allowed') {
        return send(res, 405, { message: `Method ${method} not allowed for ${pathname}` }, rate, { Allow: match.allowed.join(', ') });
      }
      const result = this.run(req, method, url, match.route, match.params, match.handler, body.value, key);
      stampDate();
      if (fault === 'commit-then-500' && result.status < 300) {
        return send(res, 500, { message: 'Internal Server Error' }, rate);
      }
      return send(res, result.status, result.body, rate, result.headers);
    } catch (err) {
      if (err instanceof HttpError) return send(res, err.status, { message: err.message }, rate);
      process.stderr.write(`emulator: internal error on ${method} ${pathname}: ${(err as Error).message}\n`);
      return send(res, 500, { message: 'Internal Server Error' }, rate);
    }
  }

  private run(
    req: IncomingMessage,
    method: string,
    url: URL,
    route: Route,
    params: Record<string, string>,
    handler: (ctx: RequestContext) => HandlerResult,
    body: unknown,
    key: ApiKey | undefined,
  ): HandlerResult {
    const { store, accounts } = this.cfg;
    const addressed = key === undefined ? { kind: 'account' as const, name: accounts[0] } : addressOf(req.headers, accounts, route.org === true, key);
    const isOrg = addressed.kind === 'org';
    const accountName = addressed.kind === 'org' ? accounts[0] : addressed.name;
    const scope = addressed.kind === 'org' ? store.org() : store.account(addressed.name);
    const now = this.cfg.clock.now();
    const user = key?.user ?? ANONYMOUS;
    let wrote = false;
    const ctx: RequestContext = {
      params,
      query: url.searchParams,
      headers: req.headers,
      baseUrl: baseUrlOf(req),
      key,
      account: addressed.kind === 'org' ? undefined : addressed.name,
      body,
      scope,
      guidPrefix: accountName,
      isOrg,
      user,
      now,
      touched() {
        wrote = true;
      },
      channelFailure: (record) => this.health.of(record),
      ...(this.cfg.carryUnknown === true ? { carryUnknown: true } : {}),
      committed(eventName, description) {
        wrote = true;
        store.audit(scope, {
          accountName: isOrg ? `${accountName} (organization)` : accountName,
          createdTime: isoTime(now),
          eventDescription: description,
          eventName,
          userAction: USER_ACTIONS[method] ?? method.toLowerCase(),
          userName: user,
        });
      },
    };
    const extra = this.cfg.extraTypes ?? [];
    if (extra.length > 0) ctx.extraType = (collection, record) => extraTypeOf(extra, collection, record);
    const result = handler(ctx);
    if (wrote) store.save();
    // A list route (one literal segment) also lists the records seeded as given.
    const seeded = method === 'GET' && !route.pattern.includes('/') && !isOrg ? this.passthrough.get(`${addressed.name.toLowerCase()}|${route.pattern}`) : undefined;
    const listed = (result.body as { data?: unknown } | undefined)?.data;
    if (seeded && result.status === 200 && Array.isArray(listed)) {
      return { ...result, body: { ...(result.body as object), data: [...listed, ...structuredClone(seeded)] } };
    }
    return result;
  }
}

function extraTypeOf(extra: readonly ExtraType[], collection: string, record: Record<string, unknown>): ExtraType | undefined {
  const data = record.data;
  const registryType = data !== null && typeof data === 'object' ? (data as Record<string, unknown>).registryType : undefined;
  const type = collection === 'ContainerRegistries' ? registryType : record.type;
  return extra.find((e) => e.collection === collection && e.type === type);
}
