// Step "scope": which accounts this plan covers (all of the root, or those asked for) and the desired
// and live resources of those accounts. Nothing outside the scope is planned, listed or pruned, and
// an account asked for but unknown, or not fetched, is an error rather than an empty plan.

import type { AccountConfig, DesiredState } from '../../model/account.js';
import type { Diagnostic } from '../../model/diagnostics.js';
import type { DesiredResource, LiveResource } from '../../model/resource.js';
import type { LiveState } from '../../model/live.js';
import { resourceKey } from '../../model/resource.js';

export interface Scope {
  /** In the root's order: the order's tie-break. */
  readonly accounts: readonly AccountConfig[];
  readonly accountOrder: readonly string[];
  readonly desired: readonly DesiredResource[];
  readonly live: readonly LiveResource[];
  /** Keys of every declared resource in scope, whether or not it can be planned. */
  readonly declared: ReadonlySet<string>;
  readonly diagnostics: readonly Diagnostic[];
}

/** `only`: account names asked for (`--account`); every account of the root when absent. */
export function scope(desired: DesiredState, live: LiveState, only: readonly string[] | undefined): Scope {
  const diagnostics: Diagnostic[] = [];
  const rootNames = desired.root.accounts.map((a) => a.name);
  for (const name of only ?? []) {
    if (rootNames.includes(name)) continue;
    diagnostics.push({
      severity: 'error',
      code: 'unknown-account',
      message: `account ${name} is not one of the accounts of ${desired.root.file}`,
      file: desired.root.file,
      hint: `expected one of: ${rootNames.join(', ')}`,
    });
  }
  const accounts = desired.root.accounts.filter((a) => !only || only.includes(a.name)).map((a) => ({ name: a.name, orgAccess: a.orgAccess }));
  const accountOrder = accounts.map((a) => a.name);
  const fetched = new Set(live.accounts.map((a) => a.name));
  for (const name of accountOrder) {
    if (!fetched.has(name)) {
      diagnostics.push({ severity: 'error', code: 'account-not-fetched', message: `the live state holds no data of account ${name}` });
    }
  }
  const inScope = new Set(accountOrder);
  const desiredIn = desired.resources.filter((r) => inScope.has(r.account));
  return {
    accounts,
    accountOrder,
    desired: desiredIn,
    live: live.resources.filter((r) => inScope.has(r.account)),
    declared: new Set(desiredIn.map((d) => resourceKey(d.account, d.kind, d.name))),
    diagnostics,
  };
}
