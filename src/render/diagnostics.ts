// Diagnostics for people (text), programs (json) and GitHub Actions (workflow commands).
// Pure formatting: messages never hold secret values, and nothing here adds any. Messages quote file
// content, so each value is neutralised for its medium (src/model/inert.ts) before colour is added.

import { type Diagnostic, formatLocation } from '../model/diagnostics.js';
import { escapeCommandData, escapeCommandProperty, inertJson, inertText } from '../model/inert.js';
import { palette } from './ansi.js';
import { type ReadValues, renderMasked } from '../model/read-values.js';

export type DiagnosticsFormat = 'text' | 'json' | 'github';

export const DIAGNOSTICS_FORMAT_VERSION = 1;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function summarize(diags: readonly Diagnostic[]): { errors: number; warnings: number; files: number } {
  return {
    errors: diags.filter((d) => d.severity === 'error').length,
    warnings: diags.filter((d) => d.severity === 'warning').length,
    files: new Set(diags.filter((d) => d.file).map((d) => d.file)).size,
  };
}

function renderText(diags: readonly Diagnostic[], color: boolean): string {
  if (diags.length === 0) return '';
  const c = palette(color);
  const paint = (code: 'red' | 'yellow' | 'bold' | 'dim', s: string): string => c[code](s);
  const lines: string[] = [];
  for (const d of diags) {
    const where = inertText(formatLocation(d));
    const label = d.severity === 'error' ? paint('red', `error[${inertText(d.code)}]`) : paint('yellow', `warning[${inertText(d.code)}]`);
    lines.push(`${where ? paint('bold', where) + ': ' : ''}${label}: ${inertText(d.message)}`);
    if (d.hint) lines.push(`  ${paint('dim', '= hint:')} ${inertText(d.hint)}`);
  }
  const s = summarize(diags);
  const inFiles = s.files > 0 ? ` in ${plural(s.files, 'file')}` : '';
  lines.push(`${plural(s.errors, 'error')}, ${plural(s.warnings, 'warning')}${inFiles}`);
  return lines.join('\n') + '\n';
}

function renderJson(diags: readonly Diagnostic[]): string {
  const s = summarize(diags);
  const doc = {
    formatVersion: DIAGNOSTICS_FORMAT_VERSION,
    valid: s.errors === 0,
    summary: { errors: s.errors, warnings: s.warnings },
    diagnostics: diags,
  };
  return inertJson(JSON.stringify(doc, null, 2)) + '\n';
}

function renderGithub(diags: readonly Diagnostic[]): string {
  const lines = diags.map((d) => {
    const props: string[] = [];
    if (d.file) props.push(`file=${escapeCommandProperty(inertText(d.file))}`);
    if (d.file && d.line !== undefined) props.push(`line=${d.line}`);
    if (d.file && d.column !== undefined) props.push(`col=${d.column}`);
    props.push(`title=${escapeCommandProperty(inertText(d.code))}`);
    const text = d.hint ? `${inertText(d.message)}\n${inertText(d.hint)}` : inertText(d.message);
    return `::${d.severity === 'error' ? 'error' : 'warning'} ${props.join(',')}::${escapeCommandData(text)}`;
  });
  return lines.length > 0 ? lines.join('\n') + '\n' : '';
}

/** `secrets`: the values the run read from the environment, masked before any escaping. */
export function renderDiagnostics(diags: Diagnostic[], format: DiagnosticsFormat, options: { color: boolean; secrets?: ReadValues }): string {
  return renderMasked(options.secrets, diags, (d) => {
    switch (format) {
      case 'text':
        return renderText(d, options.color);
      case 'json':
        return renderJson(d);
      case 'github':
        return renderGithub(d);
    }
  });
}
