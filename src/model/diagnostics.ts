// One problem type from the YAML loader to the GitHub annotations: collected, never thrown one at a time.
import type { DiagnosticCode } from './diagnostic-codes.js';

export type Severity = 'error' | 'warning';

export interface SourcePosition {
  file: string;
  line: number; // 1-based
  column: number; // 1-based
}

export interface Diagnostic {
  severity: Severity;
  /** Stable machine code, kebab-case, e.g. `unknown-field`, `duplicate-resource`. */
  code: DiagnosticCode;
  /** What is wrong, for a person. Never contains a secret value. */
  message: string;
  file?: string;
  line?: number;
  column?: number;
  /** JSON pointer of the offending field inside the document, when there is one. */
  field?: string;
  /** What to do about it ("did you mean ...", "expected ..."). */
  hint?: string;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/** Sorted by file, line, column, then code: stable output for people and golden tests. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort(
    (a, b) =>
      (a.file ?? '').localeCompare(b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0) ||
      a.code.localeCompare(b.code) ||
      a.message.localeCompare(b.message),
  );
}

export function formatLocation(d: Pick<Diagnostic, 'file' | 'line' | 'column'>): string {
  if (!d.file) return '';
  if (d.line === undefined) return d.file;
  return d.column === undefined ? `${d.file}:${d.line}` : `${d.file}:${d.line}:${d.column}`;
}

/** Carries diagnostics from deep in the pipeline to the CLI, which prints them and exits 1. */
export class DiagnosticsError extends Error {
  constructor(readonly diagnostics: Diagnostic[]) {
    super(diagnostics.map((d) => d.message).join('; '));
    this.name = 'DiagnosticsError';
  }
}
