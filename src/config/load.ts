// The configuration layer's entry: a directory → root config, validated documents per account,
// desired resources, and every problem found on the way (sorted, never thrown).

import { stat } from 'node:fs/promises';
import path from 'node:path';
import { type Diagnostic, hasErrors, type SourcePosition, sortDiagnostics } from '../model/diagnostics.js';
import { DOCUMENT_KINDS, KINDS, kindForDocument } from '../kinds/index.js';
import type { DesiredResource, Lifecycle, ResourceDocument } from '../model/resource.js';
import type { Kind } from '../kinds/types.js';
import type { Json, JsonObject } from '../model/json.js';
import { getAt } from '../model/json-pointer.js';
import { displayPath, findDocumentFiles, readConfigText, ROOT_FILE_NAMES } from './files.js';
import { interpolateDocument } from './interpolate.js';
import { parseRoot } from './root.js';
import { checkSchema, positionAt } from './schema-check.js';
import { checkDocument, secretPointers } from './semantic.js';
import { didYouMean } from '../model/suggest.js';
import type { LoadOptions, LoadResult } from './types.js';
import type { RootConfig } from '../model/account.js';
import { prepareValidators } from './validators.js';
import { type NodePosition, type ParsedDocument, parseYamlDocuments } from './yaml-source.js';

export type { LoadOptions };

/** One validated document before it is stamped into its accounts. */
export interface LoadedDocument {
  kind: string;
  name: string;
  accounts: string[];
  /** The document, `${env:...}` substituted. */
  value: JsonObject;
  /** Document-relative pointers → templates. */
  envRefs: Record<string, string>;
  positions: Map<string, NodePosition>;
  source: SourcePosition;
  /** True when this document has errors of its own: it yields no resources. */
  invalid: boolean;
}

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The root file of `absDir` (postureops.yaml, else postureops.yml), or undefined with `root-missing`. */
async function locateRoot(absDir: string, cwd: string, diagnostics: Diagnostic[]): Promise<string | undefined> {
  const isDir = await stat(absDir).then((s) => s.isDirectory(), () => false);
  const present: string[] = [];
  for (const name of isDir ? ROOT_FILE_NAMES : []) {
    const candidate = path.join(absDir, name);
    if (await stat(candidate).then((s) => s.isFile(), () => false)) present.push(candidate);
  }
  if (present.length === 0) {
    diagnostics.push({
      severity: 'error',
      code: 'root-missing',
      message: isDir ? `no postureops.yaml in ${displayPath(absDir, cwd) || absDir}` : `${displayPath(absDir, cwd)} is not a directory`,
      hint: 'create postureops.yaml declaring `accounts` (see examples/postureops.yaml)',
    });
    return undefined;
  }
  if (present.length > 1) {
    diagnostics.push({
      severity: 'warning',
      code: 'root-duplicate',
      message: `both postureops.yaml and postureops.yml exist; ${path.basename(present[1])} is ignored`,
      file: displayPath(present[1], cwd),
    });
  }
  return present[0];
}

export async function loadConfig(dir: string, options: LoadOptions): Promise<LoadResult> {
  const cwd = options.cwd ?? process.cwd();
  const absDir = path.resolve(dir);
  const diagnostics: Diagnostic[] = [];
  await prepareValidators();
  const rootAbs = await locateRoot(absDir, cwd, diagnostics);
  if (rootAbs === undefined) return { diagnostics };
  const rootFile = displayPath(rootAbs, cwd);
  const text = await readConfigText(rootAbs, rootFile, diagnostics);
  if (text === undefined) return { diagnostics: sortDiagnostics(diagnostics) };
  const root = parseRoot(rootAbs, rootFile, text, KINDS, diagnostics);

  const loaded = await loadDocuments(absDir, root, options);
  diagnostics.push(...loaded.diagnostics);
  if (!root) return { diagnostics: sortDiagnostics(diagnostics) };

  const resources: DesiredResource[] = [];
  for (const doc of loaded.documents) {
    const kind = kindForDocument(doc.kind);
    if (!kind) continue;
    try {
      const r = kind.fromDocument(doc);
      resources.push(...r.resources.map((res) => withDocumentFacts(res, doc)));
      diagnostics.push(...r.diagnostics.map((d) => (d.file ? d : { ...doc.source, ...d })));
    } catch (err) {
      diagnostics.push({
        severity: 'error',
        code: 'internal-error',
        message: `${doc.kind} \`${doc.name}\` could not be read: ${err instanceof Error ? err.message : String(err)}`,
        ...doc.source,
      });
    }
  }
  return { state: { root, resources }, diagnostics: sortDiagnostics(diagnostics) };
}

