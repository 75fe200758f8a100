// What the apply lease guards: before each create, the lease is still ours and a fresh read taken
// under it shows whether another run created the name since this plan was read (then nothing is
// created); after the last change, one more read per account and collection finds names this run
// created that another run created too, which can only happen when a lease failed (a write that left
// more than a minute after its fence, or a writer that took none). The rule is
// deterministic: the lowest id survives; a run removes only a record it created itself, and only
// when a record with that name and a lower id exists, so two runs that both check keep exactly one.

import type { Kind, LiveResource, FetchContext } from '../../kinds/types.js';
import type { Change, ChangeResult } from '../../model/plan.js';
import { because } from '../../model/reasons.js';
import type { Leases } from '../lease/lease.js';

interface Made {
  change: Change;
  kind: Kind;
  id: string;
}

export class CreateGuard {
  private readonly lists = new WeakMap<FetchContext, Map<string, Promise<LiveResource[]>>>();
  private readonly made: Made[] = [];

  constructor(private readonly leases: Leases) {}

  /** Before a create: the live resource that has its name already (the record `except` aside: a replaced one). */
  async existing(change: Change, kind: Kind, except?: string): Promise<LiveResource | undefined> {
    const ctx = await this.leases.check(change.account);
    if (!ctx) return undefined;
    const live = await this.listed(ctx, kind);
    return live.find((r) => sameName(r, change, kind) && r.id !== except);
  }

  created(change: Change, kind: Kind, id: string): void {
    this.made.push({ change, kind, id });
  }

  /** The last check: results of this run's creates, amended where a twin was found. */
  async settle(results: ChangeResult[]): Promise<ChangeResult[]> {
    const amended = new Map<string, Pick<ChangeResult, 'reason' | 'reasonCode' | 'liveId'>>();
    const contexts = new Map<string, FetchContext | undefined>();
    // Dependents first: a rule is settled before the channel it routes to.
    for (const made of [...this.made].reverse()) {
      const { change, kind, id } = made;
      if (!contexts.has(change.account)) contexts.set(change.account, this.leases.fresh(change.account));
      const ctx = contexts.get(change.account);
      if (!ctx) continue;
      let twins: LiveResource[];
      try {
        twins = (await this.listed(ctx, kind)).filter((r) => sameName(r, change, kind) && r.id !== id);
      } catch (err) {
        this.leases.note(`the last check for duplicates of ${change.key} could not read the service: ${err instanceof Error ? err.message : String(err)}`);
        continue;
      }
      if (twins.length === 0) continue;
      const lowest = twins.reduce((a, b) => (b.id < a.id ? b : a));
      const ids = twins.map((t) => t.id).sort().join(', ');
      if (lowest.id > id || kind.lifecycle?.deleteMeans !== undefined || kind.credentials?.secretIds) {
        amended.set(
          change.key,
          because(
            'duplicate-kept',
            `another apply created ${change.name} as well (${ids}): this run's ${id} is kept${lowest.id > id ? ' (lowest id); the other run removes its own' : `; a delete of ${kind.kind} is not a deletion`}`,
          ),
        );
        continue;
      }
      try {
        await this.leases.request(change.account, kind.deleteRequest(id, this.leases.requestContextOf(change.account)!));
        amended.set(change.key, {
          liveId: lowest.id,
          ...because('duplicate-removed', `another apply created ${change.name} as well (${ids}): removed this run's ${id}, kept ${lowest.id} (lowest id)`),
        });
      } catch (err) {
        amended.set(
          change.key,
          because('duplicate-not-removed', `another apply created ${change.name} as well (${ids}); removing this run's ${id} failed: ${err instanceof Error ? err.message : String(err)}`),
        );
      }
    }
    return results.map((r) => (amended.has(r.key) ? { ...r, ...amended.get(r.key) } : r));
  }

  private listed(ctx: FetchContext, kind: Kind): Promise<LiveResource[]> {
    let byKind = this.lists.get(ctx);
    if (!byKind) this.lists.set(ctx, (byKind = new Map()));
    let pending = byKind.get(kind.kind);
    if (!pending) {
      pending = kind.list(ctx).then((live) => live.filter((r) => !this.leases.owns(r)));
      byKind.set(kind.kind, pending);
    }
    return pending;
  }
}

function sameName(r: LiveResource, change: Change, kind: Kind): boolean {
  return r.kind === kind.kind && r.name === change.name && (change.parent === undefined || r.parent === change.parent);
}
