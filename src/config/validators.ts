// The validators the loader uses: generated at build time when available (build-validators.ts:
// loading them costs a few ms), else compiled by ajv on first use (~200 ms for all of them).
// ajv's compiler itself is imported only in the second case.

import { createHash } from 'node:crypto';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { DOCUMENT_SCHEMAS, ROOT_SCHEMA, SCHEMA_BASE, sharedCatalog } from './schema-catalog.js';

/** Schemas the loader validates with directly (the others are reached through $ref). */
export const VALIDATED_SCHEMAS: readonly string[] = [ROOT_SCHEMA, ...Object.values(DOCUMENT_SCHEMAS)];

/** `alert-channel.schema.json` → `alertChannel`: export names in the generated module. */
export function exportNameOf(file: string): string {
  return file.replace(/\.schema\.json$/, '').replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}

let digest: string | undefined;
/** Identifies the catalog a generated module was built from (a stale one is not used). */
export function catalogDigest(): string {
  digest ??= createHash('sha256').update(JSON.stringify(sharedCatalog())).digest('hex');
  return digest;
}

const validators = new Map<string, ValidateFunction>();
let ajv: Ajv2020 | undefined;
let prepared: Promise<void> | undefined;

async function prepare(): Promise<void> {
  const specifier = './validators.generated.js';
  try {
    const mod = (await import(specifier)) as Record<string, unknown>;
    if (mod.catalogDigest === catalogDigest()) {
      for (const file of VALIDATED_SCHEMAS) {
        const fn = mod[exportNameOf(file)];
        if (typeof fn === 'function') validators.set(file, fn as ValidateFunction);
      }
    }
  } catch {
    // Not built (running from src/, or tsc without the build step): compile instead.
  }
  if (VALIDATED_SCHEMAS.some((f) => !validators.has(f))) {
    const { createAjv } = await import('./ajv-instance.js');
    ajv = createAjv();
  }
}

/** Loads the generated validators, or ajv when they are missing or stale. Call before validatorFor. */
export function prepareValidators(): Promise<void> {
  prepared ??= prepare();
  return prepared;
}

/** Validator of a schema file under schemas/ (compiled once, on first use, unless prebuilt). */
export function validatorFor(schemaFile: string): ValidateFunction {
  let v = validators.get(schemaFile);
  if (!v) {
    if (!ajv) throw new Error('validators are not ready: await prepareValidators() first');
    v = ajv.getSchema(SCHEMA_BASE + schemaFile);
    if (!v) throw new Error(`no schema ${schemaFile}`);
    validators.set(schemaFile, v);
  }
  return v;
}
