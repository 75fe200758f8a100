import { inertText } from '../../src/model/inert.js';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Plan } from '../../src/model/plan.js';
import { planKey, signedNote } from '../plan-key.js';
import { EXIT, type Io, quiet, useColor, write, writeText } from '../io.js';
import { Interruption } from '../interrupt.js';
import { computePlan, hasChanges, type PlanFlags } from '../pipeline.js';

export type OutputFormat = 'text' | 'json' | 'markdown';

export interface PlanOptions extends PlanFlags {
  out?: string;
  format: OutputFormat;
  detailedExitcode?: boolean;
  /** Text: one line per change, no diffs (the demo; no flag). */
  brief?: boolean;
}

/** One line about the rate-limit budget on stderr; volatile numbers stay out of the JSON on stdout. */
export function budgetNote(plan: Plan): string | undefined {
  const short = plan.budget.filter((b) => b.waitSeconds > 0);
  if (short.length === 0) return undefined;
  const worst = Math.max(...short.map((b) => b.waitSeconds));
  return `rate limit: apply needs more calls than ${short.map((b) => b.bucket).join(', ')} allow${short.length === 1 ? 's' : ''} now; expect to wait about ${Math.ceil(worst / 60)} min`;
}

export function planExitCode(plan: Plan, detailed: boolean | undefined): number {
  if (plan.refusal) return EXIT.refused;
  return detailed && hasChanges(plan) ? EXIT.changes : EXIT.ok;
}

export async function planCommand(io: Io, dir: string, opts: PlanOptions): Promise<number> {
  const interruption = new Interruption(io);
  try {
    return await planInterruptibly(io, dir, opts, interruption);
  } finally {
    interruption.dispose();
  }
}

async function planInterruptibly(io: Io, dir: string, opts: PlanOptions, interruption: Interruption): Promise<number> {
  // An unusable plan key is refused before anything is read.
  const key = opts.out ? await planKey(io) : undefined;
  const { plan, run } = await computePlan(io, dir, opts, interruption);
  const out = opts.out ? resolve(io.cwd, opts.out) : undefined;
  const notSaved = opts.out ? `the plan was not saved to ${opts.out}` : 'the plan was not shown';
  // A signal at any point until the plan says it is saved ends the run with 130/143 and no plan
  // file: the file is written last, and removed again when a signal came while it was written.
  // The last check and the "Plan saved" line run in one turn of the event loop (writes to a pipe or
  // a terminal are synchronous), so no signal is handled between them: once the line is out, the
  // plan is complete.
  // Only a file this run wrote is removed: an older plan at that path stays when the signal came first.
  let written = false;
  const unlessInterrupted = async (): Promise<void> => {
    if (!interruption.signal) return;
    if (out && written) await rm(out, { force: true });
    throw interruption.error(notSaved);
  };
  try {
    await unlessInterrupted();
    const { renderPlan } = await import('../../src/render/index.js');
    const rendered = renderPlan(plan, opts.format, { color: useColor(io.stdout, io.env), quiet: quiet(io, opts), ...(opts.brief ? { brief: true } : {}), secrets: io.secrets });
    if (out) {
      const { savePlan } = await import('../../src/run/plan-files.js');
      await savePlan(out, io.secrets?.maskData(plan) ?? plan, key);
      written = true;
      await unlessInterrupted();
    }
    if (opts.format === 'text') writeText(io.stdout, rendered);
    else write(io.stdout, rendered);
    // The text rendering says all of this itself; with json/markdown on stdout, a person reads stderr.
    if (opts.format !== 'text') {
      const note = budgetNote(plan);
      if (note) write(io.stderr, note);
      if (plan.refusal) write(io.stderr, `Refused: ${inertText(plan.refusal.message)}`);
    }
  } finally {
    await run.close();
  }
  await unlessInterrupted();
  // apply --plan reads the repository again (its .env, its literal secrets): name it in the hint.
  if (opts.out) write(io.stderr, `Plan saved to ${opts.out} (${signedNote(key)}); apply it with: postureops apply ${dir} --plan ${opts.out}`);
  return planExitCode(plan, opts.detailedExitcode);
}
