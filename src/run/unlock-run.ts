// The unlock run (`postureops unlock`): the apply lease of the configuration (one record, in its home
// account), with its holder and age by the service's clock, and marking it freed once a person
// confirmed. A freed lease is never deleted: the next apply waits the lease's lifetime and margin
// before it takes it (nobody can tell when a holder that is gone last wrote). Between the two the
// adapter asks; the run (its client) stays open across the question.

import { leaseAge, leaseHome, LEASE_LIFETIME_MS, lookAt, requestContext } from '../ops/lease/lease.js';
import { type LeaseData, writeLeaseRequest } from '../ops/lease/lease-record.js';
import type { AccountConfig } from '../model/account.js';
import { Run, type RunSetup } from './run.js';

/** The lease record found, while held. The holder is the service's text: untrusted. */
export interface HeldLease {
  /** The account holding the record (the configuration's home). */
  account: AccountConfig;
  id: string;
  generation: number;
  /** Undefined when the record cannot be read (edited?). */
  holder?: string;
  data?: LeaseData;
  /** Milliseconds since its last renewal, by the service's clock, when readable. */
  ageMs?: number;
  /** Not renewed for long enough that the next apply takes it over anyway. */
  stale: boolean;
}

export class UnlockRun {
  private constructor(readonly run: Run) {}

  static open(setup: RunSetup): UnlockRun {
    return new UnlockRun(Run.open(setup));
  }

  /** The lease of a configuration declaring `accounts` (one list request); empty when none is held. */
  async held(accounts: readonly AccountConfig[]): Promise<HeldLease[]> {
    const home = leaseHome(accounts);
    if (!home) return [];
    const look = await lookAt(this.run.client, home);
    const top = look.top;
    if (!top || (top.data && top.data.state !== 'held')) return [];
    const age = leaseAge(top, look.date);
    return [
      {
        account: home,
        id: top.id,
        generation: top.generation,
        ...(top.data ? { holder: top.data.holder, data: top.data } : {}),
        ...(age !== undefined ? { ageMs: age } : {}),
        stale: age !== undefined && age >= LEASE_LIFETIME_MS,
      },
    ];
  }

  /** Marks the record freed (a PATCH; never a delete): an apply still holding it stops at its next renewal. */
  async free(lease: HeldLease): Promise<void> {
    const data: LeaseData = lease.data ? { ...lease.data, state: 'freed' } : { owner: 'postureops unlock', holder: 'postureops unlock', stamp: 0, state: 'freed' };
    const req = writeLeaseRequest(lease.generation, data, requestContext(lease.account));
    await this.run.client.request({ ...req, account: lease.account.orgAccess ? undefined : lease.account.name, orgAccess: lease.account.orgAccess || undefined });
  }

  close(): Promise<void> {
    return this.run.close();
  }
}
