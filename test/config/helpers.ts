// Temp configuration repositories for the config tests: one fresh directory per case.

import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Diagnostic } from '../../src/diagnostics.js';

export const EXAMPLES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples');

export const ROOT_TWO = 'accounts:\n  - name: prod\n  - name: staging\ndefaults:\n  account: prod\n';

/** Writes `files` (paths relative to the new directory) and returns the directory. */
export async function makeRepo(files: Record<string, string | Uint8Array>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'postureops-config-'));
  for (const [rel, content] of Object.entries(files)) {
    const target = path.join(dir, rel);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  return dir;
}

/** Variables of a dotenv-style file (KEY=value lines). */
export async function readEnvFile(file: string): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) env[m[1]] = m[2];
  }
  return env;
}

export function codes(diags: readonly Diagnostic[]): string[] {
  return diags.map((d) => d.code);
}

export function errorsOf(diags: readonly Diagnostic[]): Diagnostic[] {
  return diags.filter((d) => d.severity === 'error');
}
