// Severities of alert and report rules: the service's integers and their names in configuration files.

import type { Diagnostic } from '../../model/diagnostics.js';
import type { Json } from '../../model/json.js';
import type { ResourceDocument } from '../../model/resource.js';

export const SEVERITIES = { critical: 1, high: 2, medium: 3, low: 4, info: 5 } as const;
export type SeverityName = keyof typeof SEVERITIES;

export const SEVERITY_NAMES = new Map<number, SeverityName>(Object.entries(SEVERITIES).map(([n, v]) => [v, n as SeverityName]));

/** A severity name (any case) or integer 1..5 → its integer; undefined when it is neither. */
export function severityOf(value: Json): number | undefined {
  if (typeof value === 'string') {
    const lower = value.toLowerCase();
    if (Object.hasOwn(SEVERITIES, lower)) return SEVERITIES[lower as SeverityName];
    return /^[1-5]$/.test(value) ? Number(value) : undefined;
  }
  return typeof value === 'number' && Number.isInteger(value) && SEVERITY_NAMES.has(value) ? value : undefined;
}

/** A document's `spec.severity` as integers, with an error for each item that is no severity. */
export function severitiesOf(doc: ResourceDocument): { severities: number[]; diagnostics: Diagnostic[] } {
  const severities: number[] = [];
  const diagnostics: Diagnostic[] = [];
  (Array.isArray(doc.spec.severity) ? doc.spec.severity : []).forEach((value, i) => {
    const sev = severityOf(value);
    if (sev !== undefined) severities.push(sev);
    else
      diagnostics.push({
        severity: 'error',
        code: 'invalid-severity',
        message: `${doc.kind} "${doc.name}": ${JSON.stringify(value)} is not a severity`,
        ...(doc.positions[`/severity/${i}`] ?? doc.source),
        field: `/spec/severity/${i}`,
        hint: `expected one of ${Object.keys(SEVERITIES).join(', ')} or an integer 1..5`,
      });
  });
  return { severities, diagnostics };
}
