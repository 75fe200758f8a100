// The unlock run (`postureops unlock`): the apply leases held in the accounts asked for, each with
// its holder and age by the service's clock, and freeing those a person confirmed. Between the two
// the adapter asks; the run (its client) stays open across the question.

import { KINDS } from '../kinds/index.js';
import { leaseAge, leaseHookOf, LEASE_STALE_MS, lookAt, removeLease } from '../ops/lease/lease.js';
import type { LeaseHook } from '../kinds/types.js';
import type { AccountConfig } from '../model/account.js';
import { Run, type RunSetup } from './run.js';

/** One lease record found in an account. The holder is the service's text: untrusted. */
export interface HeldLease {
  account: AccountConfig;
  id: string;
  /** Undefined when the record cannot be read (edited?). */
  holder?: string;
  /** Milliseconds since its last renewal, by the service's clock, when readable. */
  ageMs?: number;
  /** Not renewed for long enough that the next apply takes it over anyway. */
  stale: boolean;
}

export class UnlockRun {
  private constructor(
    readonly run: Run,
    private readonly hook: LeaseHook,
  ) {}

  /** Undefined when no kind of the registry holds a lease (nothing to unlock). */
  static open(setup: RunSetup): UnlockRun | undefined {
    const hook = leaseHookOf(KINDS);
    return hook ? new UnlockRun(Run.open(setup), hook) : undefined;
  }

  /** The lease records of `accounts`: one list request each. */
  async held(accounts: readonly AccountConfig[]): Promise<HeldLease[]> {
    const found: HeldLease[] = [];
    for (const account of accounts) {
      const look = await lookAt(this.run.client, this.hook, account);
      for (const record of look.records) {
        const age = leaseAge(record, look.date);
        found.push({
          account,
          id: record.id,
          ...(record.data ? { holder: record.data.holder } : {}),
          ...(age !== undefined ? { ageMs: age } : {}),
          stale: age !== undefined && age >= LEASE_STALE_MS,
        });
      }
    }
    return found;
  }

  /** Deletes one lease record (gone already is fine): an apply still holding it stops at its next write. */
  free(lease: HeldLease): Promise<void> {
    return removeLease(this.run.client, this.hook, lease.account, lease.id);
  }

  close(): Promise<void> {
    return this.run.close();
  }
}
