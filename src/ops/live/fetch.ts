// Live state: one list call per distinct path per account (kinds that share a list share the call),
// accounts fetched in parallel within a bound, then reference ids mapped to names generically.

import { ApiError, type ApiClient, type ApiRequest, unwrapData } from '../../api/types.js';
import { API_PREFIX } from '../../api/buckets.js';
import { isObject } from '../../model/json.js';
import { type CallStats } from '../../model/plan.js';
import type { AccountConfig } from '../../model/account.js';
import type { Diagnostic } from '../../model/diagnostics.js';
import type { FetchContext, Kind, KindSettings } from '../../kinds/types.js';
import { KINDS } from '../../kinds/index.js';
import type { LiveResource } from '../../model/resource.js';
import type { Json } from '../../model/json.js';
import { getAt, setAt } from '../../model/json-pointer.js';
import type { LiveState } from '../../model/live.js';
import { mapBounded } from '../../model/concurrency.js';
import { isLeaseRecord } from '../lease/lease-record.js';
import { isAppliedRecord } from '../apply/applied-record.js';
import { unreadKinds } from './needed-kinds.js';
import { requestTarget } from '../../model/account.js';

/**
 * The functionalities lists are read with: `list` only (`GET <Collection>`), `search` wherever a kind
 * has one (`POST <Collection>/search`), or `both`: each request takes whichever has budget left.
 */
export type ReadPaths = 'both' | 'list' | 'search';

/** The parents whose records a kind listed per parent reads in an account; undefined: every live one. */
export type ParentsOf = (account: AccountConfig, kind: string) => readonly string[] | undefined;

export interface FetchOptions {
  /** Accounts fetched at the same time (default 4). */
  concurrency?: number;
  /** The root file's kind settings (RootConfig.settings). */
  settings?: KindSettings;
  /** Default `both`. */
  readPaths?: ReadPaths;
  /** The kinds to read in an account (default: all of `kinds`); see neededKinds. */
  kindsOf?: (account: AccountConfig) => readonly Kind[];
  /**
   * Kinds listed per parent (Kind.perParent): the names of the parents whose records are read in an
   * account (one request each; see declaredParents). Default: every live parent (export).
   */
  parentsOf?: ParentsOf;
  /**
   * Kinds listed per parent: called once per account with the parents each kind will read there
   * (by kind name), after the parents' lists and before those reads; what it awaits, they await (the
   * export's pre-flight, which can count them only once the parents are known).
   */
  beforeParents?: (account: AccountConfig, parents: ReadonlyMap<string, readonly string[]>) => Promise<void>;
  /** Progress hook (display only): an account's lists have all been read. */
  onAccountRead?: (account: AccountConfig) => void;
  /** Keep every list's records as read (LiveState.lists): what a rehearsal seeds its emulator with. */
  keepLists?: boolean;
  /**
   * Lists already asked for (the run layer reads ahead while the files load): taken from here, not
   * read again. Made with the same client, kinds, settings and readPaths.
   */
  ahead?: ListsAhead;
}

export const DEFAULT_FETCH_CONCURRENCY = 4;

export async function fetchLive(
  client: ApiClient,
  accounts: AccountConfig[],
  kinds: readonly Kind[],
  options: FetchOptions = {},
): Promise<LiveState> {
  const ahead = options.ahead ?? new ListsAhead(client, kinds, options);
  const before = ahead.before;
  const lists = options.keepLists ? ahead.keptLists(accounts) : undefined;
  const perAccount = await mapBounded(accounts, options.concurrency ?? DEFAULT_FETCH_CONCURRENCY, (account) =>
    fetchAccount(ahead, account, options.kindsOf ? options.kindsOf(account) : kinds, options.parentsOf, options.beforeParents).then((live) => {
      try {
        options.onAccountRead?.(account);
      } catch {
        // a display hook must not fail the read
      }
      return live;
    }),
  );
  const raw = perAccount.flat();
  const unread = options.kindsOf ? unreadKinds(accounts, kinds, options.kindsOf) : [];
  const skipped = new Set(unread.flatMap((u) => u.kinds.map((k) => JSON.stringify([u.account, k]))));
  const { resources, diagnostics } = mapReferences(raw, kinds, (account, kind) => !skipped.has(JSON.stringify([account, kind])));
  return {
    accounts: accounts.map((a) => ({ ...a })),
    resources,
    calls: statsDelta(before, client.stats()),
    ...(diagnostics.length > 0 ? { diagnostics } : {}),
    ...(unread.length > 0 ? { unread } : {}),
    ...(lists ? { lists } : {}),
  };
}

