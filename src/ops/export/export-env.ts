// `export --dotenv-out FILE`: the current values of the secrets the service returns in clear, as a
// dotenv text Node's parser reads back unchanged, so the first plan on an export has no changes.
// Write-only secrets cannot be read: their variables get a placeholder that plan accepts (it never
// compares write-only values) and apply refuses to send.

import { getAt } from '../../model/json-pointer.js';
import type { ExportedSecret } from './export-secrets.js';
import type { LiveState } from '../../model/live.js';
import { WRITE_ONLY_PLACEHOLDER } from '../../model/env-markers.js';

export interface EnvEntry {
  variable: string;
  /** Undefined for a write-only secret: the service never returns it. */
  value?: string;
}

/** One entry per exported secret, in the order given; values from the live records. */
export function exportEnvEntries(live: LiveState, secrets: readonly ExportedSecret[]): EnvEntry[] {
  return secrets.map((s) => {
    if (s.writeOnly) return { variable: s.variable };
    const record = live.resources.find((r) => r.account === s.account && r.kind === s.kind && r.name === s.name);
    const value = record ? getAt(record.spec, s.field) : undefined;
    return { variable: s.variable, value: typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value) };
  });
}

/**
 * `value` quoted so that util.parseEnv gives it back: single quotes take everything literally but a
 * newline or a single quote; backticks the same but a backtick; double quotes turn `\n` into a newline.
 * Undefined when no quoting round-trips (a value with a newline and every kind of quote).
 */
export function quoteEnvValue(value: string): string | undefined {
  if (!value.includes('\n') && !value.includes('\r')) {
    if (!value.includes("'")) return `'${value}'`;
    if (!value.includes('`')) return `\`${value}\``;
  }
  if (!value.includes('"') && !value.includes('\\n') && !value.includes('\r')) return `"${value.replace(/\n/g, '\\n')}"`;
  return undefined;
}

export interface EnvFile {
  text: string;
  /** Variables whose value no quoting can carry (left empty, with a note in the file). */
  unwritable: string[];
}

export function envFileText(entries: readonly EnvEntry[]): EnvFile {
  const lines = [
    '# Written by `postureops export --dotenv-out`: values of the secrets this export references.',
    '# Keep this file out of version control. The environment wins over it.',
    '',
  ];
  const unwritable: string[] = [];
  for (const e of entries) {
    if (e.value === undefined) {
      lines.push('# write-only: the service never returns it. Plan runs with this placeholder; apply refuses to send it: set the real value first', `${e.variable}=${WRITE_ONLY_PLACEHOLDER}`);
      continue;
    }
    const quoted = quoteEnvValue(e.value);
    if (quoted === undefined) {
      unwritable.push(e.variable);
      lines.push('# its value cannot be written in a .env file: set it in the environment', `${e.variable}=`);
    } else {
      lines.push(`${e.variable}=${quoted}`);
    }
  }
  return { text: lines.join('\n') + '\n', unwritable };
}
