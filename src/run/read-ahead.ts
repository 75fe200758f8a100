// The live read started while the files load. The root file names the accounts; each file's
// documents say which kinds an account needs (neededKinds). As soon as the documents told so far
// make a list needed, it is asked for, and the run's read after the load takes it instead of
// sending it. What is needed only grows as documents are added (a document declares a resource of
// its own kind in each of its accounts), so a valid configuration sends the same requests as a read
// after the load, in another order. A file with an error stops it: nothing more is asked for ahead,
// and the run says what was sent (RunError `invalid`, `sent`).
//
// Only a plain plan reads ahead. The apply lease is taken before anything is read; changed accounts
// and shards are worked out from the whole configuration; a maximum duration needs the pre-flight
// of the whole read before its first request; and a read the budget would make wait (even every
// list of every account, with the token) gets its pre-flight before it starts, as after the load.

import type { BucketBudget } from '../api/types.js';
import type { LoadProgress } from '../config/types.js';
import { KINDS, kindForDocument } from '../kinds/index.js';
import type { AccountConfig, DesiredState, RootConfig } from '../model/account.js';
import { neededKinds } from '../ops/live/needed-kinds.js';
import { DEFAULT_FETCH_CONCURRENCY, ListsAhead } from '../ops/live/fetch.js';
import type { Kind } from '../kinds/types.js';
import { preflight, readGroups, TOKEN_GROUP } from '../ops/budget/preflight.js';
import type { Run, RunSetup } from './run.js';

/** What a plan run asks for that decides whether it may read ahead. */
export interface ReadAheadRequest {
  accounts?: readonly string[];
  lease?: boolean;
  changedSince?: string;
  changed?: unknown;
  shard?: unknown;
}

/** Whether a run of `request` may start its read before the files have loaded. */
export function mayReadAhead(setup: Pick<RunSetup, 'flags'>, request: ReadAheadRequest): boolean {
  return !request.lease && request.changedSince === undefined && request.changed === undefined && request.shard === undefined && setup.flags.maxDuration === undefined;
}

export class ReadAhead implements LoadProgress {
  /** The lists asked for; undefined until the root file is known (and when it may not start). */
  lists: ListsAhead | undefined;
  private stopped = false;
  private config: RootConfig | undefined;
  private accounts: AccountConfig[] = [];
  /** Per account, one (account, kind) of each pair the documents declared so far: all neededKinds looks at. */
  private readonly declared = new Map<string, DesiredState['resources']>();
  private readonly seen = new Set<string>();
  /** Accounts with lists to ask for, in order, and those lists; accounts being read. */
  private readonly queue: AccountConfig[] = [];
  private readonly wanted = new Map<string, Kind[]>();
  private active = 0;

  /** `budget`: what the run knew of the buckets before its first request (earlier runs' figures). */
  constructor(
    private readonly run: Run,
    private readonly names: readonly string[] | undefined,
    private readonly budget: readonly BucketBudget[],
    /** Keep the list bodies as read, for a rehearsal (FetchOptions.keepLists). */
    private readonly keepLists = false,
  ) {}

  root(root: RootConfig): void {
    const names = this.names ?? [];
    if (names.some((n) => !root.accounts.some((a) => a.name === n))) return this.stop();
    const accounts = names.length === 0 ? [...root.accounts] : root.accounts.filter((a) => names.includes(a.name));
    // The most this read could send: if even that would wait, the pre-flight comes first.
    const most = readGroups(accounts, () => KINDS.filter((k) => !k.perParent));
    if (preflight([TOKEN_GROUP, ...most], this.budget, this.run.now()).seconds > 0) return this.stop();
    this.config = root;
    this.accounts = accounts;
    this.lists = new ListsAhead(this.run.client, KINDS, { settings: root.settings, ...(this.keepLists ? { keepLists: true } : {}) });
    // Pruned kinds are read in every account, whatever the documents say.
    if (Object.values(root.prune).some((p) => p === true)) this.ask(new Set(accounts.map((a) => a.name)));
  }

  file(documents: readonly { kind: string; accounts: readonly string[] }[], errors: boolean): void {
    if (this.stopped || !this.config) return;
    if (errors) return this.stop();
    const touched = new Set<string>();
    for (const doc of documents) {
      const kind = kindForDocument(doc.kind);
      if (!kind) continue;
      for (const account of doc.accounts) {
        const key = JSON.stringify([account, kind.kind]);
        if (this.seen.has(key)) continue;
        this.seen.add(key);
        const list = this.declared.get(account);
        const pair = { kind: kind.kind, account, name: '', spec: {}, envRefs: {} };
        if (list) list.push(pair);
        else this.declared.set(account, [pair]);
        touched.add(account);
      }
    }
    if (touched.size > 0) this.ask(touched);
  }

  /** No more reads ahead (a file with errors, or the load is over): those asked for go on, the queued ones are left to the read. */
  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
    this.wanted.clear();
  }

  /** Requests sent so far by the run (the reads ahead and the token exchange before them). */
  sent(): number {
    return this.run.client.stats().total;
  }

  /** Queues the lists the documents so far make needed in the `touched` accounts. */
  private ask(touched: ReadonlySet<string>): void {
    const lists = this.lists!;
    // An account's needs depend on its own documents and the root alone: only the touched ones count.
    const resources = [...touched].flatMap((a) => this.declared.get(a) ?? []);
    const kindsOf = neededKinds({ root: this.config!, resources }, KINDS);
    for (const account of this.accounts) {
      if (!touched.has(account.name)) continue;
      const queued = this.wanted.get(account.name);
      const more = kindsOf(account).filter((k) => !k.perParent && !lists.has(account, k) && !queued?.includes(k));
      if (more.length === 0) continue;
      if (queued) queued.push(...more);
      else {
        this.wanted.set(account.name, more);
        this.queue.push(account);
      }
    }
    this.pump();
  }

  /** Accounts a few at a time, an account's lists together: as the read after the load sends them. */
  private pump(): void {
    while (!this.stopped && this.active < DEFAULT_FETCH_CONCURRENCY && this.queue.length > 0) {
      const account = this.queue.shift()!;
      const kinds = this.wanted.get(account.name)!;
      this.wanted.delete(account.name);
      this.active++;
      void Promise.allSettled(kinds.map((k) => this.lists!.list(account, k))).then(() => {
        this.active--;
        this.pump();
      });
    }
  }
}
