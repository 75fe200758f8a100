// export: live state → a configuration folder that plans to "no changes". Pure: the files are
// returned as data; writeExport (export-write.ts) puts them on disk all at once.

import type { AccountConfig, ServiceValues } from '../../model/account.js';
import { type Diagnostic, sortDiagnostics } from '../../model/diagnostics.js';
import { KINDS } from '../../kinds/index.js';
import type { Json, JsonObject } from '../../model/json.js';
import type { Kind } from '../../kinds/types.js';
import type { LiveResource } from '../../model/resource.js';
import { getAt, setAt, toPointer } from '../../model/json-pointer.js';
import { isMaskedValue } from '../../model/secret-detection.js';
import { assignVariables, type ExportedSecret, type SecretSlot, secretsNote, type SkippedResource } from './export-secrets.js';
import { compareText } from '../../model/compare.js';
import { accountFolders, documentsFile, escapeLiveText, type FileDocument, kindFileStem, ROOT_FILE, rootFile, SECRETS_FILE } from './export-yaml.js';
import type { LiveState } from '../../model/live.js';
import { type DocumentCheck, fitDocument } from './export-fit.js';
import { liveSettings } from './export-settings.js';

export { ExportError, type ExportErrorCode, writeExport, type WriteExportOptions } from './export-write.js';
export type { ExportedSecret } from './export-secrets.js';

export interface ExportFile {
  /** Relative, `/`-separated: `postureops.yaml`, `prod/alert-channels.yaml`, `SECRETS.md`. */
  path: string;
  content: string;
}

export interface ExportResult {
  /** Sorted by path. */
  files: ExportFile[];
  /** Every variable the exported files reference, sorted by variable. */
  secrets: ExportedSecret[];
  /** Root settings the live state shows and postureops.yaml sets (e.g. a vendor's profile prefix). */
  settings: JsonObject;
  diagnostics: Diagnostic[];
}

export interface ExportOptions {
  /** Accounts to export, in the order postureops.yaml lists them; the first is the default. */
  accounts: AccountConfig[];
  kinds?: readonly Kind[];
  /** Kinds to export (kind or document kind names); all document kinds when absent or empty. */
  kindNames?: string[];
  /**
   * Schema check of a document (config's validation, handed in) under the root file's
   * `serviceValues`: with it, every exported document validates; members it refuses are left out with
   * a warning (export-fit.ts).
   */
  check?: (doc: JsonObject, serviceValues?: ServiceValues) => Diagnostic[];
  /**
   * The closed-set values of a document a file would take for misspellings (config's, handed in):
   * live values, so the service's own; export lists them in `serviceValues` of postureops.yaml.
   */
  misspelt?: (doc: JsonObject) => readonly { label: string; value: string; pointer: string }[];
}

/** The closed-set values of `docs` close to known ones, by set label (`serviceValues`), sorted. */
function serviceValuesOf(docs: readonly FileDocument[], misspelt: NonNullable<ExportOptions['misspelt']>): Record<string, string[]> {
  const found = new Map<string, Set<string>>();
  for (const doc of docs) {
    for (const m of misspelt({ kind: doc.kind, name: doc.name, account: doc.account, spec: doc.spec })) {
      // postureops.yaml never reads the environment: such text cannot be listed there.
      if (m.value.includes('${')) continue;
      found.set(m.label, (found.get(m.label) ?? new Set()).add(m.value));
    }
  }
  return Object.fromEntries([...found].sort((a, b) => compareText(a[0], b[0])).map(([label, values]) => [label, [...values].sort(compareText)]));
}

/** Secret values shorter than this are not searched for in the output (they would match anything). */
const MIN_SECRET_SCAN = 4;

interface Entry {
  account: string;
  kind: Kind;
  live: LiveResource;
  doc: FileDocument;
  slots: SecretSlot[];
  /** The kind's notes on the document (Kind.toDocument). */
  notes: Diagnostic[];
}

