// The baselines `validate` and `plan` are measured against (ratios.ts), run as a child process like
// the CLI, so both sides pay Node's start-up:
//   node dist/test/bench/naive.js parse <dir>      yaml's parse of every YAML file below <dir>, nothing else
//   node dist/test/bench/naive.js pipeline <dir>   the same parse, then one list call per kind per
//                                                  account against the service in SVC_BASE_URL, with
//                                                  the client the CLI uses; no validation, no plan
// The files are those the loader reads (the root file and every *.yaml / *.yml below it); the
// accounts are those postureops.yaml declares; the kinds those the documents name.

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

async function yamlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && /\.ya?ml$/i.test(e.name) && !e.parentPath.includes('/.'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** Every document of every file, as yaml reads it (`yaml.parse` of each document). */
async function parseAll(dir: string): Promise<Map<string, unknown[]>> {
  const files = await yamlFiles(dir);
  const texts = await Promise.all(files.map((f) => readFile(f, 'utf8')));
  const out = new Map<string, unknown[]>();
  files.forEach((f, i) => out.set(f, parseAllDocuments(texts[i]).map((d) => d.toJS() as unknown)));
  return out;
}

async function pipeline(dir: string, parsed: Map<string, unknown[]>): Promise<number> {
  const [{ createClient }, { clientOptionsFromEnv }, { KINDS }, { mapBounded }] = await Promise.all([
    import('../../src/api/client.js'),
    import('../../src/api/options.js'),
    import('../../src/kinds/index.js'),
    import('../../src/model/concurrency.js'),
  ]);
  const root = parsed.get(join(dir, 'postureops.yaml'))?.[0] as { accounts: { name: string }[] };
  const named = new Set<string>();
  for (const docs of parsed.values()) for (const d of docs) if (d && typeof d === 'object' && 'kind' in d) named.add(String(d.kind));
  const collections = [...new Set(KINDS.filter((k) => k.documentKind !== null && named.has(k.documentKind)).map((k) => k.collection))];
  const client = createClient(clientOptionsFromEnv(process.env, {}));
  try {
    // Accounts four at a time, an account's lists together: as the plan reads them.
    await mapBounded(root.accounts, 4, (account) =>
      Promise.all(collections.map((c) => client.request({ method: 'GET', path: `/api/v2/${c}`, account: account.name }))),
    );
    return client.stats().total;
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  const [mode, dir] = process.argv.slice(2);
  if ((mode !== 'parse' && mode !== 'pipeline') || !dir) throw new Error('usage: naive.js parse|pipeline <dir>');
  const parsed = await parseAll(dir);
  if (mode === 'pipeline') process.stdout.write(`${await pipeline(dir, parsed)} requests\n`);
  else process.stdout.write(`${parsed.size} files\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`naive failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
