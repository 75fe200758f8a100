// The configuration layer's entry: a directory → root config, validated documents per account,
// desired resources, and every problem found on the way (sorted, never thrown).

import { stat } from 'node:fs/promises';
import path from 'node:path';
import { type Diagnostic, hasErrors, type SourcePosition, sortDiagnostics } from '../model/diagnostics.js';
import { DOCUMENT_KINDS, KINDS, kindForDocument } from '../kinds/index.js';
import { clone } from '../kinds/common.js';
import { type DesiredResource, type Lifecycle, type PlaceOf, type ResourceDocument, setPlaces } from '../model/resource.js';
import type { Kind, MemberReference, Reference } from '../kinds/types.js';
import type { Json, JsonObject } from '../model/json.js';
import { getAt } from '../model/json-pointer.js';
import { displayPath, findDocumentFiles, readConfigText, ROOT_FILE_NAMES } from './files.js';
import { type FileResult, type LoadedDocument, loadFileText } from './load-file.js';
import { mapBounded } from '../model/concurrency.js';
import { loadFilesInParallel, type TextFile, workersFor } from './parallel-load.js';
import { parseRoot } from './root.js';
import { positionAt } from './schema-check.js';
import { didYouMean } from '../model/suggest.js';
import type { LoadOptions, LoadResult } from './types.js';
import type { RootConfig } from '../model/account.js';
import { prepareValidators } from './validators.js';
import { positionOf } from './yaml-source.js';
import { ReadValues } from '../model/read-values.js';

export type { LoadOptions, LoadedDocument };

