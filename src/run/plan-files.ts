// Saved plans on disk: writing one (a temp file beside it, then a rename) and reading one back. The
// format (its checksum, MAC and shape checks) is the pure half's (src/plan/saved/plan-file.ts); the
// files are the run layer's.

import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Plan } from '../model/plan.js';
import { DiagnosticsError } from '../model/diagnostics.js';
import { MAX_PLAN_BYTES, parsePlanFile, planFileProblem as problem, planFileText, type SavedPlan } from '../plan/saved/plan-file.js';

/**
 * Writes the plan as JSON with a `checksum` member and, given a key, a `mac` member: a temp file in the
 * same folder (mode 0600), then a rename over `path`.
 */
export async function savePlan(path: string, plan: Plan, key?: string): Promise<void> {
  const text = planFileText(plan, key);
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    // Stryker disable next-line StringLiteral: Node's file functions give every error they throw a code; the text after it is a last resort never reached
    const code = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : 'error');
    throw problem(path, 'plan-file-unwritable', `cannot write plan file ${path} (${code})`);
  }
}

/** The file's text, refused (naming the file and the limit) when larger than `limit` bytes, never reading more than that. */
async function readBounded(path: string, limit: number): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const size = (await handle.stat()).size;
    const tooLarge = () =>
      problem(path, 'plan-file-too-large', `plan file ${path} is larger than ${limit / (1024 * 1024)} MB (${size} bytes): not read`, 'a saved plan is a few MB at most: is this the file `postureops plan --out` wrote?');
    if (size > limit) throw tooLarge();
    // The file may grow while it is read: never more than the limit and one byte.
    const buffer = Buffer.alloc(Math.min(size, limit) + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > limit) throw tooLarge();
      if (length === buffer.length) break;
    }
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** The plan of `path`, checked as `readPlan` checks it. */
export async function loadPlan(path: string, key?: string): Promise<Plan> {
  return (await readPlan(path, key)).plan;
}

/** Reads a saved plan and checks it (parsePlanFile): its shape, its checksum and, with a key, its MAC. */
export async function readPlan(path: string, key?: string): Promise<SavedPlan> {
  let text: string;
  try {
    text = await readBounded(path, MAX_PLAN_BYTES);
  } catch (err) {
    if (err instanceof DiagnosticsError) throw err;
    // Stryker disable next-line StringLiteral: Node's file functions give every error they throw a code; the fallback is never reached
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw problem(
      path,
      'plan-file-unreadable',
      code === 'ENOENT' ? `plan file ${path} does not exist` : `cannot read plan file ${path} (${code})`,
      'create one with `postureops plan --out FILE`',
    );
  }
  return parsePlanFile(text, path, key);
}