export function exportConfig(live: LiveState, options: ExportOptions): ExportResult {
  const kinds = options.kinds ?? KINDS;
  const diagnostics: Diagnostic[] = [];
  if (options.accounts.length === 0) {
    diagnostics.push({ severity: 'error', code: 'no-accounts', message: 'nothing to export: no account was given' });
    return { files: [], secrets: [], settings: {}, diagnostics };
  }
  // Settings first: they decide which live resources are the service's own (export-settings.ts).
  const shown = liveSettings(live.resources, kinds, options.accounts.map((a) => a.name));
  const { settings } = shown;
  diagnostics.push(...shown.diagnostics);
  const selected = selectKinds(kinds, options.kindNames, diagnostics);
  const skipped: SkippedResource[] = [];
  const entries: Entry[] = [];

  for (const account of options.accounts) {
    for (const kind of selected) {
      const records = shown.resources.filter((r) => r.kind === kind.kind && r.account === account.name && !r.managedByService);
      const held = new Map<LiveResource, readonly LiveResource[]>();
      const own = kind.export?.documentOf ? documentsOf(records, kind.export.documentOf, held) : records;
      const byName = new Map<string, LiveResource[]>();
      for (const r of own) byName.set(r.name, [...(byName.get(r.name) ?? []), r]);
      for (const [name, group] of [...byName].sort((a, b) => compareText(a[0], b[0]))) {
        const where = `${kind.kind} "${name}" in account ${account.name}`;
        const ids = group.map((r) => r.id).sort(compareText);
        if (name.trim() === '') {
          const reason = `its name is empty or only spaces (id${ids.length > 1 ? 's' : ''} ${ids.join(', ')})`;
          diagnostics.push({ severity: 'error', code: 'invalid-live-name', message: `${where}: ${reason}; left out of the export`, hint: 'give it a name in the service, then export again' });
          skipped.push({ account: account.name, kind: kind.kind, name, reason });
          continue;
        }
        if (group.length > 1) {
          const reason = `${group.length} live resources share this name (ids ${ids.join(', ')})`;
          diagnostics.push({
            severity: 'error',
            code: 'duplicate-live-name',
            message: `${where}: ${reason}; left out of the export`,
            hint: 'names identify resources: rename or delete the extra copies in the service, then export again',
          });
          skipped.push({ account: account.name, kind: kind.kind, name, reason });
          continue;
        }
        const entry = toEntry(kinds, kind, group[0], shown.resources, held.get(group[0]));
        if (entry) entries.push(entry);
        if (entry) diagnostics.push(...entry.notes);
      }
    }
  }

  // Live values a file would take for misspellings are the service's: listed in `serviceValues`, so
  // that the export validates and plans with them.
  const serviceValues = options.misspelt ? serviceValuesOf(entries.map((e) => e.doc), options.misspelt) : {};
  const given = options.check;
  const check: DocumentCheck | undefined = given ? (doc) => given(doc, serviceValues) : undefined;
  /** A record this export does not write, with a warning and its line in SECRETS.md. */
  const leaveOut = (entry: Entry, reason: string, hint: string): void => {
    diagnostics.push({ severity: 'warning', code: 'export-resource-left-out', message: `${entry.kind.kind} "${entry.live.name}" in account ${entry.account}: ${reason}; left out of the export`, hint });
    skipped.push({ account: entry.account, kind: entry.kind.kind, name: entry.live.name, reason });
  };
  // Variables are named across the whole export, so collisions resolve the same way every time.
  const secrets = assignVariables(entries.flatMap((e) => e.slots));
  const exported: Entry[] = [];
  for (const entry of entries) {
    const mine = secrets.filter((s) => s.account === entry.account && s.kind === entry.kind.kind && s.name === entry.live.name);
    // A secret the service holds in a form it now refuses (a legacy record): no variable could hold
    // it for a file that validates, so the record is left out, said with the rule (never the value).
    const refusedSecret = check ? secretRuleProblems(entry, mine, check) : [];
    if (refusedSecret.length > 0) {
      const fields = refusedSecret.map((p) => `spec${p.field!.slice('/spec'.length)}`).join(', ');
      leaveOut(entry, `its ${fields} breaks a rule of the service (${refusedSecret.map((p) => p.message).join('; ')}): a legacy record`, 'fix it in the service (the service keeps it as it is), then export again');
      continue;
    }
    for (const s of mine) entry.doc.spec = setAt(entry.doc.spec, s.field, `\${env:${s.variable}}`);
    const leak = leakedSecret(entry);
    if (leak) {
      const reason = `a secret value would appear at spec${leak} of the exported document`;
      diagnostics.push({ severity: 'error', code: 'secret-in-export', message: `${entry.kind.kind} "${entry.live.name}" in account ${entry.account}: ${reason}; left out of the export` });
      skipped.push({ account: entry.account, kind: entry.kind.kind, name: entry.live.name, reason });
      continue;
    }
    const refused = kindProblems(entry, settings);
    if (refused.length > 0) {
      leaveOut(entry, `it does not pass the checks of ${entry.kind.kind}: ${refused.map((p) => p.message).join('; ')}`, 'manage it in the service, or write its document by hand');
      continue;
    }
    if (check) {
      const fitted = fitDocument(entry.doc, check);
      diagnostics.push(...fitted.diagnostics);
      if (fitted.spec === undefined) {
        skipped.push({ account: entry.account, kind: entry.kind.kind, name: entry.live.name, reason: fitted.reason ?? 'it does not validate' });
        continue;
      }
      entry.doc.spec = fitted.spec;
    }
    diagnostics.push(...envLikeText(entry, new Set(mine.map((s) => s.field))));
    exported.push(entry);
  }
  const exportedSecrets = secrets.filter((s) => exported.some((e) => e.account === s.account && e.kind.kind === s.kind && e.live.name === s.name));
  diagnostics.push(...missingReferences(exported, live.resources));
  // Only what the written documents hold: a record left out needs no listing.
  const written = options.misspelt ? serviceValuesOf(exported.map((e) => e.doc), options.misspelt) : {};
  if (Object.keys(written).length > 0) settings.serviceValues = written;
  for (const e of options.misspelt ? exported : []) {
    for (const m of options.misspelt!({ kind: e.doc.kind, name: e.doc.name, account: e.doc.account, spec: e.doc.spec })) {
      if (!written[m.label]?.includes(m.value)) continue;
      diagnostics.push({
        severity: 'warning',
        code: 'export-service-value',
        message: `${e.kind.kind} "${e.live.name}" in account ${e.account}: spec${m.pointer.slice('/spec'.length)} holds the ${m.label} \`${m.value}\`, close to a known one but the service's: listed in serviceValues of postureops.yaml, so that validate carries it rather than take it for a misspelling`,
        field: m.pointer,
        hint: 'a newer postureops may know it; until then it is carried as written',
      });
    }
  }

  const folders = accountFolders(options.accounts);
  const files: { path: string; content: string }[] = [
    { path: ROOT_FILE, content: rootFile(options.accounts, settings, exportedSecrets.map((s) => s.variable)) },
    { path: SECRETS_FILE, content: secretsNote(options.accounts.map((a) => a.name), exportedSecrets, skipped) },
  ];
  for (const account of options.accounts) {
    for (const kind of selected) {
      const docs = exported
        .filter((e) => e.account === account.name && e.kind === kind)
        .map((e) => e.doc)
        .sort((a, b) => compareText(a.name, b.name));
      if (docs.length === 0) continue;
      files.push({ path: `${folders.get(account.name)}/${kindFileStem(kind.documentKind ?? kind.kind)}.yaml`, content: documentsFile(docs) });
    }
  }
  files.sort((a, b) => compareText(a.path, b.path));
  return {
    files,
    secrets: exportedSecrets.sort((a, b) => compareText(a.variable, b.variable)),
    settings,
    diagnostics: sortDiagnostics(diagnostics),
  };
}