/** Files read from disk at the same time. */
const READ_CONCURRENCY = 16;

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
  if (rootAbs === undefined) return { diagnostics, read: [] };
  const rootFile = displayPath(rootAbs, cwd);
  const text = await readConfigText(rootAbs, rootFile, diagnostics);
  if (text === undefined) return { diagnostics: sortDiagnostics(diagnostics), read: [] };
  const root = parseRoot(rootAbs, rootFile, text, KINDS, diagnostics);
  if (root && !hasErrors(diagnostics)) options.onProgress?.root(root);

  const loaded = await loadDocuments(absDir, root, options);
  diagnostics.push(...loaded.diagnostics);
  const read = loaded.read;
  // Every problem is masked here, once, for every value read: a value flows into messages and hints
  // ("did you mean"), whatever member it was written in.
  const masked = (d: Diagnostic[]): Diagnostic[] => new ReadValues(read).maskData(sortDiagnostics(d));
  if (!root) return { diagnostics: masked(diagnostics), read };

  const resources: DesiredResource[] = [];
  for (const doc of loaded.documents) {
    const kind = kindForDocument(doc.kind);
    if (!kind) continue;
    try {
      const r = kind.fromDocument(doc);
      for (const res of r.resources) {
        const made = withDocumentFacts(res, doc);
        // Plan-time problems (a reference to a live resource of the wrong type) point at the value's line.
        if (doc instanceof StampedDocument && made.name === doc.name && made.parent === undefined) setPlaces(made, doc.place);
        resources.push(made);
      }
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
  return { state: { root, resources, read }, diagnostics: masked(diagnostics), read };
}

/**
 * Every document below `dir` (root file excluded), validated, stamped into its accounts. Without a
 * usable root the documents are still checked (syntax, schema, secrets) but not stamped.
 */
export async function loadDocuments(
  dir: string,
  root: RootConfig | undefined,
  options: LoadOptions,
): Promise<{ documents: ResourceDocument[]; loaded: LoadedDocument[]; diagnostics: Diagnostic[]; read: string[] }> {
  const cwd = options.cwd ?? process.cwd();
  const diagnostics: Diagnostic[] = [];
  const loaded: LoadedDocument[] = [];
  await prepareValidators();
  const found = await findDocumentFiles(path.resolve(dir), cwd, diagnostics);
  // Read ahead a few at a time; each file's problems keep their place in file order.
  const read = await mapBounded(found, READ_CONCURRENCY, async (abs) => {
    const file = displayPath(abs, cwd);
    const problems: Diagnostic[] = [];
    const text = await readConfigText(abs, file, problems);
    return { file, text, problems };
  });
  const files: TextFile[] = read.flatMap((r) => (r.text === undefined ? [] : [{ file: r.file, text: r.text }]));
  const workers = workersFor(files, options.parallel);
  // One time for the whole load: every document is judged at the same moment.
  const at = (options.now ?? Date.now)();
  const timed: LoadOptions = { ...options, now: () => at };
  const results = workers > 0 ? await loadFilesInParallel(files, root, timed, workers) : await loadInTurn(files, root, timed);
  if (workers > 0) for (const result of results) await told(result, options);
  const values = new Set<string>();
  for (const result of results) {
    options.onRead?.(result.read);
    for (const v of result.read) values.add(v);
  }
  let next = 0;
  for (const r of read) {
    diagnostics.push(...r.problems);
    if (r.text === undefined) continue;
    const result = results[next++];
    diagnostics.push(...result.diagnostics);
    loaded.push(...result.loaded);
  }
  if (!root) return { documents: [], loaded, diagnostics, read: [...values] };
  diagnostics.push(...crossChecks(loaded));
  const documents: ResourceDocument[] = [];
  for (const doc of loaded) {
    if (doc.invalid) continue;
    for (const account of doc.accounts) documents.push(toResourceDocument(doc, account));
  }
  return { documents, loaded, diagnostics, read: [...values] };
}

/**
 * The files on this thread, one after the other. With a progress hook, each file's documents are
 * told as soon as it is read, and other work (the answers of a live read started from them) runs
 * between files.
 */
async function loadInTurn(files: readonly TextFile[], root: RootConfig | undefined, options: LoadOptions): Promise<FileResult[]> {
  if (!options.onProgress) return files.map((f) => loadFileText(f.file, f.text, root, options));
  const out: FileResult[] = [];
  for (const f of files) {
    const result = loadFileText(f.file, f.text, root, options);
    out.push(result);
    await told(result, options);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return out;
}

/** Tells the progress hook one file's valid documents. */
async function told(result: FileResult, options: LoadOptions): Promise<void> {
  if (!options.onProgress) return;
  const documents = result.loaded.filter((d) => !d.invalid).map((d) => ({ kind: d.kind, accounts: d.accounts }));
  await options.onProgress.file(documents, hasErrors(result.diagnostics));
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

const fmt = (p: SourcePosition): string => `${p.file}:${p.line}:${p.column}`;

/** Problems between documents: one (account, kind, name) declared twice; names no document declares. */
function crossChecks(docs: LoadedDocument[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  // The first document of each (kind, account, name), in maps nested by those three.
  const first = new Map<string, Map<string, Map<string, LoadedDocument>>>();
  for (const doc of docs) {
    if (doc.name === '') continue;
    let ofKind = first.get(doc.kind);
    if (!ofKind) first.set(doc.kind, (ofKind = new Map()));
    for (const account of doc.accounts) {
      let inAccount = ofKind.get(account);
      if (!inAccount) ofKind.set(account, (inAccount = new Map()));
      const prev = inAccount.get(doc.name);
      if (!prev) {
        inAccount.set(doc.name, doc);
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
  // The kind of each document kind, looked up once per document kind rather than per document.
  const kindNames = new Map<string, string | undefined>();
  const kindNameOf = (documentKind: string): string | undefined => {
    if (!kindNames.has(documentKind)) kindNames.set(documentKind, kindForDocument(documentKind)?.kind);
    return kindNames.get(documentKind);
  };
  // Per referenced kind, once: its documents, and the accounts each name is declared in.
  const byKind = new Map<string, { targets: LoadedDocument[]; declared: Map<string, Set<string>> }>();
  const documentsOf = (kindName: string) => {
    let entry = byKind.get(kindName);
    if (!entry) {
      const targets = docs.filter((d) => kindNameOf(d.kind) === kindName);
      const declared = new Map<string, Set<string>>();
      for (const d of targets) {
        let accounts = declared.get(d.name);
        if (!accounts) declared.set(d.name, (accounts = new Set()));
        for (const a of d.accounts) accounts.add(a);
      }
      byKind.set(kindName, (entry = { targets, declared }));
    }
    return entry;
  };
  for (const doc of docs) {
    const kind = kindForDocument(doc.kind);
    for (const reference of kind?.memberReferences ?? []) out.push(...memberCheck(doc, reference, documentsOf(reference.kind).targets));
    for (const reference of (kind?.references ?? []) ?? []) {
      if (!KINDS.some((k) => k.kind === reference.kind && k.documentKind !== null)) continue;
      const { targets, declared } = documentsOf(reference.kind);
      for (const [name, pointer] of namesAt(doc.value.spec, reference.pointer)) {
        out.push(...onlyCheck(doc, reference, name, pointer, targets));
        const accounts = declared.get(name);
        if (accounts !== undefined && doc.accounts.every((a) => accounts.has(a))) continue;
        const missingIn = doc.accounts.filter((a) => !accounts?.has(a));
        if (missingIn.length === 0) continue;
        const hint = didYouMean(name, [...new Set(targets.map((d) => d.name))]);
        if (hint === undefined && KINDS.some((k) => k.kind === reference.kind && k.lifecycle?.serviceDefaults === true)) continue;
        out.push({
          severity: 'warning',
          code: 'reference-not-declared',
          message: `${reference.kind} \`${name}\` is not declared for account ${missingIn.join(', ')}; plan will also accept a live ${reference.kind} of that name`,
          ...(positionAt(doc.positions, pointer, 'value') ?? doc.source),
          field: pointer,
          hint,
        });
      }
    }
  }
  return out;
}

/**
 * Kind.memberReferences against the declared targets: a document naming `<resource>.<member>` of a
 * resource this repository declares in its accounts must name a member that resource offers (a
 * policy's `profile.template`). A resource not declared is left to plan, which also reads live ones.
 */
function memberCheck(doc: LoadedDocument, reference: MemberReference, targets: readonly LoadedDocument[]): Diagnostic[] {
  const value = getAt(doc.value.spec, reference.pointer);
  const dot = typeof value === 'string' ? value.indexOf('.') : -1;
  if (typeof value !== 'string' || dot <= 0) return [];
  const [name, member] = [value.slice(0, dot), value.slice(dot + 1)];
  const pointer = `/spec${reference.pointer}`;
  return targets
    .filter((t) => t.name === name && t.accounts.some((a) => doc.accounts.includes(a)))
    .slice(0, 1)
    .flatMap((t) => {
      const offered = isObject(t.value.spec) ? reference.members(t.value.spec, []) : [];
      if (offered.includes(member)) return [];
      return [
        {
          severity: 'error' as const,
          code: 'unknown-reference' as const,
          message: `${doc.kind} \`${doc.name}\` names ${reference.label} \`${member}\` of ${reference.kind} \`${name}\`, which has no such ${reference.label}`,
          ...(positionAt(doc.positions, pointer, 'value') ?? doc.source),
          field: pointer,
          hint: `${name} is declared in ${t.source.file}:${t.source.line}${offered.length > 0 ? `; its ${reference.label}s: ${offered.slice(0, 10).join(', ')}` : ''}`,
        },
      ];
    });
}

/**
 * Reference.only against the declared targets: a document naming a resource its reference does not
 * take (a report rule naming a Webhook channel) is an error at the name.
 */
function onlyCheck(doc: LoadedDocument, reference: Reference, name: string, pointer: string, targets: readonly LoadedDocument[]): Diagnostic[] {
  const only = reference.only;
  if (!only) return [];
  return targets
    .filter((t) => t.name === name && t.accounts.some((a) => doc.accounts.includes(a)))
    .flatMap((t) => {
      const actual = getAt(t.value.spec, only.member);
      if (typeof actual !== 'string' || only.values.includes(actual)) return [];
      return [
        {
          severity: 'error' as const,
          code: 'reference-not-allowed',
          message: `${doc.kind} \`${doc.name}\` names ${reference.kind} \`${name}\`, whose ${only.member.slice(1)} is ${actual}; a ${doc.kind} takes only ${only.values.join(', ')}`,
          ...(positionAt(doc.positions, pointer, 'value') ?? doc.source),
          field: pointer,
          hint: `${name} is declared in ${t.source.file}:${t.source.line}`,
        },
      ];
    });
}

/** Positions of spec members (spec-relative pointers): the key for collections, the value for scalars. */
function specPositions(doc: LoadedDocument): Record<string, SourcePosition> {
  const out: Record<string, SourcePosition> = {};
  const { values, keys } = doc.positions;
  for (const pointer of values.keys()) {
    if (pointer !== '/spec' && !pointer.startsWith('/spec/')) continue;
    const rel = pointer.slice('/spec'.length);
    let prefer: 'key' | 'value' = rel === '' ? 'key' : 'value';
    if (keys.has(pointer) && rel !== '') {
      const v = getAt(doc.value.spec, rel);
      if (v !== null && typeof v === 'object') prefer = 'key';
    }
    out[rel] = positionOf(doc.positions, pointer, prefer)!;
  }
  return out;
}

function toResourceDocument(doc: LoadedDocument, account: string): ResourceDocument {
  return new StampedDocument(doc, account);
}

/**
 * A document stamped into one account. Its `positions` (line and column of every spec member) are
 * worked out on first use, which is only for a diagnostic: a getter of the class, so the object
 * keeps a fixed shape and the document it came from stays out of its own members.
 */
class StampedDocument implements ResourceDocument {
  readonly kind: string;
  readonly name: string;
  readonly account: string;
  readonly spec: JsonObject;
  readonly envRefs: Record<string, string>;
  readonly source: SourcePosition;
  declare readonly previousNames?: string[];
  declare readonly lifecycle?: Lifecycle;
  readonly #doc: LoadedDocument;
  #positions: Record<string, SourcePosition> | undefined;

  constructor(doc: LoadedDocument, account: string) {
    const envRefs: Record<string, string> = {};
    for (const [pointer, template] of Object.entries(doc.envRefs)) {
      if (pointer.startsWith('/spec/')) envRefs[pointer.slice('/spec'.length)] = template;
    }
    this.kind = doc.kind;
    this.name = doc.name;
    this.account = account;
    this.spec = clone(doc.value.spec as JsonObject);
    this.envRefs = envRefs;
    this.source = doc.source;
    this.#doc = doc;
    const previousNames = Array.isArray(doc.value.previousNames) ? doc.value.previousNames.filter((n): n is string => typeof n === 'string') : [];
    if (previousNames.length > 0) Object.assign(this, { previousNames });
    if (isObject(doc.value.lifecycle)) Object.assign(this, { lifecycle: structuredClone(doc.value.lifecycle) as Lifecycle });
  }

  get positions(): Record<string, SourcePosition> {
    this.#positions ??= specPositions(this.#doc);
    return this.#positions;
  }

  /**
   * Where the document wrote `value` at a spec-relative `pointer` (the item of a list holding it).
   * Holds the loaded document only; its positions are worked out when a diagnostic asks.
   */
  get place(): PlaceOf {
    const doc = this.#doc;
    return (pointer, value) => {
      const at = getAt(doc.value.spec, pointer);
      const item = Array.isArray(at) ? at.indexOf(value) : -1;
      if (item < 0 && at !== value) return undefined;
      return positionOf(doc.positions, `/spec${pointer}${item >= 0 ? `/${item}` : ''}`, 'value');
    };
  }
}
