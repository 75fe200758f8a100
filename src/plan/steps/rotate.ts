// Step "rotate": which matched resources `--rotate` selects. Write-only secrets are never compared,
// so pushing a new one must be asked for; a selector that selects nothing with such a secret is most
// likely a typo, hence a warning rather than silence.

import type { Diagnostic } from '../../model/diagnostics.js';
import { parseSelector, selects } from '../core/selectors.js';
import type { Match } from './shared.js';

export interface Rotation {
  /** Keys of the matched resources whose write-only secrets are pushed. */
  readonly keys: ReadonlySet<string>;
  readonly diagnostics: readonly Diagnostic[];
}

export function selectRotations(matches: readonly Match[], selectorTexts: readonly string[]): Rotation {
  const selectors = selectorTexts.map(parseSelector);
  const keys = new Set<string>();
  const used = new Set<string>();
  for (const { key, desired: d, kind } of matches) {
    const selecting = selectors.filter((s) => selects(s, d.account, d.kind, d.name));
    if (selecting.length === 0 || (kind.secrets?.writeOnly?.(d.spec) ?? []).length + (kind.secrets?.unreturned?.(d.spec).length ?? 0) === 0) continue;
    keys.add(key);
    for (const s of selecting) used.add(s.text);
  }
  const diagnostics: Diagnostic[] = selectors
    .filter((s) => !used.has(s.text))
    .map((s) => ({
      severity: 'warning',
      code: 'rotate-no-match',
      message: `--rotate ${s.text} selects no declared resource with write-only secrets`,
      hint: 'selectors look like [account/]Kind/name; * matches within a part',
    }));
  return { keys, diagnostics };
}
