import { inertText } from '../../src/model/inert.js';
import { resolve } from 'node:path';
import { planKey, signedNote } from '../plan-key.js';
import { printDiagnostics } from '../pipeline.js';
import { EXIT, ExitError, type Io, quiet, useColor, write, writeText } from '../io.js';
import { type OutputFormat, planExitCode } from './plan.js';

export interface MergeOptions {
  out?: string;
  format: OutputFormat;
  detailedExitcode?: boolean;
}

/** `postureops merge FILE...`: the shards' saved plans as one plan, rendered (and saved) as plan does. */
export async function mergeCommand(io: Io, files: string[], opts: MergeOptions): Promise<number> {
  const [{ TAMPERED_CODES }, { loadPlan, savePlan }, { mergePlans, MergeError }, { renderPlan }, { DiagnosticsError }] = await Promise.all([
    import('../../src/plan/saved/plan-file.js'),
    import('../../src/run/plan-files.js'),
    import('../../src/plan/saved/merge-plans.js'),
    import('../../src/render/index.js'),
    import('../../src/model/diagnostics.js'),
  ]);
  // With a key, every shard's plan must carry its MAC, and the merged plan is signed with it.
  const key = await planKey(io);
  const inputs = [];
  for (const file of files) {
    try {
      inputs.push({ file, plan: await loadPlan(resolve(io.cwd, file), key) });
    } catch (err) {
      if (!(err instanceof DiagnosticsError && err.diagnostics.some((d) => TAMPERED_CODES.includes(d.code ?? '')))) throw err;
      await printDiagnostics(io, err.diagnostics);
      throw new ExitError(EXIT.refused, `refused: the shard plan ${file} is not the plan that was saved; nothing was merged`);
    }
  }
  let plan;
  try {
    plan = mergePlans(inputs);
  } catch (err) {
    if (err instanceof MergeError) throw new ExitError(EXIT.error, `cannot merge: ${err.message}`);
    throw err;
  }
  if (opts.out) await savePlan(resolve(io.cwd, opts.out), plan, key);
  const rendered = renderPlan(plan, opts.format, { color: useColor(io.stdout, io.env), quiet: quiet(io, {}) });
  if (opts.format === 'text') writeText(io.stdout, rendered);
  else write(io.stdout, rendered);
  if (opts.format !== 'text' && plan.refusal) write(io.stderr, `Refused: ${inertText(plan.refusal.message)}`);
  if (opts.out) write(io.stderr, `Merged plan saved to ${opts.out} (${signedNote(key)}); apply it with: postureops apply DIR --plan ${opts.out}`);
  return planExitCode(plan, opts.detailedExitcode);
}
