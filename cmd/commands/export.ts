import { resolve } from 'node:path';
import type { AccountConfig } from '../../src/model/account.js';
import { hasErrors } from '../../src/model/diagnostics.js';
import { EXIT, ExitError, type Io, write } from '../io.js';
import { type ClientFlags, fetchLiveState, openClient, printDiagnostics } from '../pipeline.js';

export interface ExportOptions extends ClientFlags {
  out: string;
  account?: string[];
  orgAccount?: string;
  kind?: string[];
  force?: boolean;
}

export async function exportCommand(io: Io, opts: ExportOptions): Promise<number> {
  const accounts: AccountConfig[] = (opts.account ?? []).map((name) => ({ name, orgAccess: false }));
  if (opts.orgAccount) accounts.push({ name: opts.orgAccount, orgAccess: true });
  if (accounts.length === 0) {
    throw new ExitError(EXIT.error, 'export needs at least one --account NAME (the Account-Name of each account to export)');
  }
  const { KINDS } = await import('../../src/kinds/index.js');
  const known = KINDS.filter((k) => k.documentKind !== null).map((k) => k.kind);
  const unknownKinds = (opts.kind ?? []).filter((k) => !known.includes(k));
  if (unknownKinds.length > 0) {
    throw new ExitError(EXIT.error, `--kind ${unknownKinds.join(', ')}: unknown kind (expected one of: ${known.join(', ')})`);
  }
  const client = await openClient(io, opts);
  try {
    // Every kind is read, whatever --kind says: rules need the channels to name them.
    const live = await fetchLiveState(io, client, accounts);
    const { exportConfig, writeExport } = await import('../../src/engine/export.js');
    // Every exported document validates: what the schema refuses is left out with a warning.
    const { documentChecker } = await import('../../src/config/document-check.js');
    const result = exportConfig(live, { accounts, kindNames: opts.kind, check: await documentChecker() });
    await printDiagnostics(io, result.diagnostics);
    await writeExport(resolve(io.cwd, opts.out), result, { force: opts.force });
    const vars = result.secrets.length;
    write(
      io.stderr,
      `Exported ${result.files.length} file${result.files.length === 1 ? '' : 's'} to ${opts.out}` +
        (vars > 0 ? `; ${vars} secret${vars === 1 ? '' : 's'} to provide as environment variables (see SECRETS.md)` : ''),
    );
    return hasErrors(result.diagnostics) ? EXIT.error : EXIT.ok;
  } finally {
    await client.close();
  }
}
