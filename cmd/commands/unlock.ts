// unlock: frees the apply lease of accounts whose holder is gone (as `terraform force-unlock`): shows
// each lease and its holder, asks on a terminal (refuses without one unless --auto-approve), and
// deletes the lease records it showed. A holder still alive stops at its next write (its fence finds
// the record gone) with exit 4.

import { resolve } from 'node:path';
import type { AccountConfig } from '../../src/model/account.js';
import { hasErrors } from '../../src/model/diagnostics.js';
import { EXIT, ExitError, type Io, readInto, write } from '../io.js';
import { Interruption } from '../interrupt.js';
import { type ClientFlags, printDiagnostics, runSetup, scopeAccounts, withExit } from '../pipeline.js';
import { confirm } from './apply.js';
import type { UnlockRun as UnlockRunType } from '../../src/run/unlock-run.js';
import { inertText } from '../../src/model/inert.js';

export interface UnlockOptions extends ClientFlags {
  account?: string[];
  autoApprove?: boolean;
}

export async function unlockCommand(io: Io, dir: string, opts: UnlockOptions): Promise<number> {
  const [{ loadConfiguration: loadConfig }, { UnlockRun }] = await Promise.all([import('../../src/run/load.js'), import('../../src/run/unlock-run.js')]);
  // Only the accounts are needed: variables the documents read may be unset.
  const loaded = await loadConfig(resolve(io.cwd, dir), { ...readInto(io), env: io.env, missingEnv: 'skip' });
  const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
  if (!loaded.state || hasErrors(loaded.diagnostics)) {
    await printDiagnostics(io, errors);
    throw new ExitError(EXIT.error, 'the configuration has errors; nothing was sent to the service');
  }
  const accounts: AccountConfig[] = await scopeAccounts(io, loaded.state.root.accounts, opts.account);
  const interruption = new Interruption(io);
  let unlock: UnlockRunType | undefined;
  try {
    const setup = await runSetup(io, opts, interruption);
    unlock = await withExit(io, async () => UnlockRun.open(setup));
    if (!unlock) throw new ExitError(EXIT.error, 'no resource kind holds an apply lease');
    const found = (await unlock.held(accounts)).map((f) => {
      const holder = f.holder !== undefined ? inertText(f.holder.slice(0, 200)) || 'unknown holder' : 'unreadable record (edited?)';
      const state = f.ageMs === undefined ? '' : `, renewed ${Math.round(f.ageMs / 1000)}s ago by the service's clock${f.stale ? ' (stale: free for the next apply already)' : ''}`;
      return { lease: f, line: `account ${f.account.name}: lease ${inertText(f.id)} held by ${holder}${state}` };
    });
    if (found.length === 0) {
      write(io.stderr, `No apply lease is held in ${accounts.map((a) => a.name).join(', ')}.`);
      return EXIT.ok;
    }
    write(io.stderr, found.map((f) => f.line).join('\n'));
    if (interruption.signal) throw interruption.error('no lease was freed');
    if (!opts.autoApprove && !(await confirm(io, interruption, "Free these leases? An apply that still runs stops at its next write. Only 'yes' is accepted: "))) {
      if (interruption.signal) throw interruption.error('no lease was freed');
      throw new ExitError(EXIT.error, io.stdin.isTTY ? 'unlock cancelled: no lease was freed' : 'unlock needs confirmation: run it on a terminal or pass --auto-approve');
    }
    for (const { lease } of found) {
      await unlock.free(lease);
      write(io.stderr, `Freed the lease of account ${lease.account.name} (${inertText(lease.id)}).`);
    }
    return interruption.exitCode() ?? EXIT.ok;
  } finally {
    await unlock?.close();
    interruption.dispose();
  }
}