/**
 * Every document below `dir` (root file excluded), validated, stamped into its accounts. Without a
 * usable root the documents are still checked (syntax, schema, secrets) but not stamped.
 */
export async function loadDocuments(
  dir: string,
  root: RootConfig | undefined,
  options: LoadOptions,
): Promise<{ documents: ResourceDocument[]; loaded: LoadedDocument[]; diagnostics: Diagnostic[] }> {
  const cwd = options.cwd ?? process.cwd();
  const diagnostics: Diagnostic[] = [];
  const loaded: LoadedDocument[] = [];
  await prepareValidators();
  for (const abs of await findDocumentFiles(path.resolve(dir), cwd, diagnostics)) {
    const file = displayPath(abs, cwd);
    const text = await readConfigText(abs, file, diagnostics);
    if (text === undefined) continue;
    for (const parsed of parseYamlDocuments(file, text, diagnostics)) {
      const own: Diagnostic[] = [];
      const doc = readDocument(parsed, root, options, own);
      diagnostics.push(...own);
      if (doc) loaded.push(doc);
    }
  }
  if (!root) return { documents: [], loaded, diagnostics };
  diagnostics.push(...crossChecks(loaded));
  const documents: ResourceDocument[] = [];
  for (const doc of loaded) {
    if (doc.invalid) continue;
    for (const account of doc.accounts) documents.push(toResourceDocument(doc, account));
  }
  return { documents, loaded, diagnostics };
}

function readDocument(parsed: ParsedDocument, root: RootConfig | undefined, options: LoadOptions, out: Diagnostic[]): LoadedDocument | undefined {
  const { file, positions } = parsed;
  const where = (pointer: string, prefer: 'key' | 'value' = 'value'): SourcePosition =>
    positionAt(positions, pointer, prefer) ?? parsed.start;
  if (!isObject(parsed.value)) {
    out.push({
      severity: 'error',
      code: 'document-not-mapping',
      message: 'a document must be a mapping with `kind`, `name` and `spec`',
      ...parsed.start,
    });
    return undefined;
  }
  const kindValue = parsed.value.kind;
  if (typeof kindValue !== 'string' || !DOCUMENT_KINDS.includes(kindValue)) {
    const missing = kindValue === undefined;
    out.push({
      severity: 'error',
      code: missing ? 'missing-field' : 'unknown-kind',
      message: missing
        ? 'missing required field `kind`'
        : `unknown kind \`${typeof kindValue === 'string' ? kindValue : JSON.stringify(kindValue)}\`; expected one of: ${DOCUMENT_KINDS.join(', ')}`,
      ...(missing ? parsed.start : where('/kind')),
      field: '/kind',
      hint:
        typeof kindValue !== 'string'
          ? `expected one of: ${DOCUMENT_KINDS.join(', ')}`
          : (KINDS.find((k) => k.documentKind === null && k.kind === kindValue)?.declaredIn ?? didYouMean(kindValue, DOCUMENT_KINDS)),
    });
    return undefined;
  }
  const kind = kindForDocument(kindValue)!;
  const interpolated = interpolateDocument(parsed.value, options.env, (p) => where(p), out, options.missingEnv ?? 'error');
  const value = interpolated.value as JsonObject;
  const secrets = secretPointers(kind, value.spec);
  const schemaFile = kind.schema ?? '';
  out.push(
    ...checkSchema(schemaFile, value, {
      file,
      positions,
      quiet: (p) => p in interpolated.refs || secrets.includes(p),
      // A placeholder export wrote stands for a value still to be set: its shape is not checked.
      ignore: [...interpolated.missing, ...interpolated.placeholders],
    }),
  );
  out.push(
    ...checkDocument(kind, value, {
      where: (p) => where(p),
      envRefs: interpolated.refs,
      envProblems: interpolated.missing,
      literals: root?.secretLiterals,
      settings: root?.settings,
    }),
  );

  out.push(...renameChecks(kind, value, where));
  const name = typeof value.name === 'string' ? value.name : '';
  const accounts = root ? resolveAccounts(value.account, root, where, out) : [];
  return {
    kind: kindValue,
    name,
    accounts,
    value,
    envRefs: interpolated.refs,
    positions,
    source: parsed.start,
    invalid: hasErrors(out),
  };
}

