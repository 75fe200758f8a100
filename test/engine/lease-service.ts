// An in-memory service of lease records for the lease's unit tests: alert profiles per account,
// a 409 for a create of an id that exists (the compare-and-set the lease stands on), a 404 for a
// record that is gone, and every answer dated by a virtual clock (the service's Date header).
// `before` and `after` let a test hold a request (a gate) or make it fail (a fault), before or after
// the service applied it.

import { ApiError, type ApiClient, type ApiRequest, type ApiResponse } from '../../src/api/types.js';
import { createLeaseRequest, type LeaseData, leaseId, leaseRecords } from '../../src/ops/lease/lease-record.js';

const LIST = '/api/v2/AlertProfiles';
/** Where organization-level requests (Org-Access, no account name) go. */
export const ORG = '(organization)';

export interface Profile {
  alertProfileId: string;
  extends?: string;
  alerts: unknown[];
}

export class LeaseService {
  /** The service's clock: every answer carries it as its Date. */
  clock: () => number;
  /** Answers without a Date header. */
  undated = false;
  readonly sent: ApiRequest[] = [];
  before?: (req: ApiRequest) => void | Promise<void>;
  after?: (req: ApiRequest) => void | Promise<void>;
  /** More requests than this is a loop: the test fails fast instead of spinning until a time-out. */
  limit = 200;
  private readonly accounts = new Map<string, Map<string, Profile>>();

  constructor(start: number) {
    let now = start;
    this.clock = () => now;
    this.advance = (ms) => {
      now += ms;
    };
  }

  advance: (ms: number) => void;

  /** What the client's gate (the lease's fence) refused: never sent. */
  readonly refused: ApiRequest[] = [];

  readonly client: ApiClient = {
    request: <T>(req: ApiRequest) => this.gated(req) as Promise<ApiResponse<T>>,
    requestBoundMs: () => 30_000,
    budget: () => [],
    stats: () => ({ total: this.sent.length, byBucket: {} }),
    close: async () => undefined,
  };

  profiles(account: string): Map<string, Profile> {
    let profiles = this.accounts.get(account);
    if (!profiles) {
      // The predefined profile with templates a lease record extends.
      profiles = new Map([['SVC_BASE', { alertProfileId: 'SVC_BASE', alerts: [{ name: 'Default' }] }]]);
      this.accounts.set(account, profiles);
    }
    return profiles;
  }

  /** Stores a lease record as the tool writes it (`data`), or one edited by hand (`'edited'`). */
  put(account: string, generation: number, data: LeaseData | 'edited'): void {
    const id = leaseId(generation);
    const alerts =
      data === 'edited'
        ? [{ name: 'Lease', eventName: 'x', subject: 'x', description: 'edited in the console' }]
        : (createLeaseRequest(generation, data, { data: [...this.profiles(account).values()] }, { account, orgAccess: false, resolve: () => '' }).body as Profile).alerts;
    this.profiles(account).set(id, { alertProfileId: id, extends: 'SVC_BASE', alerts });
  }

  /** The lease records of an account as the lease reads them. */
  records(account: string) {
    return leaseRecords([...this.profiles(account).values()]);
  }

  requests(method: ApiRequest['method']): ApiRequest[] {
    return this.sent.filter((r) => r.method === method);
  }

  /** As the real client: the gate is asked as the request leaves, and told whether it was answered. */
  private async gated(req: ApiRequest): Promise<ApiResponse> {
    if (req.gate) {
      try {
        req.gate.leaving();
      } catch (err) {
        this.refused.push(req);
        throw err;
      }
    }
    try {
      const res = await this.handle(req);
      req.gate?.landed(true);
      return res;
    } catch (err) {
      req.gate?.landed(err instanceof ApiError && err.status !== undefined);
      throw err;
    }
  }

  private async handle(req: ApiRequest): Promise<ApiResponse> {
    this.sent.push(req);
    if (this.sent.length > this.limit) throw new Error(`more than ${this.limit} requests: a loop`);
    await this.before?.(req);
    const answer = this.answer(req);
    await this.after?.(req);
    return answer;
  }

  private answer(req: ApiRequest): ApiResponse {
    const account = req.orgAccess ? ORG : req.account;
    if (account === undefined) throw new Error('a request without an account');
    const profiles = this.profiles(account);
    const date = this.undated ? undefined : this.clock();
    const fail = (status: number) => new ApiError({ kind: 'permanent', status, method: req.method, path: req.path });
    if (req.path === LIST && req.method === 'GET') return { status: 200, body: { data: [...profiles.values()] }, date };
    if (req.path === LIST && req.method === 'POST') {
      const body = req.body as Profile;
      if (profiles.has(body.alertProfileId)) throw fail(409);
      profiles.set(body.alertProfileId, structuredClone(body));
      return { status: 201, body: { data: body }, date };
    }
    const id = decodeURIComponent(req.path.slice(LIST.length + 1));
    const profile = profiles.get(id);
    if (!req.path.startsWith(`${LIST}/`) || !profile) throw fail(404);
    if (req.method === 'PATCH') {
      profile.alerts = structuredClone((req.body as Profile).alerts);
      return { status: 200, body: { data: profile }, date };
    }
    if (req.method === 'DELETE') {
      profiles.delete(id);
      return { status: 204, body: undefined, date };
    }
    throw fail(405);
  }
}

/** A failure of the service as the client reports it. */
export function serviceError(req: ApiRequest, status: number, kind: ApiError['kind'] = status >= 500 ? 'transient' : 'permanent'): ApiError {
  return new ApiError({ kind, status, method: req.method, path: req.path });
}

export interface Gate {
  /** Resolves when the held request arrived. */
  reached: Promise<void>;
  /** Lets it go on. */
  open(): void;
}

/** Holds the first request `pred` matches until `open()`. */
export function gate(service: LeaseService, pred: (req: ApiRequest) => boolean): Gate {
  let arrive!: () => void;
  let go!: () => void;
  const reached = new Promise<void>((r) => (arrive = r));
  const opened = new Promise<void>((r) => (go = r));
  let hit = false;
  const earlier = service.before;
  service.before = async (req) => {
    await earlier?.(req);
    if (hit || !pred(req)) return;
    hit = true;
    arrive();
    await opened;
  };
  return { reached, open: go };
}
