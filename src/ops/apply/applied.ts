// The record of each account's last successful apply (Kind.applied, today an alert profile of the
// service): read before an apply to find what changed since, written by apply once every change of an
// account is done, under its lease. With it, a cancelled or failed apply leaves nothing behind: the
// next one covers every commit since the account's last success.

import type { ApiClient } from '../../api/types.js';
import type { AccountConfig } from '../../model/account.js';
import type { AppliedData, AppliedHook, Kind } from '../../kinds/types.js';
import type { Leases } from '../lease/lease.js';
import { requestTarget } from '../../model/account.js';

/** What an account's record says: its commit, none yet, or a record that cannot be read (edited). */
export type AppliedState = { commit: string } | 'none' | 'unreadable';

export function appliedHookOf(kinds: readonly Kind[]): AppliedHook | undefined {
  return kinds.find((k) => k.applied !== undefined)?.applied;
}

function send(client: ApiClient, account: AccountConfig, req: { method: 'GET'; path: string }) {
  return client.request({ ...req, ...requestTarget(account) });
}

/** One list request per account: the accounts' records, in the order given. */
export async function readApplied(client: ApiClient, kinds: readonly Kind[], accounts: readonly AccountConfig[]): Promise<Map<string, AppliedState>> {
  const hook = appliedHookOf(kinds);
  const out = new Map<string, AppliedState>();
  for (const account of accounts) {
    if (!hook) {
      out.set(account.name, 'none');
      continue;
    }
    const data = hook.read((await send(client, account, { method: 'GET', path: hook.listPath })).body);
    out.set(account.name, data === undefined ? 'none' : data === 'unreadable' ? 'unreadable' : { commit: data.commit });
  }
  return out;
}

/** Writes `commit` as the account's last applied commit, fenced by the account's lease. */
export async function writeApplied(client: ApiClient, kinds: readonly Kind[], leases: Leases, account: AccountConfig, commit: string): Promise<void> {
  const hook = appliedHookOf(kinds);
  if (!hook) throw new Error('no kind of the registry stores the applied record');
  const ctx = leases.requestContextOf(account.name);
  if (!ctx) throw new Error(`no lease is held in account ${account.name}`);
  const list = await send(client, account, { method: 'GET', path: hook.listPath });
  const data: AppliedData = { commit, stamp: list.date ?? 0 };
  await leases.request(account.name, hook.writeRequest(data, list.body, ctx));
}
