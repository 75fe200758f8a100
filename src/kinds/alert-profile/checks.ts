// Offline checks of an AlertProfile document that a schema cannot express: the reserved id prefix,
// the base it extends, template names given twice, malformed {{KEY}} placeholders.

import type { Diagnostic } from '../../model/diagnostics.js';
import { isObject, type JsonObject } from '../../model/json.js';
import type { KindSettings, Locate } from '../types.js';
import { predefinedPrefix, ROOT_PROFILE_ID } from './ids.js';

export function checkProfileDocument(doc: JsonObject, at: Locate, settings: KindSettings = {}): Diagnostic[] {
  const spec = doc.spec;
  if (!isObject(spec)) return [];
  const out: Diagnostic[] = [];
  const PREDEFINED_PROFILE_PREFIX = predefinedPrefix(settings);
  const id = typeof doc.name === 'string' ? doc.name : '';
  if (id.startsWith(PREDEFINED_PROFILE_PREFIX)) {
    out.push({
      severity: 'error',
      code: 'profile-reserved-id',
      message: `alert profile id \`${id}\` uses the prefix ${PREDEFINED_PROFILE_PREFIX}, which is reserved for predefined profiles`,
      ...at('/name'),
      hint: `choose an id without the ${PREDEFINED_PROFILE_PREFIX} prefix, e.g. CUSTOM_` + id.slice(PREDEFINED_PROFILE_PREFIX.length),
    });
  }
  if (typeof spec.extends === 'string') {
    if (spec.extends === ROOT_PROFILE_ID) {
      out.push({
        severity: 'error',
        code: 'profile-extends-root',
        message: `${ROOT_PROFILE_ID} is the root of the predefined profiles and has no templates; it may not be extended`,
        ...at('/spec/extends'),
        hint: 'extend a predefined profile that has templates, e.g. one for your cloud or for host files',
      });
    } else if (!spec.extends.startsWith(PREDEFINED_PROFILE_PREFIX)) {
      out.push({
        severity: 'error',
        code: 'profile-extends-custom',
        message: `spec.extends must name a predefined profile (${PREDEFINED_PROFILE_PREFIX}...); \`${spec.extends}\` is not one`,
        ...at('/spec/extends'),
      });
    }
  }
  if (Array.isArray(spec.alerts)) {
    const names = new Map<string, number>();
    spec.alerts.forEach((alert, i) => {
      if (!isObject(alert)) return;
      if (typeof alert.name === 'string') {
        const first = names.get(alert.name);
        if (first !== undefined) {
          out.push({
            severity: 'error',
            code: 'duplicate-template',
            message: `alert template \`${alert.name}\` is declared twice in this profile (alerts ${first + 1} and ${i + 1})`,
            ...at(`/spec/alerts/${i}/name`),
            hint: 'give every template of a profile its own name',
          });
        } else names.set(alert.name, i);
      }
      for (const member of ['subject', 'description'] as const) {
        const text = alert[member];
        if (typeof text !== 'string') continue;
        for (const problem of placeholderProblems(text)) {
          out.push({
            severity: 'error',
            code: 'template-placeholder',
            message: `spec.alerts[${i}].${member}: ${problem}`,
            ...at(`/spec/alerts/${i}/${member}`),
            hint: 'placeholders look like {{KEY}}: letters, digits and _, from the descriptionKeys of the extended profile',
          });
        }
      }
    });
  }
  return out;
}

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Problems with `{{KEY}}` placeholders: unbalanced braces, empty keys, bad characters. */
export function placeholderProblems(text: string): string[] {
  const problems: string[] = [];
  let i = 0;
  for (;;) {
    const open = text.indexOf('{{', i);
    const close = text.indexOf('}}', i);
    if (open < 0 && close < 0) break;
    if (open < 0 || (close >= 0 && close < open)) {
      problems.push(`\`}}\` without an opening \`{{\` at character ${close + 1}`);
      i = close + 2;
      continue;
    }
    const end = text.indexOf('}}', open + 2);
    const nextOpen = text.indexOf('{{', open + 2);
    if (end < 0 || (nextOpen >= 0 && nextOpen < end)) {
      problems.push(`\`{{\` without a closing \`}}\` at character ${open + 1}`);
      i = open + 2;
      continue;
    }
    const key = text.slice(open + 2, end);
    if (key.trim() === '') problems.push(`empty placeholder \`{{${key}}}\` at character ${open + 1}`);
    else if (!KEY.test(key)) problems.push(`placeholder \`{{${key}}}\` has characters other than letters, digits and _`);
    i = end + 2;
  }
  return problems;
}