/**
 * The lists of a run's live read, each asked for once: per account one FetchContext (its paths
 * memoised) and per account and kind the kind's list of it. The run layer asks for some before the
 * files have all loaded (src/run/read-ahead.ts); fetchLive takes those from here and reads the rest.
 */
export class ListsAhead {
  /** The client's count before the first of these reads: the read's calls are counted from it. */
  readonly before: CallStats;
  private readonly reads: ListReads;
  private readonly contexts = new Map<string, FetchContext>();
  private readonly lists = new Map<string, Promise<LiveResource[]>>();
  /** With keepLists: each account's list bodies as read (LiveState.lists), filled as the reads answer. */
  private readonly kept: Record<string, Record<string, readonly unknown[]>> = {};

  constructor(
    private readonly client: ApiClient,
    private readonly kinds: readonly Kind[],
    private readonly options: Pick<FetchOptions, 'settings' | 'readPaths' | 'keepLists'> = {},
  ) {
    this.before = client.stats();
    this.reads = readsOf(kinds, options.readPaths);
  }

  context(account: AccountConfig): FetchContext {
    let ctx = this.contexts.get(account.name);
    if (!ctx) {
      const kept = this.options.keepLists ? (this.kept[account.name] ??= {}) : undefined;
      this.contexts.set(account.name, (ctx = fetchContext(this.client, account, this.options.settings, this.reads, kept)));
    }
    return ctx;
  }

  /** The live resources of `kind` (not one listed per parent) in `account`, the tool's own records left out. */
  list(account: AccountConfig, kind: Kind): Promise<LiveResource[]> {
    const key = JSON.stringify([account.name, kind.kind]);
    let pending = this.lists.get(key);
    if (!pending) {
      pending = kind.list(this.context(account)).then((live) => withoutLeases(this.kinds, live));
      // Asked for ahead, awaited later (or never, when the configuration turns out invalid).
      pending.catch(() => {});
      this.lists.set(key, pending);
    }
    return pending;
  }

  /** The list bodies kept for `accounts` (each account's record fills as its reads answer). */
  keptLists(accounts: readonly AccountConfig[]): Record<string, Record<string, readonly unknown[]>> {
    const out: Record<string, Record<string, readonly unknown[]>> = {};
    for (const a of accounts) out[a.name] = this.kept[a.name] ??= {};
    return out;
  }

  /** Whether the list of `kind` in `account` has been asked for. */
  has(account: AccountConfig, kind: Kind): boolean {
    return this.lists.has(JSON.stringify([account.name, kind.kind]));
  }
}

/**
 * How each list path is read: the request for it, with its search as the alternative where allowed.
 * A search the service refuses is dropped from the map for the rest of the run (see readAll).
 */
export type ListReads = Map<string, Pick<ApiRequest, 'method' | 'path' | 'body' | 'alternative'>>;

/** The list paths of `kinds` that have a search, and how `readPaths` reads them. */
export function readsOf(kinds: readonly Kind[], readPaths: ReadPaths = 'both'): ListReads {
  const reads: ListReads = new Map();
  if (readPaths === 'list') return reads;
  for (const kind of kinds) {
    if (!kind.searchable) continue;
    const list = `${API_PREFIX}/${kind.collection}`;
    // No filters and no `returns`: every record, every member, as the list gives them.
    const search = { method: 'POST' as const, path: `${list}/search`, body: {} };
    reads.set(list, readPaths === 'search' ? search : { method: 'GET', path: list, alternative: search });
  }
  return reads;
}