/**
 * The kind's own offline checks of the document as exported (ids, bases, templates), under the
 * settings the export writes: errors mean `validate` would refuse the folder.
 */
function kindProblems(entry: Entry, settings: JsonObject): Diagnostic[] {
  const doc: JsonObject = { kind: entry.doc.kind, name: entry.doc.name, account: entry.doc.account, spec: entry.doc.spec };
  return (entry.kind.documents?.check?.(doc, (pointer) => ({ field: pointer }), settings) ?? []).filter((d) => d.severity === 'error');
}

/** Document kinds to export; a kind without documents (AlertTemplate) selects its owner. */
function selectKinds(kinds: readonly Kind[], names: readonly string[] | undefined, diagnostics: Diagnostic[]): Kind[] {
  const documentKinds = kinds.filter((k) => k.documentKind !== null);
  if (names === undefined || names.length === 0) return documentKinds;
  const wanted = new Set<Kind>();
  for (const name of names) {
    const kind = kinds.find((k) => k.kind === name || k.documentKind === name);
    const owner = kind && kind.documentKind === null ? kinds.find((k) => k.kind === kind.hierarchy?.parentKind) : kind;
    if (owner && owner.documentKind !== null) wanted.add(owner);
    else
      diagnostics.push({
        severity: 'error',
        code: 'unknown-kind',
        message: `cannot export kind "${name}"`,
        hint: `expected one of: ${documentKinds.map((k) => k.kind).join(', ')}`,
      });
  }
  return documentKinds.filter((k) => wanted.has(k));
}

