// `.env` files: read with Node's own parser (util.parseEnv), beside postureops.yaml or named with
// --dotenv; the real environment wins over the file. Values are never printed.

import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { isForbiddenVariable } from '../src/model/env.js';
import { EXIT, ExitError, type Io, write } from './io.js';

/** The file's name beside postureops.yaml. */
export const DOTENV = '.env';

/** Far above any list of variables, far below what could hurt to hold (a `.env` that is /dev/zero). */
export const MAX_DOTENV_BYTES = 1024 * 1024;

/**
 * The text of a dotenv file, at most MAX_DOTENV_BYTES. The repository's `.env` must be a regular file
 * reached without a symlink (a pull request must not point it at /dev/zero or at a file of the runner);
 * a file the user names may be anything readable (`--dotenv <(...)` is a pipe).
 */
async function readDotenv(path: string, ofRepository: boolean): Promise<string> {
  const handle = await open(path, constants.O_RDONLY | (ofRepository ? constants.O_NOFOLLOW : 0));
  try {
    if (ofRepository && !(await handle.stat()).isFile()) throw Object.assign(new Error('not a regular file'), { code: 'not a regular file' });
    const buffer = Buffer.alloc(MAX_DOTENV_BYTES + 1);
    let length = 0;
    while (length <= MAX_DOTENV_BYTES) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > MAX_DOTENV_BYTES) throw Object.assign(new Error('too large'), { code: `larger than ${MAX_DOTENV_BYTES} bytes` });
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    await handle.close();
  }
}

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
    text = await readDotenv(path, file === undefined);
  } catch (err) {
    let code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') code = 'a symlink: the .env beside postureops.yaml must be a file of the repository';
    if (file === undefined && (code === 'ENOENT' || code === 'ENOTDIR')) return io;
    throw new ExitError(EXIT.error, `${file !== undefined ? `--dotenv ${file}` : path}: cannot read it (${code ?? 'error'})`);
  }
  const vars = parseEnvText(text);
  if (file === undefined) {
    // A `.env` found beside postureops.yaml is a file of the repository, which a pull request can
    // change: it may give the variables the documents read, never where the credentials go or what
    // the tool itself does (the service address and key, POSTUREOPS_*). Those come from the real
    // environment or a file the user names with --dotenv.
    const refused = Object.keys(vars).filter(isControlVariable);
    for (const name of refused) delete vars[name];
    if (refused.length > 0) {
      write(io.stderr, `postureops: ${path}: ignored ${refused.join(', ')}: the service address, its credentials, postureops' settings, the CI's variables and the process's own (HOME, XDG_*, NODE_*, ...) are read only from the environment or from --dotenv FILE`);
    }
  }
  return { ...io, env: { ...vars, ...io.env } };
}

/** What the process reads for itself: where its state lives (the budget memory), how it writes, what Node and git do. */
const PROCESS_VARIABLE = /^(HOME|PATH|TERM|TMPDIR|TEMP|TMP|NO_COLOR|FORCE_COLOR|XDG_.*|NODE_.*|GIT_.*)$/i;

/**
 * Variables that decide where credentials go or how postureops behaves, rather than what a document
 * says: every variable no configuration may read (SVC_*, POSTUREOPS_*, the CI's), and the process's own.
 */
export function isControlVariable(name: string): boolean {
  return isForbiddenVariable(name) || PROCESS_VARIABLE.test(name);
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
