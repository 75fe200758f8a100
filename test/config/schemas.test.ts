// The schemas: committed files equal the catalog, editors can use them as written, they say which
// members are secrets, a wrong `type` gives one clear error, and the generated standalone validators
// agree with the compiled ones.

import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { validatorModuleCode } from '../../src/config/build-validators.js';
import { DOCUMENT_SCHEMA, DOCUMENT_SCHEMAS, SCHEMA_BASE, schemaCatalog } from '../../src/config/schema-catalog.js';
import { exportNameOf, prepareValidators, validatorFor, VALIDATED_SCHEMAS } from '../../src/config/validators.js';
import { schemaFiles } from '../../src/config/write-schemas.js';
import { channelDataFile } from '../../src/kinds/alert-channel/schema.js';
import { CHANNEL_SECRETS } from '../../src/kinds/alert-channel/tables.js';
import { cloudAccountDataFile } from '../../src/kinds/cloud-account/schema.js';
import { CLOUD_ACCOUNT_SECRETS } from '../../src/kinds/cloud-account/tables.js';
import { registryDataFile } from '../../src/kinds/container-registry/schema.js';
import { CHANNEL_TYPES, KNOWN_CLOUD_ACCOUNT_TYPES, REGISTRY_TYPES } from '../../src/kinds/spellings.js';
import { KINDS } from '../../src/kinds/index.js';
import { EXAMPLES } from './helpers.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SCHEMAS = path.join(REPO, 'schemas');

async function listFiles(dir: string, base = dir): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.')) continue; // hidden folders (examples/.github) are not configuration; the loader skips them too
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await listFiles(full, base)));
    else out.push(path.relative(base, full).split(path.sep).join('/'));
  }
  return out.sort();
}

type Schema = Record<string, unknown>;
const member = (schema: Schema, dotted: string): Schema | undefined =>
  dotted.split('.').reduce<Schema | undefined>((s, seg) => (s?.properties as Record<string, Schema> | undefined)?.[seg], schema);

