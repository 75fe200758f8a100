// unlock: frees the apply lease whose holder is gone (as `terraform force-unlock`): shows the lease
// and its holder, asks on a terminal (refuses without one unless --auto-approve), and marks the
// record freed. A holder still alive stops at its next renewal, before its fence closes; the next
// apply waits the lease's lifetime and margin (about 2.5 min) before it takes a freed lease.

import { resolve } from 'node:path';
import { hasErrors } from '../../src/model/diagnostics.js';
import { EXIT, ExitError, type Io, readInto, write } from '../io.js';
import { Interruption } from '../interrupt.js';
import { type ClientFlags, printDiagnostics, runSetup, withExit } from '../pipeline.js';
import { confirm } from './apply.js';
import type { UnlockRun as UnlockRunType } from '../../src/run/unlock-run.js';
import { inertText } from '../../src/model/inert.js';

/** What the next apply waits before it takes a freed lease: the lifetime and the margin at the default request bound. */
const LEASE_FREED_WAIT_MS = 151_000;

export interface UnlockOptions extends ClientFlags {
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
  const interruption = new Interruption(io);
  let unlock: UnlockRunType | undefined;
  try {
    const setup = await runSetup(io, opts, interruption);
    unlock = await withExit(io, async () => UnlockRun.open(setup));
    // One lease for the configuration, in its home account (the first by name).
    const found = (await unlock.held(loaded.state.root.accounts)).map((f) => {
      const holder = f.holder !== undefined ? inertText(f.holder.slice(0, 200)) || 'unknown holder' : 'unreadable record (edited?)';
      const state = f.ageMs === undefined ? '' : `, renewed ${Math.round(f.ageMs / 1000)}s ago by the service's clock${f.stale ? ' (stale: free for the next apply already)' : ''}`;
      return { lease: f, line: `account ${f.account.name}: lease ${inertText(f.id)} held by ${holder}${state}` };
    });
    if (found.length === 0) {
      write(io.stderr, 'No apply lease is held.');
      return EXIT.ok;
    }
    write(io.stderr, found.map((f) => f.line).join('\n'));
    if (interruption.signal) throw interruption.error('no lease was freed');
    if (!opts.autoApprove && !(await confirm(io, interruption, "Free this lease? An apply that still runs stops before its fence closes. Only 'yes' is accepted: "))) {
      if (interruption.signal) throw interruption.error('no lease was freed');
      throw new ExitError(EXIT.error, io.stdin.isTTY ? 'unlock cancelled: no lease was freed' : 'unlock needs confirmation: run it on a terminal or pass --auto-approve');
    }
    for (const { lease } of found) {
      await unlock.free(lease);
      write(io.stderr, `Freed the lease (${inertText(lease.id)} in account ${lease.account.name}); the next apply takes it after ${Math.round(LEASE_FREED_WAIT_MS / 1000)}s.`);
    }
    return interruption.exitCode() ?? EXIT.ok;
  } finally {
    await unlock?.close();
    interruption.dispose();
  }
}