/**
 * One stand-in per document of a kind whose documents hold several records (ExportCapability.documentOf):
 * named as the document, the records it holds put in `held` under it.
 */
function documentsOf(records: readonly LiveResource[], documentOf: (live: LiveResource) => string, held: Map<LiveResource, readonly LiveResource[]>): LiveResource[] {
  const groups = new Map<string, LiveResource[]>();
  for (const r of records) groups.set(documentOf(r), [...(groups.get(documentOf(r)) ?? []), r]);
  return [...groups].map(([name, group]) => {
    const standIn: LiveResource = { kind: group[0].kind, account: group[0].account, name, id: name, spec: {} };
    held.set(standIn, group);
    return standIn;
  });
}

function toEntry(kinds: readonly Kind[], kind: Kind, live: LiveResource, all: readonly LiveResource[], records?: readonly LiveResource[]): Entry | undefined {
  const childKinds = new Set(kinds.filter((k) => k.hierarchy?.parentKind === kind.kind).map((k) => k.kind));
  const children =
    records ?? all.filter((c) => childKinds.has(c.kind) && c.account === live.account && c.parent !== undefined && (c.parent === live.name || c.parent === live.id));
  const exported = (kind.export?.toDocument(live, children) ?? null);
  if (exported === null) return undefined;
  // The service's text is never a reference: escaped before the secrets become references.
  const spec = escapeLiveText(exported.spec) as JsonObject;
  // A member the service never returns is exported like a write-only secret: a variable to set.
  const writeOnly = new Set([...(kind.secrets?.writeOnly?.(live.spec) ?? []), ...(kind.secrets?.unreturned?.(live.spec) ?? [])]);
  const pointers = [...new Set([...writeOnly, ...(kind.secrets?.sensitive?.(live.spec) ?? [])])].sort(compareText);
  return {
    account: live.account,
    kind,
    live,
    doc: { kind: exported.kind, name: live.name, account: live.account, spec },
    slots: pointers.map((field) => ({ account: live.account, kind: kind.kind, name: live.name, field, writeOnly: writeOnly.has(field) })),
    notes: exported.notes ?? [],
  };
}

/** The check's errors at the secret members of a document holding their live values (messages never quote them: the check is quiet). */
function secretRuleProblems(entry: Entry, mine: readonly ExportedSecret[], check: DocumentCheck): Diagnostic[] {
  // Only values the service showed: a write-only secret it never returns, or one it masks, is no legacy value.
  const shown = mine.filter((s) => {
    const v = getAt(entry.doc.spec, s.field);
    return typeof v === 'string' && v !== '' && !isMaskedValue(v);
  });
  const fields = new Set(shown.map((s) => `/spec${s.field}`));
  if (fields.size === 0) return [];
  return check({ kind: entry.doc.kind, name: entry.doc.name, account: entry.doc.account, spec: entry.doc.spec }).filter(
    (p) => p.severity === 'error' && p.code !== 'missing-field' && p.field !== undefined && fields.has(p.field),
  );
}