describe('schemas/', () => {
  it('holds exactly the catalog, as written by write-schemas', async () => {
    const expected = schemaFiles();
    expect(await listFiles(SCHEMAS), 'schemas/ lists other files than the catalog: run npm run generate').toEqual(Object.keys(expected).sort());
    for (const [file, text] of Object.entries(expected)) {
      expect(await readFile(path.join(SCHEMAS, file), 'utf8'), `schemas/${file} differs from the catalog: run npm run generate`).toBe(text);
    }
  });

  it('has the files the kinds name, and one data schema per type', () => {
    const catalog = schemaCatalog();
    for (const kind of KINDS.filter((k) => k.documentKind !== null)) {
      expect(kind.schema).toBe(DOCUMENT_SCHEMAS[kind.documentKind!]);
      expect(catalog[kind.schema!].title).toBe(kind.documentKind);
    }
    for (const t of CHANNEL_TYPES) expect(catalog[channelDataFile(t)], t).toBeDefined();
    for (const t of KNOWN_CLOUD_ACCOUNT_TYPES) expect(catalog[cloudAccountDataFile(t)], t).toBeDefined();
    for (const t of REGISTRY_TYPES) expect(catalog[registryDataFile(t)], t).toBeDefined();
    expect(catalog[channelDataFile('SlackChannel')]).toBe(catalog['data/alert-channel/slack-channel.schema.json']);
  });

  it('gives every schema an $id, a title and a description, and every data member a description', () => {
    for (const [file, schema] of Object.entries(schemaCatalog())) {
      expect(schema.$id, file).toBe(SCHEMA_BASE + file);
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(typeof schema.title).toBe('string');
      expect(typeof schema.description).toBe('string');
      if (file.startsWith('data/')) {
        for (const [name, m] of Object.entries(schema.properties as Record<string, Schema>)) expect(typeof m.description, `${file} ${name}`).toBe('string');
      }
    }
  });

  it('marks secrets: every one says to use ${env:NAME}, write-only ones carry writeOnly', () => {
    const catalog = schemaCatalog();
    const check = (schema: Schema, secrets: { path: string; writeOnly: boolean }[]) => {
      for (const s of secrets) {
        const m = member(schema, s.path);
        expect(m?.description, s.path).toContain('${env:NAME}');
        expect(m?.writeOnly === true, s.path).toBe(s.writeOnly);
      }
    };
    for (const t of CHANNEL_TYPES) check(catalog[channelDataFile(t)], CHANNEL_SECRETS[t]);
    for (const t of KNOWN_CLOUD_ACCOUNT_TYPES) check(catalog[cloudAccountDataFile(t)], CLOUD_ACCOUNT_SECRETS[t]);
    expect(member(catalog[registryDataFile('DOCKERHUB')], 'credentials.password')?.writeOnly).toBe(true);
  });

  it('work in an editor as committed: the example files validate against document.schema.json, templates and all', async () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    for (const file of await listFiles(SCHEMAS)) ajv.addSchema(JSON.parse(await readFile(path.join(SCHEMAS, file), 'utf8')));
    const validate = ajv.getSchema(SCHEMA_BASE + DOCUMENT_SCHEMA)!;
    const root = ajv.getSchema(SCHEMA_BASE + 'postureops.schema.json')!;
    expect(root((await import('yaml')).parse(await readFile(path.join(EXAMPLES, 'postureops.yaml'), 'utf8')))).toBe(true);
    let checked = 0;
    for (const file of await listFiles(EXAMPLES)) {
      if (!/\.ya?ml$/.test(file) || file === 'postureops.yaml') continue;
      const text = await readFile(path.join(EXAMPLES, file), 'utf8');
      expect(text.startsWith('# yaml-language-server: $schema=')).toBe(true);
      for (const doc of parseAllDocuments(text)) {
        const ok = validate(doc.toJS());
        expect(ok ? [] : validate.errors, file).toEqual([]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(15);
  });

  it('shows a whole document as the example of each kind, and that example is valid', async () => {
    await prepareValidators();
    const catalog = schemaCatalog();
    for (const file of Object.values(DOCUMENT_SCHEMAS)) {
      const [example] = catalog[file].examples as unknown[];
      const validate = validatorFor(file);
      expect(validate(example) ? [] : validate.errors, file).toEqual([]);
    }
  });

  it('reports a wrong data member of one type once, not once per type', async () => {
    await prepareValidators();
    const validate = validatorFor(DOCUMENT_SCHEMAS.AlertChannel);
    expect(validate({ kind: 'AlertChannel', name: 'x', spec: { type: 'SlackChannel', data: {} } })).toBe(false);
    const real = (validate.errors ?? []).filter((e) => e.keyword !== 'if');
    expect(real.map((e) => [e.keyword, e.instancePath, (e.params as { missingProperty?: string }).missingProperty])).toEqual([
      ['required', '/spec/data', 'slackUrl'],
    ]);
  });
});

describe('standalone validators (build-validators)', () => {
  it('agree with the validators compiled at run time', async () => {
    // Inside the repository so that the module resolves ajv's runtime helpers; the name is git-ignored.
    const target = path.join(REPO, `.postureops-tmp-validators-${process.pid}.mjs`);
    await writeFile(target, validatorModuleCode());
    try {
      await prepareValidators();
      const mod = (await import(pathToFileURL(target).href)) as Record<string, (v: unknown) => boolean>;
      const samples: [string, unknown][] = [
        [DOCUMENT_SCHEMAS.AlertChannel, { kind: 'AlertChannel', name: 'x', spec: { type: 'SlackChannel', data: { slackurl: 'x' } } }],
        [DOCUMENT_SCHEMAS.AlertChannel, { kind: 'AlertChannel', name: 'x', spec: { type: 'Webhook', data: { webhookUrl: 'https://a' } } }],
        [DOCUMENT_SCHEMAS.AlertRule, { kind: 'AlertRule', name: 'r', spec: { channels: [], severity: ['bad'] } }],
        [DOCUMENT_SCHEMAS.ContainerRegistry, { kind: 'ContainerRegistry', name: 'r', spec: { data: { registryType: 'AWS_ECR' } } }],
        ['postureops.schema.json', { accounts: [{ name: 'prod' }], prune: { AlertRules: true } }],
      ];
      for (const [file, value] of samples) {
        const prebuilt = mod[exportNameOf(file)] as ((v: unknown) => boolean) & { errors?: unknown[] };
        const compiled = validatorFor(file);
        expect(prebuilt(value)).toBe(compiled(value));
        const strip = (errs: unknown[] | null | undefined) =>
          (errs ?? []).map((e) => {
            const { keyword, instancePath, params } = e as Record<string, unknown>;
            return { keyword, instancePath, params };
          });
        expect(strip(prebuilt.errors)).toEqual(strip(compiled.errors));
      }
      for (const file of VALIDATED_SCHEMAS) expect(typeof mod[exportNameOf(file)], file).toBe('function');
    } finally {
      await rm(target, { force: true });
    }
  });
});
