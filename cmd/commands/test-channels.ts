// `postureops test-channels [DIR] --target SEL`: the service's test of the live alert channels the
// selectors name, without applying anything (one list of channels per account, then one test each;
// both counted by the pre-flight). Exit 1 when a test fails, naming the channel and the service's words.

import { resolve } from 'node:path';
import { hasErrors } from '../../src/model/diagnostics.js';
import { inertJson, inertText } from '../../src/model/inert.js';
import { renderMasked } from '../../src/model/read-values.js';
import type { TestOutcome } from '../../src/run/test-run.js';
import { palette } from '../../src/render/ansi.js';
import { EXIT, ExitError, type Io, readInto, useColor, write, writeText } from '../io.js';
import { Interruption } from '../interrupt.js';
import { type ClientFlags, printDiagnostics, progress, runSetup, scopeAccounts, withExit } from '../pipeline.js';

export interface TestChannelsOptions extends ClientFlags {
  account?: string[];
  target?: string[];
  format: 'text' | 'json';
}

export async function testChannelsCommand(io: Io, dir: string, opts: TestChannelsOptions): Promise<number> {
  const targets = opts.target ?? [];
  // A test sends a notification to a real destination: only the channels asked for.
  if (targets.length === 0) throw new ExitError(EXIT.error, 'test-channels: name the channels to test with --target [account/]AlertChannel/name (globs allowed; repeatable)');
  const [{ loadConfiguration }, { ENV_SKIPPED }] = await Promise.all([import('../../src/run/load.js'), import('../../src/config/interpolate.js')]);
  // A test needs no secret of the files: unset variables do not matter.
  const loaded = await loadConfiguration(resolve(io.cwd, dir), { ...readInto(io), env: io.env, missingEnv: 'skip' });
  const diagnostics = loaded.diagnostics.filter((d) => d.code !== ENV_SKIPPED);
  await printDiagnostics(io, diagnostics.filter((d) => d.severity === 'error'));
  if (!loaded.state || hasErrors(diagnostics)) throw new ExitError(EXIT.error, 'the configuration has errors (postureops validate shows them all)');
  const accounts = await scopeAccounts(io, loaded.state.root.accounts, opts.account);
  const interruption = new Interruption(io);
  try {
    const { testChannelsRun } = await import('../../src/run/test-run.js');
    const setup = await runSetup(io, opts, interruption);
    const settings = loaded.state.root.settings;
    const outcomes = await withExit(io, () =>
      testChannelsRun(
        setup,
        { accounts, targets, ...(settings ? { settings } : {}) },
        {
          reading: () => {
            progress(io, `Reading the alert channels of ${accounts.map((a) => a.name).join(', ')}…`);
            return undefined;
          },
          race: (reading) => interruption.race(reading, 'the channels were not read completely'),
        },
      ),
    );
    if (opts.format === 'json') write(io.stdout, renderMasked(io.secrets, outcomes, (shown) => inertJson(JSON.stringify({ formatVersion: 1, results: shown, failed: shown.filter((o) => !o.ok).length }, null, 2))));
    else writeText(io.stdout, renderMasked(io.secrets, outcomes, (shown) => testText(shown, useColor(io.stdout, io.env))));
    return interruption.exitCode() ?? (outcomes.some((o) => !o.ok) ? EXIT.error : EXIT.ok);
  } finally {
    interruption.dispose();
  }
}

function testText(outcomes: readonly TestOutcome[], color: boolean): string {
  const c = palette(color);
  const lines = outcomes.map((o) => {
    const what = inertText(`${o.account} · ${o.kind} ${o.name} (${o.id})`);
    return o.ok ? c.green(`test ok      ${what}`) : c.red(`test FAILED  ${what}: ${inertText(o.message ?? 'no message')}`);
  });
  const failed = outcomes.filter((o) => !o.ok);
  lines.push('', failed.length === 0 ? c.bold(`Tested ${outcomes.length} channel${outcomes.length === 1 ? '' : 's'}: every test succeeded.`) : c.red(c.bold(`Tested ${outcomes.length} channel${outcomes.length === 1 ? '' : 's'}: ${failed.length} failed (${failed.map((o) => inertText(`${o.account}/${o.name}`)).join(', ')}).`)));
  return lines.join('\n') + '\n';
}
