// The one place a credential the service issues (an agent access token's value) is handed to the
// user: a JSON file named by --credentials-out, mode 0600, keyed by `account/Kind/name`, merged
// with what the file already holds. Written atomically, so an interrupted run leaves it whole.

import { randomBytes } from 'node:crypto';
import { chmod, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export async function saveCredentials(file: string, issued: ReadonlyMap<string, string>): Promise<void> {
  let held: Record<string, string> = {};
  try {
    const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) held = parsed as Record<string, string>;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`${file} exists but is not a credentials file written by postureops`);
  }
  const merged = { ...held, ...Object.fromEntries(issued) };
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, JSON.stringify(merged, null, 2) + '\n', { mode: 0o600 });
    await chmod(tmp, 0o600);
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