/** `previousNames` needs a kind that renames in place, and never names the document's own name. */
function renameChecks(kind: Kind, value: JsonObject, where: (pointer: string) => SourcePosition): Diagnostic[] {
  const previous = value.previousNames;
  if (!Array.isArray(previous) || previous.length === 0) return [];
  if (!kind.renamable) {
    return [
      {
        severity: 'error',
        code: 'rename-unsupported',
        message: `${kind.kind} \`${String(value.name)}\` gives previousNames, but ${kind.renameRefusal ?? `the service cannot rename a ${kind.kind} in place`}`,
        ...where('/previousNames'),
        field: '/previousNames',
        hint: 'remove previousNames: the plan then deletes the old resource and creates the new one',
      },
    ];
  }
  const i = previous.indexOf(value.name as Json);
  if (i < 0) return [];
  return [{ severity: 'error', code: 'invalid-value', message: 'previousNames names the document\'s own name', ...where(`/previousNames/${i}`), field: `/previousNames/${i}` }];
}

/** The document's previousNames and lifecycle on the resource it declares (not on its children). */
function withDocumentFacts(resource: DesiredResource, doc: ResourceDocument): DesiredResource {
  if (resource.name !== doc.name || resource.parent !== undefined) return resource;
  return {
    ...resource,
    ...(doc.previousNames ? { previousNames: [...doc.previousNames] } : {}),
    ...(doc.lifecycle ? { lifecycle: structuredClone(doc.lifecycle) } : {}),
  };
}

function resolveAccounts(
  account: Json | undefined,
  root: RootConfig,
  where: (pointer: string) => SourcePosition,
  out: Diagnostic[],
): string[] {
  const declared = root.accounts.map((a) => a.name);
  if (account === undefined) {
    if (root.defaultAccount !== undefined) return [root.defaultAccount];
    if (declared.length === 1) return declared;
    out.push({ severity: 'error', code: 'account-missing', message: 'document names no account and postureops.yaml sets no defaults.account', ...where(''), field: '/account' });
    return [];
  }
  if (account === '*') return declared;
  const items: [string, string][] =
    typeof account === 'string' ? [[account, '/account']] : Array.isArray(account) ? account.map((a, i) => [String(a), `/account/${i}`]) : [];
  const out2: string[] = [];
  for (const [name, pointer] of items) {
    if (name.trim() === '') continue; // the schema reports it
    if (name === '*') {
      out.push({ severity: 'error', code: 'invalid-value', message: '"*" stands alone: write `account: "*"`, not inside a list', ...where(pointer), field: pointer });
      continue;
    }
    if (!declared.includes(name)) {
      out.push({
        severity: 'error',
        code: 'account-not-declared',
        message: `account \`${name}\` is not declared in postureops.yaml`,
        ...where(pointer),
        field: pointer,
        hint: didYouMean(name, declared) ?? `declared accounts: ${declared.join(', ')}`,
      });
      continue;
    }
    if (!out2.includes(name)) out2.push(name);
  }
  return out2;
}

const fmt = (p: SourcePosition): string => `${p.file}:${p.line}:${p.column}`;

