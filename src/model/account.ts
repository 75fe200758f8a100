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
  /** `routing`: requirements and route tests, with their places in the file. */
  routing?: RoutingSettings;
}

/** A literal in a secret member the service returns in clear: a warning, an error, or accepted silently. */
export type SecretLiteralPolicy = 'warn' | 'error' | 'allow';

export interface DesiredState {
  root: RootConfig;
  /** Every declared resource, one per (account, kind, name), secrets resolved from the environment. */
  resources: DesiredResource[];
}
