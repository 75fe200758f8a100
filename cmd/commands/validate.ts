import { resolve } from 'node:path';
import { hasErrors } from '../../src/model/diagnostics.js';
import { escapeCommandData } from '../../src/model/inert.js';
import { EXIT, type Io, readInto, useColor, write, writeText } from '../io.js';

export type ValidateFormat = 'text' | 'json' | 'github';

export interface ValidateOptions {
  format: ValidateFormat;
  /** False with `--no-env`: unset variables are skipped. */
  env: boolean;
}

/** Offline: reads files only, never the network. */
export async function validateCommand(io: Io, dir: string, opts: ValidateOptions): Promise<number> {
  const [{ loadConfiguration: loadConfig }, { ENV_SKIPPED }, { renderDiagnostics }] = await Promise.all([
    import('../../src/run/load.js'),
    import('../../src/config/interpolate.js'),
    import('../../src/render/diagnostics.js'),
  ]);
  const noEnv = !opts.env;
  const { whileLoading } = await import('../pipeline.js');
  const result = await whileLoading(io, dir, loadConfig(resolve(io.cwd, dir), { ...readInto(io), env: io.env, ...(noEnv ? { missingEnv: 'skip' as const } : {}) }), false);
  // --no-env: every use of an unset variable is one line together, not a warning per use.
  const skipped = [...new Set(result.diagnostics.filter((d) => d.code === ENV_SKIPPED).map((d) => /variable (\S+)/.exec(d.message)?.[1] ?? '?'))].sort();
  const diagnostics = result.diagnostics.filter((d) => d.code !== ENV_SKIPPED);
  // Routing requirements and route tests (postureops.yaml `routing`), against the configuration.
  if (result.state && !hasErrors(diagnostics)) {
    const { checkRouting } = await import('../../src/config/routing.js');
    diagnostics.push(...checkRouting(result.state));
  }
  const invalid = !result.state || hasErrors(diagnostics);
  const out = renderDiagnostics(diagnostics, opts.format, { color: useColor(io.stdout, io.env), secrets: io.secrets });
  if (opts.format === 'text' && !invalid && result.state) {
    const n = result.state.resources.length;
    const accounts = result.state.root.accounts.length;
    if (out.trim() !== '') writeText(io.stdout, out);
    write(io.stdout, `Valid: ${n} resource${n === 1 ? '' : 's'} in ${accounts} account${accounts === 1 ? '' : 's'}.`);
  } else if (out !== '') {
    // --format github: our own workflow commands, their data escaped by the renderer.
    if (opts.format === 'text') writeText(io.stdout, out);
    else write(io.stdout, out, { commands: opts.format === 'github' });
  }
  if (skipped.length > 0) {
    const line = `Skipped (--no-env): not checked ${skipped.length} variable${skipped.length === 1 ? '' : 's'} that ${skipped.length === 1 ? 'is' : 'are'} unset or empty: ${skipped.join(', ')}`;
    // stdout holds exactly one JSON document with --format json; the note goes to stderr then.
    if (opts.format === 'json') write(io.stderr, line);
    else if (opts.format === 'github') write(io.stdout, `::notice title=postureops::${escapeCommandData(line)}`, { commands: true });
    else writeText(io.stdout, line);
  }
  return invalid ? EXIT.error : EXIT.ok;
}
