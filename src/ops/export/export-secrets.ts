// Export never writes a secret: each one becomes `${env:VAR}` with a deterministic variable name,
// and SECRETS.md tells the user which variables to provide.

import { parsePointer } from '../../model/json-pointer.js';
import { compareText } from '../../model/compare.js';
import { ROOT_FILE } from './export-yaml.js';

export interface ExportedSecret {
  /** Environment variable the exported file references as `${env:VARIABLE}`. */
  variable: string;
  account: string;
  kind: string;
  name: string;
  /** JSON pointer into the document's `spec`, e.g. `/data/slackUrl`. */
  field: string;
  /** Write-only (never returned by the service, never compared) rather than returned in clear and compared. */
  writeOnly: boolean;
}

/** A resource export left out, for the note. */
export interface SkippedResource {
  account: string;
  kind: string;
  name: string;
  reason: string;
}

/** `opsSlack-2` → `OPS_SLACK_2`. */
export function upperSnake(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_');
}

/**
 * `SECRET_<ACCOUNT>_<NAME>_<FIELD>`, FIELD being the last member of the pointer: a prefix no
 * configuration is forbidden to read (postureops' own `SVC_*` is), so the export can declare it.
 */
export function baseVariable(account: string, name: string, pointer: string): string {
  const segments = parsePointer(pointer);
  const field = segments[segments.length - 1] ?? 'SECRET';
  return ['SECRET', upperSnake(account), upperSnake(name), upperSnake(field)]
    .join('_')
    .replace(/_+/g, '_')
    .replace(/_$/, '');
}

export type SecretSlot = Omit<ExportedSecret, 'variable'>;

/**
 * Assigns each slot its variable: the base name, or on a collision `_2`, `_3`... in sorted order
 * of (base, account, kind, name, field), so the same live state always gets the same names.
 */
export function assignVariables(slots: readonly SecretSlot[]): ExportedSecret[] {
  const withBase = slots.map((slot) => ({ slot, base: baseVariable(slot.account, slot.name, slot.field) }));
  withBase.sort(
    (x, y) =>
      compareText(x.base, y.base) ||
      compareText(x.slot.account, y.slot.account) ||
      compareText(x.slot.kind, y.slot.kind) ||
      compareText(x.slot.name, y.slot.name) ||
      compareText(x.slot.field, y.slot.field),
  );
  const used = new Set<string>();
  return withBase.map(({ slot, base }) => {
    let variable = base;
    for (let n = 2; used.has(variable); n++) variable = `${base}_${n}`;
    used.add(variable);
    return { variable, ...slot };
  });
}

function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/`/g, '\\`').replace(/[\r\n]+/g, ' ');
}

/** The note written next to the export: which variables to provide, and what was left out. */
export function secretsNote(accounts: readonly string[], secrets: readonly ExportedSecret[], skipped: readonly SkippedResource[]): string {
  const lines = [
    '# Secrets of this export',
    '',
    'postureops wrote no secret value into this folder: every secret of the service is referenced as',
    '`${env:VARIABLE}` and must be provided in the environment, or in a `.env` file beside `postureops.yaml`',
    '(or named with `--dotenv FILE`), before `postureops plan` or `apply` runs here. `postureops export',
    '--dotenv-out FILE` writes such a file (mode 0600) with the current values of the compared secrets.',
    '',
  ];
  if (secrets.length === 0) {
    lines.push('None of the exported resources has a secret: no variables are needed.', '');
  } else {
    lines.push(
      '- **compared**: the service returns the value, so plan compares it. Set the variable to the value the',
      '  service has now (for example the Slack URL), or the first plan shows an update.',
      '- **write-only**: the service never returns the value, so plan does not compare it. Any value lets plan run',
      '  (`export --dotenv-out` writes a placeholder that apply refuses to send);',
      '  the real one is sent when the resource is created or replaced, or rotated with `--rotate`. In a type',
      '  postureops does not know, every member named as a secret (password, token, apiKey, clientSecret...) and',
      '  every member the service shows masked is write-only, even where the service returns it in clear.',
      '',
    );
    for (const account of accounts) {
      const own = secrets.filter((s) => s.account === account);
      if (own.length === 0) continue;
      lines.push(`## Account ${cell(account)}`, '', '| Variable | Kind | Resource | Field | Secret |', '|---|---|---|---|---|');
      const sorted = [...own].sort((a, b) => compareText(a.kind, b.kind) || compareText(a.name, b.name) || compareText(a.field, b.field));
      for (const s of sorted) {
        lines.push(`| \`${s.variable}\` | ${s.kind} | ${cell(s.name)} | \`${cell(s.field)}\` | ${s.writeOnly ? 'write-only' : 'compared'} |`);
      }
      lines.push('');
    }
  }
  if (skipped.length > 0) {
    lines.push(
      '## Left out of this export',
      '',
      `These live resources are not in any file: they cannot be managed by name as they are. Rename them in the`,
      `service (or delete the extra copies), then export again. Until then \`${ROOT_FILE}\` keeps prune off, so`,
      'plan leaves them alone.',
      '',
    );
    for (const s of skipped) lines.push(`- account ${cell(s.account)}, ${s.kind} "${cell(s.name)}": ${cell(s.reason)}`);
    lines.push('');
  }
  return lines.join('\n');
}
