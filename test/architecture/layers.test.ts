// Arrows only run down: every import of every file under src/ and cmd/ goes to a layer its own layer
// may use, and breaks no `never` rule. The rules are data, in docs/layers.yaml.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Rules {
  parts: Record<string, { holds: string; may: string[]; folders?: Record<string, string>; top?: string[] }>;
  never: { from: string; to: string; except?: string[]; why: string }[];
  exceptions?: { from: string; file: string; why: string }[];
  /** Files (or folders, ending in `/`) that some parts never import, whatever `may` says. */
  neverFiles?: { from: string[]; to: string[]; why: string }[];
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

/** Every relative import of a file (static, type-only, re-export, dynamic), as repository paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(REPO, file), 'utf8');
  const specs = [
    ...[...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1]),
    ...[...text.matchAll(/^\s*import\s+'([^']+)'/gm)].map((m) => m[1]),
    ...[...text.matchAll(/import\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]),
  ];
  return specs.filter((s) => s.startsWith('.')).map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(file), s)).replace(/\.js$/, '.ts'));
}

function layerOf(file: string): string {
  if (file.startsWith('cmd/')) return 'cmd';
  const m = /^src\/([^/]+)\//.exec(file);
  if (!m) throw new Error(`${file} is in no layer: files under src/ live in a layer folder`);
  return m[1];
}

const FILES = [...sourceFiles('src'), ...sourceFiles('cmd')];

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
      for (const name of names) if (new RegExp(`\\b${name}\\b`).test(code)) named.push(`${file}: ${name}`);
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

  it('finds the imports it checks', () => {
    // A parser that found nothing would pass every rule above.
    expect(importsOf('src/plan/steps/plan.ts').some((d) => d.startsWith('src/model/'))).toBe(true);
    expect(importsOf('cmd/main.ts').length).toBeGreaterThan(0);
  });
});