/** Problems between documents: one (account, kind, name) declared twice; names no document declares. */
function crossChecks(docs: LoadedDocument[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const first = new Map<string, LoadedDocument>();
  for (const doc of docs) {
    if (doc.name === '') continue;
    for (const account of doc.accounts) {
      const key = JSON.stringify([account, doc.kind, doc.name]);
      const prev = first.get(key);
      if (!prev) {
        first.set(key, doc);
        continue;
      }
      const here = positionAt(doc.positions, '/name', 'value') ?? doc.source;
      const there = positionAt(prev.positions, '/name', 'value') ?? prev.source;
      out.push({
        severity: 'error',
        code: 'duplicate-resource',
        message: `${doc.kind} \`${doc.name}\` is declared twice for account ${account}: at ${fmt(there)} and at ${fmt(here)}`,
        ...here,
        field: '/name',
        hint: 'rename one of them, or narrow its `account`',
      });
      doc.invalid = true;
    }
  }
  out.push(...referenceChecks(docs));
  return out;
}

/** The names at a reference pointer of a file's spec (a string or a list), with their document pointers. */
function namesAt(spec: Json | undefined, pointer: string): [string, string][] {
  const value = getAt(spec, pointer);
  if (typeof value === 'string') return [[value, `/spec${pointer}`]];
  if (!Array.isArray(value)) return [];
  return value.flatMap((v, i): [string, string][] => (typeof v === 'string' && value.indexOf(v) === i ? [[v, `/spec${pointer}/${i}`]] : []));
}

/**
 * Kind.references, checked across files: every name a document gives must be declared by a document
 * of the referenced kind in each of the document's accounts. A warning: plan also accepts a live
 * resource of that name. References to a kind without documents are left to plan.
 */
function referenceChecks(docs: LoadedDocument[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const kindName = (doc: LoadedDocument) => kindForDocument(doc.kind)?.kind;
  for (const doc of docs) {
    const kind = kindForDocument(doc.kind);
    for (const reference of kind?.references ?? []) {
      if (!KINDS.some((k) => k.kind === reference.kind && k.documentKind !== null)) continue;
      const targets = docs.filter((d) => kindName(d) === reference.kind);
      const declared = new Set(targets.flatMap((d) => d.accounts.map((a) => JSON.stringify([a, d.name]))));
      for (const [name, pointer] of namesAt(doc.value.spec, reference.pointer)) {
        const missingIn = doc.accounts.filter((a) => !declared.has(JSON.stringify([a, name])));
        if (missingIn.length === 0) continue;
        out.push({
          severity: 'warning',
          code: 'reference-not-declared',
          message: `${reference.kind} \`${name}\` is not declared for account ${missingIn.join(', ')}; plan will also accept a live ${reference.kind} of that name`,
          ...(positionAt(doc.positions, pointer, 'value') ?? doc.source),
          field: pointer,
          hint: didYouMean(name, [...new Set(targets.map((d) => d.name))]),
        });
      }
    }
  }
  return out;
}

/** Positions of spec members (spec-relative pointers): the key for collections, the value for scalars. */
function specPositions(doc: LoadedDocument): Record<string, SourcePosition> {
  const out: Record<string, SourcePosition> = {};
  for (const [pointer, np] of doc.positions) {
    if (pointer !== '/spec' && !pointer.startsWith('/spec/')) continue;
    const rel = pointer.slice('/spec'.length);
    out[rel] = rel === '' ? (np.key ?? np.value) : np.value;
    if (np.key && rel !== '') {
      const v = getAt(doc.value.spec, rel);
      if (v !== null && typeof v === 'object') out[rel] = np.key;
    }
  }
  return out;
}

function toResourceDocument(doc: LoadedDocument, account: string): ResourceDocument {
  const envRefs: Record<string, string> = {};
  for (const [pointer, template] of Object.entries(doc.envRefs)) {
    if (pointer.startsWith('/spec/')) envRefs[pointer.slice('/spec'.length)] = template;
  }
  const previousNames = Array.isArray(doc.value.previousNames) ? doc.value.previousNames.filter((n): n is string => typeof n === 'string') : [];
  const lifecycle = isObject(doc.value.lifecycle) ? (structuredClone(doc.value.lifecycle) as Lifecycle) : undefined;
  return {
    kind: doc.kind,
    name: doc.name,
    account,
    spec: structuredClone(doc.value.spec as JsonObject),
    envRefs,
    source: doc.source,
    positions: specPositions(doc),
    ...(previousNames.length > 0 ? { previousNames } : {}),
    ...(lifecycle ? { lifecycle } : {}),
  };
}
