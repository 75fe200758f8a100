// Arrows only run down: every import of every file under src/ and cmd/ goes to a layer its own layer
// may use, and breaks no `never` rule. The rules are data, in docs/layers.yaml.

import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Folder {
  holds: string;
  /** Folders it may import: its own part's by name, another grouped part's as `part/folder`. */
  may: string[];
}

interface Rules {
  parts: Record<string, { holds: string; may: string[]; folders?: Record<string, Folder>; top?: string[] }>;
  never: { from: string; to: string; except?: string[]; why: string }[];
  exceptions?: { from: string; file: string; why: string }[];
  /** Files (or folders, ending in `/`) that some parts never import, whatever `may` says. */
  neverFiles?: { from: string[]; to: string[]; why: string }[];
  /** Parts that perform no I/O, and the only modules (outside the parts they may use) they import. */
  pure?: { parts: string[]; modules: string[] };
}

/** The layer rules, as docs/layers.yaml writes them down. */
const RULES = parse(readFileSync(path.join(REPO, 'docs/layers.yaml'), 'utf8')) as Rules;
const ALLOWED: Record<string, readonly string[]> = Object.fromEntries(Object.entries(RULES.parts).map(([part, p]) => [part, p.may]));

/** The `never` rule an arrow breaks, if any. */
function forbidden(from: string, to: string): Rules['never'][number] | undefined {
  return RULES.never.find((r) => (r.from === '*' || r.from === from) && (r.to === '*' || r.to === to) && from !== to && !r.except?.includes(from));
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(REPO, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(rel));
    else if (entry.name.endsWith('.ts')) out.push(rel);
  }
  return out;
}

/** The text of a repository file (a test plants files by passing its own reader). */
type Reader = (file: string) => string;
const readRepo: Reader = (file) => readFileSync(path.join(REPO, file), 'utf8');

/** Every import specifier of a file (static, type-only, re-export, side-effect, dynamic). */
function specifiersOf(file: string, read: Reader = readRepo): string[] {
  const text = read(file);
  return [
    ...[...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1]),
    ...[...text.matchAll(/^\s*import\s+'([^']+)'/gm)].map((m) => m[1]),
    ...[...text.matchAll(/import\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]),
  ];
}

/** Every relative import of a file, as repository paths. */
function importsOf(file: string, read: Reader = readRepo): string[] {
  return specifiersOf(file, read)
    .filter((s) => s.startsWith('.'))
    .map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(file), s)).replace(/\.js$/, '.ts'));
}

function layerOf(file: string): string {
  if (file.startsWith('cmd/')) return 'cmd';
  const m = /^src\/([^/]+)\//.exec(file);
  if (!m) throw new Error(`${file} is in no layer: files under src/ live in a layer folder`);
  return m[1];
}

const FILES = [...sourceFiles('src'), ...sourceFiles('cmd')];

/** `part/folder` of a file in a part grouped by folders, else undefined. */
function folderOf(file: string, rules: Rules): string | undefined {
  const m = /^src\/([^/]+)\/([^/]+)\//.exec(file);
  return m && rules.parts[m[1]]?.folders?.[m[2]] ? `${m[1]}/${m[2]}` : undefined;
}

/** Arrows between folders of grouped parts that no folder's `may` allows (folder to folder). */
function folderViolations(files: readonly string[], rules: Rules, read: Reader = readRepo): string[] {
  const bad: string[] = [];
  for (const file of files) {
    const from = folderOf(file, rules);
    if (!from) continue;
    const [part, folder] = from.split('/');
    const may = rules.parts[part].folders![folder].may.map((f) => (f.includes('/') ? f : `${part}/${f}`));
    for (const dep of importsOf(file, read)) {
      const to = folderOf(dep, rules);
      if (to && to !== from && !may.includes(to)) bad.push(`${file} → ${dep} (${from} may not import ${to})`);
    }
  }
  return bad;
}

const NODE_BUILTINS = new Set(builtinModules);

/** Imports of a pure part's files that may perform I/O: a module outside the part's `may` and `pure.modules`. */
function ioViolations(files: readonly string[], rules: Rules, read: Reader = readRepo): string[] {
  const pure = rules.pure ?? { parts: [], modules: [] };
  const bad: string[] = [];
  for (const file of files.filter((f) => pure.parts.includes(layerOf(f)))) {
    for (const spec of specifiersOf(file, read).filter((s) => !s.startsWith('.'))) {
      // `fs` and `node:fs` are one module: a bare builtin name is checked under its node: name.
      const name = NODE_BUILTINS.has(spec) && !spec.startsWith('node:') ? `node:${spec}` : spec;
      if (!pure.modules.includes(name)) bad.push(`${file} → ${spec}`);
    }
  }
  return bad;
}

