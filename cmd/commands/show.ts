// `postureops show PLAN`: a saved plan (a shard's, a merged one) rendered again, as `terraform show`
// does, without reading the service. The file is untrusted: it is checked as `apply --plan` checks it.

import { resolve } from 'node:path';
import type { Plan } from '../../src/model/plan.js';
import { planKey } from '../plan-key.js';
import { printDiagnostics } from '../pipeline.js';
import { EXIT, ExitError, type Io, quiet, useColor, write, writeText } from '../io.js';
import type { OutputFormat } from './plan.js';
import { inertText } from '../../src/model/inert.js';

export interface ShowOptions {
  format: OutputFormat;
}

/**
 * A saved plan file, its checksum checked and, when POSTUREOPS_PLAN_KEY is set, its signature. A file
 * that is not the one saved is refused (exit 3, `refused` ends the message); one that cannot be read
 * or is not a plan is an error (exit 1). Without a key, `unchecked` says what the note adds.
 */
export async function readSavedPlan(io: Io, file: string, words: { unchecked: string; refused: string }): Promise<Plan> {
  const [{ PLAN_KEY_VARIABLE, TAMPERED_CODES }, { readPlan }, { DiagnosticsError }] = await Promise.all([
    import('../../src/plan/saved/plan-file.js'),
    import('../../src/run/plan-files.js'),
    import('../../src/model/diagnostics.js'),
  ]);
  const key = await planKey(io);
  try {
    const { plan, signature } = await readPlan(resolve(io.cwd, file), key);
    if (signature === 'unsigned') {
      write(io.stderr, `warning: the saved plan ${file} is unsigned (${PLAN_KEY_VARIABLE} was not set when it was saved, and is not set now): ${words.unchecked}`);
    } else if (signature === 'unverifiable') {
      write(io.stderr, `warning: the saved plan ${file} is signed, but ${PLAN_KEY_VARIABLE} is not set, so its signature cannot be checked: ${words.unchecked}`);
    }
    return plan;
  } catch (err) {
    if (err instanceof DiagnosticsError && err.diagnostics.some((d) => TAMPERED_CODES.includes(d.code ?? ''))) {
      await printDiagnostics(io, err.diagnostics);
      throw new ExitError(EXIT.refused, `refused: the saved plan ${file} is not the plan that was saved; ${words.refused}`);
    }
    throw err;
  }
}

export async function showCommand(io: Io, file: string, opts: ShowOptions): Promise<number> {
  const plan = await readSavedPlan(io, file, {
    unchecked: 'its checksum was checked, but not who wrote it; set the key to verify it',
    refused: 'it is not shown',
  });
  const { renderPlan } = await import('../../src/render/index.js');
  const rendered = renderPlan(plan, opts.format, { color: useColor(io.stdout, io.env), quiet: quiet(io, {}) });
  if (opts.format === 'text') writeText(io.stdout, rendered);
  else write(io.stdout, rendered);
  if (opts.format !== 'text' && plan.refusal) write(io.stderr, `Refused: ${inertText(plan.refusal.message)}`);
  return EXIT.ok;
}
