// What the configuration layer hands to the engine.

import type { Diagnostic } from '../model/diagnostics.js';
import type { AccountConfig, DesiredState, RootConfig } from '../model/account.js';

export type { AccountConfig, DesiredState, RootConfig };

export interface LoadResult {
  /** Undefined when the root file itself could not be read. */
  state?: DesiredState;
  /** Every problem found, errors and warnings, sorted by file and line (masked for `read`). */
  diagnostics: Diagnostic[];
  /** Every value read from the environment (non-empty), whether the configuration is valid or not. */
  read: string[];
}

export interface LoadOptions {
  /** Values for `${env:NAME}`. */
  env: Readonly<Record<string, string | undefined>>;
  /** Base of the file paths in diagnostics (default: process.cwd()); paths outside it are absolute. */
  cwd?: string;
  /**
   * Severity of `env-missing` (default `error`; `warning` lets an offline check run without the secrets).
   * `skip` (validate --no-env) treats empty variables as unset too and reports each use as an
   * `env-skipped` warning, which callers summarise in one line.
   */
  missingEnv?: 'error' | 'warning' | 'skip';
  /**
   * Read files on worker threads too: `true` always (when the compiled worker is there), `false`
   * never, absent when the repository is large and the machine has CPUs to spare (parallel-load.ts).
   */
  parallel?: boolean;
  /**
   * Told the values read from the environment as soon as they are read (file by file, before
   * anything else happens): the Action registers them with the runner there.
   */
  onRead?: (values: readonly string[]) => void;
  /**
   * The clock documents are judged by (a vulnerability exception past its expiry is a warning), read
   * once per load; default Date.now. Tests give their virtual one.
   */
  now?: () => number;
  /**
   * Told what the loader knows as it goes: the root file's configuration, then each file's
   * documents in file order (the run layer starts the live read from them: src/run/read-ahead.ts).
   * Given this, the loader lets other work run between files (answers to requests already sent).
   */
  onProgress?: LoadProgress;
}

/** What the loader tells as it goes (LoadOptions.onProgress). */
export interface LoadProgress {
  /** The root file, read and valid (not called when it has errors). */
  root(root: RootConfig): void;
  /**
   * One file's documents without errors (kind as written, the accounts each is stamped into), and
   * whether the file had errors. The loader waits for a promise returned here.
   */
  file(documents: readonly { kind: string; accounts: readonly string[] }[], errors: boolean): void | Promise<void>;
}
