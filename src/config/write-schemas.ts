// Writes the schema catalog to schemas/ (for editors and the package):
//   node dist/src/config/write-schemas.js [DIR]      (DIR defaults to ./schemas)
// test/config keeps the committed files equal to the catalog.

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { schemaCatalog } from './schema-catalog.js';

/** File text per schema file name, as committed (2-space JSON, trailing newline). */
export function schemaFiles(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [file, schema] of Object.entries(schemaCatalog())) out[file] = JSON.stringify(schema, null, 2) + '\n';
  return out;
}

export async function writeSchemas(dir: string): Promise<string[]> {
  const written: string[] = [];
  for (const [file, text] of Object.entries(schemaFiles())) {
    const target = path.join(dir, file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, text);
    written.push(target);
  }
  return written;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const dir = path.resolve(process.argv[2] ?? 'schemas');
  writeSchemas(dir).then(
    (files) => process.stdout.write(`wrote ${files.length} schemas to ${dir}\n`),
    (err: unknown) => {
      process.stderr.write(`write-schemas: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