/** Every string of a JSON value with its pointer. */
function strings(value: Json, pointer = ''): [string, string][] {
  if (typeof value === 'string') return [[pointer, value]];
  if (value === null || typeof value !== 'object') return [];
  const members: [string | number, Json][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  return members.flatMap(([k, v]) => strings(v, pointer + toPointer([k])));
}

/** Defence in depth: a secret the live state holds must not surface anywhere in the document. */
function leakedSecret(entry: Entry): string | undefined {
  const values = entry.slots
    .map((s) => getAt(entry.live.spec, s.field))
    // A mask (what the service showed, or postureops keeps for a secret it never read) is no secret.
    .filter((v): v is string => typeof v === 'string' && v.length >= MIN_SECRET_SCAN && !isMaskedValue(v));
  if (values.length === 0) return undefined;
  return strings(entry.doc.spec).find(([, text]) => values.some((v) => text.includes(v)))?.[0];
}

/** A live value holding `${env:` is written escaped (`$${env:`): said, so the file is not a surprise. */
function envLikeText(entry: Entry, secretFields: Set<string>): Diagnostic[] {
  return strings(entry.doc.spec)
    .filter(([ptr, text]) => !secretFields.has(ptr) && text.includes('$${env:'))
    .map(([ptr]) => ({
      severity: 'warning' as const,
      code: 'env-like-live-value',
      message: `${entry.kind.kind} "${entry.live.name}" in account ${entry.account}: spec${ptr} holds the text "\${env:", written escaped as "$\${env:" (the literal text, never an environment reference)`,
      field: `/spec${ptr}`,
      hint: 'check that the service should hold that text: someone may have tried to make postureops send a secret',
    }));
}

/**
 * References to resources this export does not write would not validate: say so now. The service's
 * own resources (default groups) are named without being declared, so they are never missing. An id
 * the live read could not map (the account lists nothing with it) is written as the id: plan keeps it.
 */
function missingReferences(exported: readonly Entry[], live: readonly LiveResource[]): Diagnostic[] {
  const present = new Set([
    ...exported.map((e) => JSON.stringify([e.account, e.kind.kind, e.live.name])),
    ...live.filter((r) => r.managedByService).map((r) => JSON.stringify([r.account, r.kind, r.name])),
  ]);
  const listed = new Set(live.map((r) => JSON.stringify([r.account, r.kind, r.name])));
  const out: Diagnostic[] = [];
  for (const e of exported) {
    for (const ref of (e.kind.references ?? [])) {
      const value = getAt(e.live.spec, ref.pointer);
      const names = Array.isArray(value) ? value : value === undefined ? [] : [value];
      for (const name of names) {
        if (typeof name !== 'string' || present.has(JSON.stringify([e.account, ref.kind, name]))) continue;
        if (!listed.has(JSON.stringify([e.account, ref.kind, name]))) {
          // The live read maps every id it can to a name: this one names nothing the account lists.
          out.push({
            severity: 'warning',
            code: 'reference-kept-as-id',
            message: `${e.kind.kind} "${e.live.name}" in account ${e.account} names ${ref.kind} ${name}, which the account does not list: written as the id the service holds, and plan keeps it`,
            hint: `remove it from the ${e.kind.kind} (in the service or the file) if the ${ref.kind} is gone`,
          });
          continue;
        }
        out.push({
          severity: 'warning',
          code: 'reference-not-exported',
          message: `${e.kind.kind} "${e.live.name}" in account ${e.account} names ${ref.kind} "${name}", which this export does not write`,
          hint: `add that ${ref.kind} to the folder before planning on it`,
        });
      }
    }
  }
  return out;
}
