// Shapes shared by the server and the collection handlers.

import type { IncomingHttpHeaders } from 'node:http';
import type { ApiKey } from './keys.js';
import type { Failure } from './health.js';
import type { IntegrationRecord, ScopeData } from './model.js';

/** A refusal with an HTTP status; the server answers `{message}`. */
export class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
  }
}

export const notFound = (): HttpError => new HttpError(404, 'Not found');

export interface HandlerResult {
  status: number;
  /** JSON body; omitted for 204. */
  body?: unknown;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

/** What a handler sees of one authenticated request. */
export interface RequestContext {
  /** Values of the `:name` segments of the matched route. */
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** `http://host:port` as the client addressed the emulator: the start of full URLs (nextPage). */
  baseUrl: string;
  /** The key behind the bearer token; absent on the routes answered without one. */
  key?: ApiKey;
  /** The addressed account; undefined for organization-level data. */
  account?: string;
  /** Parsed JSON body; undefined when the request had none. */
  body: unknown;
  /** The data of the addressed account, or of the organization with `Org-Access: true`. */
  scope: ScopeData;
  /** Account label used in intgGuid values. */
  guidPrefix: string;
  isOrg: boolean;
  /** The user of the key (createdOrUpdatedBy, audit records). */
  user: string;
  /** Clock reading for this request, epoch ms. */
  now: number;
  /**
   * Records a committed write: appends an audit record and asks the server to persist the state.
   * Call it only after every check passed and the data changed.
   */
  committed(eventName: string, description: string): void;
  /** Persists the state without an audit record (a test's time is data, not a resource write). */
  touched(): void;
  /** The failure of an alert channel told to fail, if it is one (health.ts). */
  channelFailure?(record: IntegrationRecord): Failure | undefined;
  /** Seeded from list bodies (EmulatorOptions.seedFromLists): a type the emulator does not know is carried. */
  carryUnknown?: boolean;
  /** A type of the service the emulator has no table for (EmulatorOptions.extraTypes), when `record` is one. */
  extraType?(collection: string, record: Record<string, unknown>): ExtraType | undefined;
}

/**
 * A type the real service has and the emulator's tables do not (EmulatorOptions.extraTypes): its
 * records are stored as sent (data only checked to be an object) and shown as stored, but for the
 * members `masked` names (dotted paths in `data`), which responses show as the text given ("", "****").
 */
export interface ExtraType {
  /** `AlertChannels`, `CloudAccounts` or `ContainerRegistries`. */
  collection: string;
  /** The record's `type` (for container registries, `data.registryType`). */
  type: string;
  masked?: Record<string, string>;
}

export type Handler = (ctx: RequestContext) => HandlerResult;

/** A JSON object body, or 400. */
export function objectBody(ctx: RequestContext): Record<string, unknown> {
  const b = ctx.body;
  if (b === undefined) throw new HttpError(400, 'Invalid data: #1: [: request body required]');
  if (b === null || typeof b !== 'object' || Array.isArray(b)) throw new HttpError(400, 'Invalid data: #1: [: must be object]');
  return b as Record<string, unknown>;
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * A test-only request header: a record created with `X-Emulator-Spelling: older` is answered in the
 * older spellings api-facts.md lists (camelCase rule filters and a top-level rule `name`, EmailUser
 * recipients as one comma-separated string, INLINE_SCANNER `limitNumScan` as a string), so that tests
 * can hold such records end to end next to current ones. Real clients never send it.
 */
export const SPELLING_HEADER = 'x-emulator-spelling';

export function wantsOlderSpelling(ctx: RequestContext): boolean {
  return String(ctx.headers[SPELLING_HEADER] ?? '').toLowerCase() === 'older';
}
