// What the configuration layer hands to the engine.

import type { Diagnostic } from '../diagnostics.js';
import type { DesiredResource } from '../kinds/types.js';

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
}

export interface DesiredState {
  root: RootConfig;
  /** Every declared resource, one per (account, kind, name), secrets resolved from the environment. */
  resources: DesiredResource[];
}

export interface LoadResult {
  /** Undefined when the root file itself could not be read. */
  state?: DesiredState;
  /** Every problem found, errors and warnings, sorted by file and line. */
  diagnostics: Diagnostic[];
}

export interface LoadOptions {
  /** Values for `${env:NAME}`. */
  env: Readonly<Record<string, string | undefined>>;
  /** Base of the file paths in diagnostics (default: process.cwd()); paths outside it are absolute. */
  cwd?: string;
  /** Severity of `env-missing` (default `error`; `warning` lets an offline check run without the secrets). */
  missingEnv?: 'error' | 'warning';
}
