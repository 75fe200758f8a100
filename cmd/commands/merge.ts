import { resolve } from 'node:path';
import { EXIT, ExitError, type Io, useColor, write } from '../io.js';
import { type OutputFormat, planExitCode } from './plan.js';

export interface MergeOptions {
  out?: string;
  format: OutputFormat;
  detailedExitcode?: boolean;
}

/** `postureops merge FILE...`: the shards' saved plans as one plan, rendered (and saved) as plan does. */
export async function mergeCommand(io: Io, files: string[], opts: MergeOptions): Promise<number> {
  const [{ loadPlan, savePlan }, { mergePlans, MergeError }, { renderPlan }] = await Promise.all([
    import('../../src/engine/plan-file.js'),
    import('../../src/engine/merge-plans.js'),
    import('../../src/render/index.js'),
  ]);
  const inputs = [];
  for (const file of files) inputs.push({ file, plan: await loadPlan(resolve(io.cwd, file)) });
  let plan;
  try {
    plan = mergePlans(inputs);
  } catch (err) {
    if (err instanceof MergeError) throw new ExitError(EXIT.error, `cannot merge: ${err.message}`);
    throw err;
  }
  if (opts.out) await savePlan(resolve(io.cwd, opts.out), plan);
  write(io.stdout, renderPlan(plan, opts.format, { color: useColor(io.stdout, io.env) }));
  if (opts.format !== 'text' && plan.refusal) write(io.stderr, `Refused: ${plan.refusal.message}`);
  if (opts.out) write(io.stderr, `Merged plan saved to ${opts.out}; apply it with: postureops apply DIR --plan ${opts.out}`);
  return planExitCode(plan, opts.detailedExitcode);
}
