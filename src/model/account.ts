// The configuration as the engine receives it: the accounts, the root file's settings, and the
// desired resources.

import type { JsonObject } from './json.js';
import type { DesiredResource } from './resource.js';
import type { RoutingSettings } from './routing.js';

export interface AccountConfig {
  /** Value of the Account-Name header. */
  name: string;
  /** Organization-level data: requests carry `Org-Access: true` instead of Account-Name. */
  orgAccess: boolean;
}

/** Where a request for an account goes: the fields of a request that pick its account. */
export interface RequestTarget {
  /** Account-Name header; absent for an org-access account. */
  account: string | undefined;
  /** Org-Access header; absent (never false) for an account reached by name. */
  orgAccess: true | undefined;
}

/**
 * The one rule that picks the account of a request (lease, applied record, fetch, attribution,
 * apply, budget): an org-access account is reached by `Org-Access: true` and no Account-Name, any
 * other by its name. `accounts` finds the account of a name (unknown: by name).
 */
export function requestTarget(account: Pick<AccountConfig, 'name' | 'orgAccess'> | string, accounts: readonly AccountConfig[] = []): RequestTarget {
  const named = typeof account === 'string' ? { name: account, orgAccess: accounts.find((a) => a.name === account)?.orgAccess ?? false } : account;
  return named.orgAccess ? { account: undefined, orgAccess: true } : { account: named.name, orgAccess: undefined };
}

export interface RootConfig {
  /** Path of postureops.yaml. */
  file: string;
  accounts: AccountConfig[];
  defaultAccount?: string;
  /** Whether undeclared live resources are deleted, per kind name (every registered kind present). */
  prune: Record<string, boolean>;
  /** `secrets.literals`: what a literal value in a secret the service returns in clear is (default warn). */
  secretLiterals?: SecretLiteralPolicy;
  /** `protect`: `[account/]Kind/name` selectors (`*` within a part) of live resources prune never deletes. */
  protect?: string[];
  /** Settings the kinds own (Kind.rootSettings), as the root file gives them; absent ones left out. */
  settings?: JsonObject;
  /** `safety`: the thresholds a plan may not pass without --force (defaults where absent). */
  safety?: SafetySettings;
  /** `routing`: requirements and route tests, with their places in the file. */
  routing?: RoutingSettings;
  /** `variables`: the environment variables documents may read (names, or prefixes ending in `*`). */
  variables?: string[];
  /** `serviceValues`: per closed set (by its label), values the service holds that this version does not know. */
  serviceValues?: ServiceValues;
}

/** Values of closed sets the service holds beyond the known ones, by the set's label (`CloudAccount type`). */
export type ServiceValues = Readonly<Record<string, readonly string[]>>;

/** How much of what exists one plan may change: octoDNS's update and delete percentages. */
export interface SafetyThresholds {
  /** Below this many live resources of a kind in an account, the per-kind thresholds do not apply. */
  minResources?: number;
  /** Share (0 to 100) of a kind's live resources a plan may update or replace. */
  updatePercent?: number;
  /** Share (0 to 100) of the live resources a plan may delete: per kind (from minResources on) and per account (at any count). */
  deletePercent?: number;
}

/** `safety` in postureops.yaml: thresholds for every kind and account, then per kind, per account, and per account and kind (the most specific wins). */
export interface SafetySettings extends SafetyThresholds {
  kinds?: Record<string, SafetyThresholds>;
  accounts?: Record<string, SafetyThresholds & { kinds?: Record<string, SafetyThresholds> }>;
}

/** A literal in a secret member the service returns in clear: a warning, an error, or accepted silently. */
export type SecretLiteralPolicy = 'warn' | 'error' | 'allow';

export interface DesiredState {
  root: RootConfig;
  /** Every declared resource, one per (account, kind, name), secrets resolved from the environment. */
  resources: DesiredResource[];
  /** Every value read from the environment (non-empty): masked in every output, wherever it flows. */
  read?: string[];
}