describe('layers', () => {
  it('every folder under src/ is a known layer', () => {
    const layers = readdirSync(path.join(REPO, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(layers.filter((l) => !(l in ALLOWED))).toEqual([]);
    expect(FILES.filter((f) => /^src\/[^/]+\.ts$/.test(f))).toEqual([]);
  });

  it.each(Object.keys(ALLOWED))('%s imports only what its layer may use', (layer) => {
    const own = FILES.filter((f) => layerOf(f) === layer);
    const bad: string[] = [];
    for (const file of own) {
      for (const dep of importsOf(file)) {
        const target = layerOf(dep);
        if (target === layer || RULES.exceptions?.some((x) => x.from === layer && x.file === dep)) continue;
        if (!ALLOWED[layer].includes(target)) bad.push(`${file} → ${dep}`);
        else if (forbidden(layer, target)) bad.push(`${file} → ${dep} (never: ${forbidden(layer, target)?.why})`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('no layer but src/kinds names a kind, in code or in strings (comments aside)', async () => {
    const { KINDS } = await import('../../src/kinds/index.js');
    const names = KINDS.map((k) => k.kind);
    expect(names.length).toBeGreaterThan(5);
    const named: string[] = [];
    for (const file of FILES.filter((f) => /^src\/(plan|ops|config|render|github)\//.test(f))) {
      const code = readFileSync(path.join(REPO, file), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
      // A name inside a hyphenated word (Content-Security-Policy) is no kind.
      for (const name of names) if (new RegExp(`(?<![\\w-])${name}(?![\\w-])`).test(code)) named.push(`${file}: ${name}`);
    }
    expect(named).toEqual([]);
  });

  it('no part imports a file its `neverFiles` rule names (the adapters create no client, read nothing, plan nothing)', () => {
    const rules = RULES.neverFiles ?? [];
    expect(rules.length).toBeGreaterThan(0);
    const bad: string[] = [];
    for (const file of FILES) {
      for (const rule of rules.filter((r) => r.from.includes(layerOf(file)))) {
        for (const dep of importsOf(file)) {
          if (rule.to.some((t) => (t.endsWith('/') ? dep.startsWith(t) : dep === t))) bad.push(`${file} → ${dep} (never: ${rule.why})`);
        }
      }
    }
    expect(bad).toEqual([]);
  });

  it('a part grouped by job keeps every file in one of its folders, and names no folder it lacks', () => {
    const grouped = Object.entries(RULES.parts).filter(([, p]) => p.folders);
    expect(grouped.map(([part]) => part)).toEqual(expect.arrayContaining(['plan', 'ops']));
    for (const [part, p] of grouped) {
      const base = `src/${part}/`;
      const stray = sourceFiles(base.slice(0, -1))
        .map((f) => f.slice(base.length))
        .filter((f) => (f.includes('/') ? !Object.keys(p.folders!).includes(f.split('/')[0]) : !(p.top ?? []).includes(f)));
      expect(stray, `files of src/${part} outside its folders (docs/layers.yaml)`).toEqual([]);
      const present = readdirSync(path.join(REPO, base), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
      expect(present.sort()).toEqual(Object.keys(p.folders!).sort());
    }
  });

  it('every file a `neverFiles` rule names exists (a moved file takes its rule along)', () => {
    const named = (RULES.neverFiles ?? []).flatMap((r) => r.to);
    const missing = named.filter((t) => (t.endsWith('/') ? !FILES.some((f) => f.startsWith(t)) : !FILES.includes(t)));
    expect(missing).toEqual([]);
    const parts = Object.keys(RULES.parts);
    expect((RULES.neverFiles ?? []).flatMap((r) => r.from).filter((p) => !parts.includes(p))).toEqual([]);
  });

  it('the rules file is consistent: every part named exists, no allowed arrow is a forbidden one', () => {
    const parts = Object.keys(RULES.parts);
    expect(parts.length).toBeGreaterThan(8);
    const named = [...Object.values(RULES.parts).flatMap((p) => p.may), ...RULES.never.flatMap((r) => [r.from, r.to, ...(r.except ?? [])]), ...(RULES.exceptions ?? []).map((x) => x.from)];
    expect(named.filter((n) => n !== '*' && !parts.includes(n))).toEqual([]);
    const contradictions = Object.entries(RULES.parts).flatMap(([from, p]) => p.may.filter((to) => forbidden(from, to)).map((to) => `${from} → ${to}`));
    expect(contradictions).toEqual([]);
    for (const r of RULES.never) expect(r.why.length).toBeGreaterThan(10);
  });

  it('every arrow between the folders of a grouped part is one a folder\'s `may` allows', () => {
    expect(folderViolations(FILES, RULES)).toEqual([]);
  });

  it('every folder `may` names a folder that exists', () => {
    const known = Object.entries(RULES.parts).flatMap(([part, p]) => Object.keys(p.folders ?? {}).map((f) => `${part}/${f}`));
    const named = Object.entries(RULES.parts).flatMap(([part, p]) =>
      Object.values(p.folders ?? {}).flatMap((f) => f.may.map((m) => (m.includes('/') ? m : `${part}/${m}`))),
    );
    expect(named.length).toBeGreaterThan(3);
    expect(named.filter((n) => !known.includes(n))).toEqual([]);
  });

  it('the pure half performs no I/O: its files import no Node module that touches files, sockets or processes', () => {
    expect(RULES.pure?.parts).toContain('plan');
    expect(ioViolations(FILES, RULES)).toEqual([]);
  });

  it('fails on a planted arrow between engine folders that docs/layers.yaml does not allow', () => {
    const planted: Record<string, string> = {
      // core is the bottom of the pure half: an import of a step is the cycle the folders broke.
      'src/plan/core/planted.ts': "import { scope } from '../steps/scope.js';\nimport { canonicalJson } from './digest.js';\n",
      // live drops the lease's records (allowed) but reaches the pre-flight above it (not allowed).
      'src/ops/live/planted.ts': "import { isLeaseRecord } from '../lease/lease-record.js';\nexport { preflight } from '../budget/preflight.js';\n",
      // a step that imports a saved-plan file: steps may import core only.
      'src/plan/steps/planted.ts': "const m = await import('../saved/plan-file.js');\n",
    };
    const read: Reader = (file) => planted[file] ?? readRepo(file);
    expect(folderViolations(Object.keys(planted), RULES, read)).toEqual([
      'src/plan/core/planted.ts → src/plan/steps/scope.ts (plan/core may not import plan/steps)',
      'src/ops/live/planted.ts → src/ops/budget/preflight.ts (ops/live may not import ops/budget)',
      'src/plan/steps/planted.ts → src/plan/saved/plan-file.ts (plan/steps may not import plan/saved)',
    ]);
    // An arrow between grouped parts' folders needs a `part/folder` entry, whatever the parts allow.
    const open: Rules = { ...RULES, parts: { ...RULES.parts, ops: { ...RULES.parts.ops, may: [...RULES.parts.ops.may, 'plan'] } } };
    const across = { 'src/ops/apply/planted.ts': "import { orderChanges } from '../../plan/core/order.js';\n" };
    expect(folderViolations(Object.keys(across), open, (f) => across[f as keyof typeof across] ?? readRepo(f))).toEqual([
      'src/ops/apply/planted.ts → src/plan/core/order.ts (ops/apply may not import plan/core)',
    ]);
  });

  it('fails on a planted I/O import in the pure half, with or without the node: prefix', () => {
    const planted: Record<string, string> = {
      'src/plan/saved/planted.ts': "import { readFile } from 'node:fs/promises';\nimport { createHash } from 'node:crypto';\n",
      'src/plan/core/planted.ts': "import { connect } from 'net';\nimport type { X } from 'undici';\n",
      // the operations half performs I/O: no finding there.
      'src/ops/export/planted.ts': "import { writeFile } from 'node:fs/promises';\n",
    };
    expect(ioViolations(Object.keys(planted), RULES, (f) => planted[f])).toEqual([
      'src/plan/saved/planted.ts → node:fs/promises',
      'src/plan/core/planted.ts → net',
      'src/plan/core/planted.ts → undici',
    ]);
  });

  it("the run layer is handed the rehearsal's emulator by the adapters and never imports it (issue 35)", () => {
    // Its own rule, so that widening `run.may` or the adapters' exception cannot quietly allow it.
    expect(RULES.never.filter((r) => r.from === 'run' && r.to === 'emulator' && r.except === undefined)).toHaveLength(1);
    expect(RULES.parts.run.may).not.toContain('emulator');
    // Planted: an import (or a type-only one) of the emulator from the run layer is an arrow the rules refuse.
    const planted = "import { startEmulator } from '../emulator/index.js';\nimport type { ReceivedRequest } from '../emulator/server.js';\n";
    const deps = importsOf('src/run/planted.ts', () => planted);
    expect(deps).toEqual(['src/emulator/index.ts', 'src/emulator/server.ts']);
    expect(deps.every((d) => forbidden('run', layerOf(d)) !== undefined)).toBe(true);
    // Both adapters hand it in: each imports the emulator, and the run layer's plan request takes it as `rehearse`.
    expect(importsOf('src/github/pipeline.ts')).toContain('src/emulator/index.ts');
    expect(readRepo('cmd/pipeline.ts')).toMatch(/import\('\.\.\/src\/emulator\/index\.js'\)/);
    expect(readRepo('src/run/plan-run.ts')).toContain('rehearse?: StartRehearsal');
    expect(importsOf('src/run/rehearse.ts').filter((d) => layerOf(d) === 'emulator')).toEqual([]);
  });

  it('finds the imports it checks', () => {
    // A parser that found nothing would pass every rule above.
    expect(importsOf('src/plan/steps/plan.ts').some((d) => d.startsWith('src/model/'))).toBe(true);
    expect(importsOf('src/plan/steps/plan.ts').some((d) => d.startsWith('src/plan/core/'))).toBe(true);
    expect(importsOf('cmd/main.ts').length).toBeGreaterThan(0);
    expect(specifiersOf('src/plan/core/digest.ts')).toContain('node:crypto');
  });
});
