import { resolve } from 'node:path';
import type { AccountConfig } from '../../src/model/account.js';
import { hasErrors } from '../../src/model/diagnostics.js';
import type { Exported } from '../../src/run/export-run.js';
import { EXIT, ExitError, type Io, write } from '../io.js';
import { Interruption } from '../interrupt.js';
import { type ClientFlags, printDiagnostics, readHooks, runSetup, withExit } from '../pipeline.js';

export interface ExportOptions extends ClientFlags {
  out: string;
  account?: string[];
  orgAccount?: string;
  kind?: string[];
  force: boolean;
  /** Also write the current values of the secrets the service returns in clear here (mode 0600). */
  dotenvOut?: string;
}

/** The values of the exported secrets the service returns in clear, to a .env file; never printed. */
async function writeExportEnv(io: Io, file: string, exported: Exported, force: boolean): Promise<void> {
  const [{ exportEnvFile }, { writeEnvFile }] = await Promise.all([import('../../src/run/export-run.js'), import('../env-file.js')]);
  const { text, unwritable, clear, writeOnly } = exportEnvFile(exported);
  await writeEnvFile(resolve(io.cwd, file), text, force);
  write(
    io.stderr,
    `Wrote ${clear} current secret value${clear === 1 ? '' : 's'} to ${file} (mode 0600)` +
      (writeOnly > 0 ? `; ${writeOnly} write-only variable${writeOnly === 1 ? '' : 's'} hold${writeOnly === 1 ? 's' : ''} a placeholder (the service never returns them): set the real values before apply sends them` : ''),
  );
  if (unwritable.length > 0) write(io.stderr, `warning: ${unwritable.join(', ')}: the value cannot be written in a .env file; set it in the environment`);
}

export async function exportCommand(io: Io, opts: ExportOptions): Promise<number> {
  // An account named twice is exported once.
  const accounts: AccountConfig[] = [...new Set(opts.account ?? [])].map((name) => ({ name, orgAccess: false }));
  if (opts.orgAccount) {
    if (accounts.some((a) => a.name === opts.orgAccount)) {
      throw new ExitError(EXIT.error, `--org-account ${opts.orgAccount} is also given with --account: the organization-level data needs a name of its own`);
    }
    accounts.push({ name: opts.orgAccount, orgAccess: true });
  }
  if (accounts.length === 0) {
    throw new ExitError(EXIT.error, 'export needs at least one --account NAME (the Account-Name of each account to export)');
  }
  const { KINDS } = await import('../../src/kinds/index.js');
  const known = KINDS.filter((k) => k.documentKind !== null).map((k) => k.kind);
  const unknownKinds = (opts.kind ?? []).filter((k) => !known.includes(k));
  if (unknownKinds.length > 0) {
    throw new ExitError(EXIT.error, `--kind ${unknownKinds.join(', ')}: unknown kind (expected one of: ${known.join(', ')})`);
  }
  const interruption = new Interruption(io);
  try {
    const { exportRun, writeExported } = await import('../../src/run/export-run.js');
    const setup = await runSetup(io, opts, interruption);
    const exported = await withExit(io, () =>
      exportRun(
        setup,
        { accounts, kindNames: opts.kind },
        {
          ...readHooks(io, interruption),
          // The export is written all at once (a temp folder renamed into place): before that, nothing.
          read: () => {
            if (interruption.signal) throw interruption.error(`nothing was written to ${opts.out}`);
          },
        },
      ),
    );
    const { result } = exported;
    await printDiagnostics(io, result.diagnostics);
    await writeExported(resolve(io.cwd, opts.out), result, { force: opts.force });
    const vars = result.secrets.length;
    write(
      io.stderr,
      `Exported ${result.files.length} file${result.files.length === 1 ? '' : 's'} to ${opts.out}` +
        (vars > 0 ? `; ${vars} secret${vars === 1 ? '' : 's'} to provide as environment variables (see SECRETS.md)` : ''),
    );
    if (opts.dotenvOut !== undefined) await writeExportEnv(io, opts.dotenvOut, exported, opts.force);
    return interruption.exitCode() ?? (hasErrors(result.diagnostics) ? EXIT.error : EXIT.ok);
  } finally {
    interruption.dispose();
  }
}
