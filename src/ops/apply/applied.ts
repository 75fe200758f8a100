// The record of each account's last successful apply (applied-record.ts, today an alert profile of
// the service): read before an apply to find what changed since, written by apply once every change
// of an account is done, under its lease. With it, a cancelled or failed apply leaves nothing behind:
// the next one covers every commit since the account's last success.

import type { ApiClient } from '../../api/types.js';
import type { AccountConfig } from '../../model/account.js';
import type { Leases } from '../lease/lease.js';
import { APPLIED_LIST_PATH, type AppliedData, readAppliedRecord, writeAppliedRequest } from './applied-record.js';

/** What an account's record says: its commit, none yet, or a record that cannot be read (edited). */
export type AppliedState = { commit: string } | 'none' | 'unreadable';

function send(client: ApiClient, account: AccountConfig, req: { method: 'GET'; path: string }) {
  return client.request({ ...req, account: account.orgAccess ? undefined : account.name, orgAccess: account.orgAccess || undefined });
}

/** One list request per account: the accounts' records, in the order given. */
export async function readApplied(client: ApiClient, accounts: readonly AccountConfig[]): Promise<Map<string, AppliedState>> {
  const out = new Map<string, AppliedState>();
  for (const account of accounts) {
    const data = readAppliedRecord((await send(client, account, { method: 'GET', path: APPLIED_LIST_PATH })).body);
    out.set(account.name, data === undefined ? 'none' : data === 'unreadable' ? 'unreadable' : { commit: data.commit });
  }
  return out;
}

/** Writes `commit` as the account's last applied commit, fenced by the run's lease. */
export async function writeApplied(client: ApiClient, leases: Leases, account: AccountConfig, commit: string): Promise<void> {
  const ctx = leases.requestContextOf(account);
  const list = await send(client, account, { method: 'GET', path: APPLIED_LIST_PATH });
  const data: AppliedData = { commit, stamp: list.date ?? 0 };
  await leases.request(account, writeAppliedRequest(data, list.body, ctx));
}
