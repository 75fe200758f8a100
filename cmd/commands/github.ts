// The GitHub Action's entry: plan (and comment) on pull requests, apply on push.

import { hasErrors } from '../../src/model/diagnostics.js';
import { EXIT, ExitError, type Io, write } from '../io.js';
import { computePlan, printDiagnostics } from '../pipeline.js';
import { planExitCode } from './plan.js';

export interface GithubOptions {
  mode: 'auto' | 'plan' | 'apply';
  account?: string[];
  baseUrl?: string;
}

export async function githubCommand(io: Io, dir: string, opts: GithubOptions): Promise<number> {
  const gh = await import('../../src/github/index.js');
  const ctx = gh.githubContextFromEnv(io.env);
  const mode = opts.mode === 'auto' ? gh.detectMode(io.env, ctx.eventName, ctx.defaultBranch) : opts.mode;
  write(io.stderr, `postureops github: ${mode} (event ${ctx.eventName ?? 'unknown'})`);

  // Configuration problems become annotations on the files before anything else happens.
  const { loadConfig } = await import('../../src/config/load.js');
  const { resolve } = await import('node:path');
  const loaded = await loadConfig(resolve(io.cwd, dir), { env: io.env });
  if (!loaded.state || hasErrors(loaded.diagnostics)) {
    await gh.publishDiagnostics(ctx, loaded.diagnostics);
    await printDiagnostics(io, loaded.diagnostics);
    throw new ExitError(EXIT.error, 'the configuration has errors');
  }

  if (mode === 'apply') {
    const { apply } = await import('../../src/engine/apply.js');
    const { literalSource } = await import('../../src/engine/literals.js');
    const { plan, client, desired } = await computePlan(io, dir, { account: opts.account, baseUrl: opts.baseUrl });
    try {
      if (plan.refusal) {
        await gh.publishPlan(ctx, plan, plan.diagnostics);
        throw new ExitError(EXIT.refused, `refused: ${plan.refusal.message}`);
      }
      const report = await apply(plan, client, { env: io.env, literals: literalSource(desired) });
      await gh.publishApply(ctx, report);
      return report.summary.failed > 0 ? EXIT.error : EXIT.ok;
    } finally {
      await client.close();
    }
  }
  const { plan, client } = await computePlan(io, dir, { account: opts.account, baseUrl: opts.baseUrl });
  try {
    await gh.publishPlan(ctx, plan, plan.diagnostics);
    const { renderPlan } = await import('../../src/render/index.js');
    write(io.stdout, renderPlan(plan, 'text', { color: false }));
    return planExitCode(plan, false);
  } finally {
    await client.close();
  }
}