/** Pages of one answer at most (5,000 rows each: 500,000 rows, the service's own limit of a result set). */
const MAX_PAGES = 100;

/**
 * A FetchContext whose lists are memoised per path (the context belongs to one account). Every caller
 * gets the same list, frozen, so kinds sharing a list cannot disturb each other without a copy of it
 * per kind (a copy of a large list per reader was most of a run's memory). `reads` says which lists
 * may be read through their search instead; a paged answer is followed to its last page.
 */
export function fetchContext(client: ApiClient, account: AccountConfig, settings?: KindSettings, reads: ListReads = new Map(), kept?: Record<string, readonly unknown[]>): FetchContext {
  const memo = new Map<string, Promise<unknown>>();
  const target = requestTarget(account);
  return {
    account: account.name,
    orgAccess: account.orgAccess,
    ...(settings !== undefined ? { settings } : {}),
    get(path: string): Promise<unknown> {
      let pending = memo.get(path);
      if (!pending) {
        // Kept as read, frozen and shared (no copy), under the list path without the API prefix.
        pending = readAll(client, path, reads, target)
          .then(deepFreeze)
          .then((data) => {
            if (kept && Array.isArray(data)) kept[path.slice(API_PREFIX.length + 1)] = data;
            return data;
          });
        memo.set(path, pending);
      }
      return pending;
    },
  };
}

/** `value`, and everything in it, made read-only: a kind that writes into a shared list fails loudly. */
function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object' || Object.isFrozen(v)) continue;
    Object.freeze(v);
    for (const child of Object.values(v)) stack.push(child);
  }
  return value;
}

/** Answers to a search that say the service has no such search or refuses its body: the list still works. */
const SEARCH_REFUSED = new Set([400, 404, 405, 501]);

/**
 * One read of the list at `path`, `{data}` unwrapped, with the records of every further page
 * (`paging.urls.nextPage`) appended. A search the service refuses (it is not in the seeds for every
 * collection, and a live service may differ) is not tried again in this run: the list is read instead.
 */
async function readAll(client: ApiClient, path: string, reads: ListReads, target: Pick<ApiRequest, 'account' | 'orgAccess'>): Promise<unknown> {
  const first: ApiRequest = { method: 'GET', path, ...reads.get(path), ...target };
  let res;
  try {
    res = await client.request(first);
  } catch (err) {
    if (!(err instanceof ApiError && err.status !== undefined && SEARCH_REFUSED.has(err.status) && err.path.split('?')[0].endsWith('/search'))) throw err;
    res = await client.request({ method: 'GET', path, ...target });
    // The list answered where the search did not: the search is the problem, not this account.
    reads.delete(path);
  }
  const data = unwrapData(res.body);
  // The pages of one list count together against the client's response size limit.
  let paged = res.bytes ?? 0;
  for (let page = 1; Array.isArray(data); page++) {
    const next = nextPageOf(res.body);
    if (next === undefined) break;
    if (page >= MAX_PAGES) throw new ApiError({ kind: 'permanent', method: first.method, path: first.path, detail: `more than ${MAX_PAGES} pages of records` });
    res = await client.request({ method: 'GET', path: next, ...target, pagedBytes: paged });
    paged += res.bytes ?? 0;
    const more = unwrapData(res.body);
    if (!Array.isArray(more)) throw new ApiError({ kind: 'permanent', method: 'GET', path: first.path, detail: 'unexpected response: a page that is not a list of records' });
    data.push(...(more as unknown[]));
  }
  return data;
}

function nextPageOf(body: unknown): string | undefined {
  const paging = isObject(body) ? body.paging : undefined;
  const next = isObject(paging) && isObject(paging.urls) ? paging.urls.nextPage : undefined;
  return typeof next === 'string' && next !== '' ? next : undefined;
}

