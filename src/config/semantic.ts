// Checks a schema cannot express, per document: secrets given literally, profile ids and bases,
// template names and placeholders, severities named twice. Every problem is returned, none thrown.

import type { Diagnostic, SourcePosition } from '../model/diagnostics.js';
import {
  CHANNEL_SECRETS,
  CLOUD_ACCOUNT_SECRETS,
  PREDEFINED_PROFILE_PREFIX,
  ROOT_PROFILE_ID,
  SEVERITIES,
  dataPointer,
  registrySecrets,
  type ChannelType,
  type CloudAccountType,
  type SecretField,
} from '../kinds/data.js';
import { kindForDocument } from '../kinds/index.js';
import type { Json, JsonObject } from '../model/json.js';
import { getAt } from '../model/json-pointer.js';

const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Secret pointers of a document (document-relative: `/spec/data/...`): every secret member data.ts
 * lists for its type (an unused one, like a Jira Server password on Jira Cloud, is still a secret in
 * a file), plus whatever its Kind declares write-only or sensitive.
 */
export function secretPointers(kind: string, spec: Json | undefined): string[] {
  if (!isObject(spec)) return [];
  const type = typeof spec.type === 'string' ? spec.type : '';
  let fields: SecretField[] = [];
  if (kind === 'AlertChannel' && Object.hasOwn(CHANNEL_SECRETS, type)) fields = CHANNEL_SECRETS[type as ChannelType];
  else if (kind === 'CloudAccount' && Object.hasOwn(CLOUD_ACCOUNT_SECRETS, type)) fields = CLOUD_ACCOUNT_SECRETS[type as CloudAccountType];
  else if (kind === 'ContainerRegistry' && isObject(spec.data)) fields = registrySecrets(spec.data);
  const k = kindForDocument(kind);
  const declared = k ? [...k.writeOnly(spec), ...k.sensitive(spec)] : [];
  return [...new Set([...fields.map((f) => dataPointer(f.path)), ...declared])].map((p) => '/spec' + p);
}

export interface SemanticContext {
  where: (pointer: string) => SourcePosition | undefined;
  /** Document pointers whose value came from `${env:...}`. */
  envRefs: Record<string, string>;
  /** Pointers with a malformed or unset reference: already reported, not literal secrets. */
  envProblems: readonly string[];
}

export function checkDocument(kind: string, doc: JsonObject, ctx: SemanticContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = (pointer: string): Pick<Diagnostic, 'file' | 'line' | 'column' | 'field'> => ({ ...ctx.where(pointer), field: pointer });
  const spec = doc.spec;

  for (const pointer of secretPointers(kind, spec)) {
    if (getAt(doc, pointer) === undefined || pointer in ctx.envRefs || ctx.envProblems.includes(pointer)) continue;
    const label = pointer.replace(/^\/spec\//, '').split('/').join('.');
    out.push({
      severity: 'error',
      code: 'secret-literal',
      message: `${label} is a secret: take it from the environment with \${env:NAME}`,
      ...at(pointer),
      hint: `e.g. ${label.split('.').pop()}: \${env:${envNameFor(String(doc.name ?? ''), label)}} and keep the value out of the repository`,
    });
  }

  if (kind === 'AlertProfile' && isObject(spec)) out.push(...checkProfile(doc, spec, at));
  if (kind === 'AlertRule' && isObject(spec) && Array.isArray(spec.severity)) {
    const seen = new Map<number, number>();
    spec.severity.forEach((s, i) => {
      const n = typeof s === 'number' ? s : typeof s === 'string' && Object.hasOwn(SEVERITIES, s) ? SEVERITIES[s as keyof typeof SEVERITIES] : undefined;
      if (n === undefined) return;
      const first = seen.get(n);
      if (first !== undefined) {
        out.push({
          severity: 'warning',
          code: 'duplicate-severity',
          message: `spec.severity names severity ${n} twice (items ${first + 1} and ${i + 1})`,
          ...at(`/spec/severity/${i}`),
        });
      } else seen.set(n, i);
    });
  }
  return out;
}

/** A variable name suggestion: `ops-slack` + `data.slackUrl` → `OPS_SLACK_SLACK_URL`. */
function envNameFor(name: string, label: string): string {
  const words = `${name}_${label.split('.').pop() ?? ''}`.replace(/([a-z0-9])([A-Z])/g, '$1_$2');
  return words.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase() || 'NAME';
}

type At = (pointer: string) => Pick<Diagnostic, 'file' | 'line' | 'column' | 'field'>;

function checkProfile(doc: JsonObject, spec: JsonObject, at: At): Diagnostic[] {
  const out: Diagnostic[] = [];
  const id = typeof doc.name === 'string' ? doc.name : '';
  if (id.startsWith(PREDEFINED_PROFILE_PREFIX)) {
    out.push({
      severity: 'error',
      code: 'profile-reserved-id',
      message: `alert profile id \`${id}\` uses the prefix ${PREDEFINED_PROFILE_PREFIX}, which is reserved for predefined profiles`,
      ...at('/name'),
      hint: 'choose an id without the SVC_ prefix, e.g. CUSTOM_' + id.slice(PREDEFINED_PROFILE_PREFIX.length),
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
