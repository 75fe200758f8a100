// Temp configuration repositories for the config tests: one fresh directory per case.

import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { parseEnvText } from '../../cmd/env-file.js';
import type { Diagnostic } from '../../src/model/diagnostics.js';

export const EXAMPLES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples');

export const ROOT_TWO = 'accounts:\n  - name: prod\n  - name: staging\ndefaults:\n  account: prod\nvariables: [SLACK_URL, HOOK, HOOK_*, ECR_ROLE_ARN, PD, JIRA*, HEC, KID, GCP_KEY, GOV_KEY, X, TOKEN, SECRET, NAME]\n';

const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Temp directory removed after the test file (the caller's afterAll runs this module's hook). */
export async function tempDir(prefix = 'postureops-config-'): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Writes `files` (paths relative to a new temp directory) and returns the directory. */
export async function makeRepo(files: Record<string, string | Uint8Array>): Promise<string> {
  const dir = await tempDir();
  for (const [rel, content] of Object.entries(files)) {
    const target = path.join(dir, rel);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  return dir;
}

/** Variables of a dotenv file, read as the CLI reads them. */
export async function readEnvFile(file: string): Promise<Record<string, string>> {
  return parseEnvText(await readFile(file, 'utf8'));
}

export function codes(diags: readonly Diagnostic[]): string[] {
  return diags.map((d) => d.code);
}

export function errorsOf(diags: readonly Diagnostic[]): Diagnostic[] {
  return diags.filter((d) => d.severity === 'error');
}