async function fetchAccount(
  ahead: ListsAhead,
  account: AccountConfig,
  kinds: readonly Kind[],
  parentsOf?: ParentsOf,
  beforeParents?: FetchOptions['beforeParents'],
): Promise<LiveResource[]> {
  const ctx = ahead.context(account);
  // Kinds of one account run together: the memo turns a shared list path into one request.
  const lists = await Promise.all(kinds.filter((k) => !k.perParent).map((kind) => ahead.list(account, kind)));
  const read = lists.flat();
  // Then the kinds listed per parent, once their parents are known: one request per parent to read.
  const toRead = kinds
    .filter((k) => k.perParent)
    .map((kind) => {
      const parentKind = kind.perParent!.parentKind;
      const known = kinds.some((k) => k.kind === parentKind) ? read.filter((r) => r.kind === parentKind) : [];
      const wanted = parentsOf?.(account, kind.kind);
      return { kind, parents: known.filter((p) => wanted === undefined || wanted.includes(p.name)).map((p) => ({ id: p.serviceId ?? p.id, name: p.name })) };
    });
  if (beforeParents && toRead.length > 0) await beforeParents(account, new Map(toRead.map((t) => [t.kind.kind, t.parents.map((p) => p.name)])));
  const perParent = await Promise.all(toRead.map(({ kind, parents }) => (parents.length === 0 ? [] : kind.list({ ...ctx, parents }))));
  return [...read, ...perParent.flat()];
}

/**
 * The apply lease is the tool's own record: never planned, listed as unmanaged, pruned or exported.
 * The registry's hook counts too: a read of templates alone must drop the lease profile's template.
 */
export function withoutLeases(_kinds: readonly Kind[], live: LiveResource[]): LiveResource[] {
  // The record of the last apply is the tool's own in the same way.
  return live.filter((r) => !isLeaseRecord(r) && !isAppliedRecord(r));
}

function statsDelta(before: CallStats, after: CallStats): CallStats {
  const byBucket: Record<string, number> = {};
  for (const bucket of Object.keys(after.byBucket).sort()) {
    const n = after.byBucket[bucket] - (before.byBucket[bucket] ?? 0);
    if (n > 0) byBucket[bucket] = n;
  }
  return { total: after.total - before.total, byBucket };
}

/**
 * Replaces the live ids at each kind's reference pointers by the name of the resource of the
 * referenced kind with that id in the same account. An id without a match stays, with a warning.
 * References to a kind left unread in the account (`read`) keep their ids without a warning: their
 * holder was read only to see what it uses (the in-use check), never to be compared.
 */
export function mapReferences(
  resources: readonly LiveResource[],
  kinds: readonly Kind[],
  read: (account: string, kind: string) => boolean = () => true,
): { resources: LiveResource[]; diagnostics: Diagnostic[] } {
  const kindByName = new Map(kinds.map((k) => [k.kind, k]));
  const nameById = new Map<string, string>();
  const idKey = (account: string, kind: string, id: string): string => JSON.stringify([account, kind, id]);
  for (const r of resources) nameById.set(idKey(r.account, r.kind, r.id), r.name);

  const diagnostics: Diagnostic[] = [];
  const mapped = resources.map((r) => {
    const kind = kindByName.get(r.kind);
    if (!kind || (kind.references ?? []).length === 0) return r;
    let spec = r.spec;
    for (const ref of (kind.references ?? [])) {
      if (!read(r.account, ref.kind)) continue;
      const value = getAt(spec, ref.pointer);
      const mapOne = (id: Json): Json => {
        if (typeof id !== 'string') return id;
        const name = nameById.get(idKey(r.account, ref.kind, id));
        if (name !== undefined) return name;
        diagnostics.push({
          severity: 'warning',
          code: 'dangling-reference',
          message: `${r.account}/${r.kind}/${r.name} refers to ${ref.kind} id ${id}, which does not exist in account ${r.account}`,
          field: ref.pointer,
          hint: `the reference is compared as the bare id; declare the ${ref.kind} or remove the reference`,
        });
        return id;
      };
      if (typeof value === 'string') spec = setAt(spec, ref.pointer, mapOne(value));
      else if (Array.isArray(value)) spec = setAt(spec, ref.pointer, value.map(mapOne));
    }
    return spec === r.spec ? r : { ...r, spec };
  });
  return { resources: mapped, diagnostics };
}
