// `.env` files: read with Node's own parser (util.parseEnv), beside postureops.yaml or named with
// --dotenv; the real environment wins over the file. Values are never printed.

import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { EXIT, ExitError, type Io } from './io.js';

/** The file's name beside postureops.yaml. */
export const DOTENV = '.env';

/** Variables of a dotenv text, as Node reads them (`KEY=value`, quotes, comments, `export`). */
export function parseEnvText(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(parseEnv(text))) if (value !== undefined) out[name] = value;
  return out;
}

/**
 * `io` with the variables of `--dotenv FILE` (which must exist), else of `.env` in `dir` (when
 * there is one), under the real environment: a variable set in both keeps the environment's value.
 */
export async function withEnvFile(io: Io, dir: string, file?: string): Promise<Io> {
  const path = file !== undefined ? resolve(io.cwd, file) : resolve(io.cwd, dir, DOTENV);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (file === undefined && (code === 'ENOENT' || code === 'ENOTDIR')) return io;
    throw new ExitError(EXIT.error, `${file !== undefined ? `--dotenv ${file}` : path}: cannot read it (${code ?? 'error'})`);
  }
  return { ...io, env: { ...parseEnvText(text), ...io.env } };
}

/**
 * Writes `text` to `path` with mode 0600, atomically (a temp file renamed over it); an existing
 * file only with `force`.
 */
export async function writeEnvFile(path: string, text: string, force: boolean): Promise<void> {
  const { chmod, open, rename, rm, stat } = await import('node:fs/promises');
  const { randomBytes } = await import('node:crypto');
  const { basename, dirname, join } = await import('node:path');
  if (!force && (await stat(path).then(() => true, () => false))) {
    throw new ExitError(EXIT.error, `--dotenv-out ${path} exists: pass --force to replace it`);
  }
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await open(tmp, 'wx', 0o600);
    try {
      await handle.writeFile(text, 'utf8');
    } finally {
      await handle.close();
    }
    await chmod(tmp, 0o600);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw new ExitError(EXIT.error, `cannot write --dotenv-out ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}
