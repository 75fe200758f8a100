import { resolve } from 'node:path';
import { hasErrors } from '../../src/model/diagnostics.js';
import { EXIT, type Io, useColor, write } from '../io.js';

export type ValidateFormat = 'text' | 'json' | 'github';

/** Offline: reads files only, never the network. */
export async function validateCommand(io: Io, dir: string, opts: { format: ValidateFormat }): Promise<number> {
  const [{ loadConfig }, { renderDiagnostics }] = await Promise.all([
    import('../../src/config/load.js'),
    import('../../src/render/diagnostics.js'),
  ]);
  const result = await loadConfig(resolve(io.cwd, dir), { env: io.env });
  const invalid = !result.state || hasErrors(result.diagnostics);
  const out = renderDiagnostics(result.diagnostics, opts.format, { color: useColor(io.stdout, io.env) });
  if (opts.format === 'text' && !invalid && result.state) {
    const n = result.state.resources.length;
    const accounts = result.state.root.accounts.length;
    if (out.trim() !== '') write(io.stdout, out);
    write(io.stdout, `Valid: ${n} resource${n === 1 ? '' : 's'} in ${accounts} account${accounts === 1 ? '' : 's'}.`);
  } else if (out !== '') {
    write(io.stdout, out);
  }
  return invalid ? EXIT.error : EXIT.ok;
}
