// postureops.yaml's `routing` section (requirements and route tests) and what `validate` does with
// it: the routing map of the configuration is computed (offline) and every requirement and test is
// checked against it; a failure is an error at the requirement's line.

import type { Diagnostic, SourcePosition } from '../model/diagnostics.js';
import type { Json, JsonObject } from '../model/json.js';
import type { AccountConfig, DesiredState } from '../model/account.js';
import { askedCategories, checkRequirement, failureText, routeAll, testMismatch, type RoutingDimensions, type RoutingMap, type RoutingRequirement, type RoutingSettings, type RoutingTest } from '../model/routing.js';
import { didYouMean } from '../model/suggest.js';
import { routingDimensions, routingInputs } from '../kinds/routing.js';
import { KINDS } from '../kinds/index.js';

type Where = (pointer: string, prefer?: 'key' | 'value') => Partial<SourcePosition> & { field: string };

const strings = (v: Json | undefined): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : []);

/** A category as the rule kind spells it (the service may change the case), or as written. */
const categoryOf = (dims: RoutingDimensions, c: string): string => dims.categories.find((k) => k.toLowerCase() === c.toLowerCase()) ?? c;

/** A severity name or code → its name. */
function severityName(dims: RoutingDimensions, v: Json): string | undefined {
  const found = dims.severities.find((s) => s.code === v || s.name === String(v).toLowerCase() || String(s.code) === String(v));
  return found?.name;
}

const positionOf = (w: ReturnType<Where>): SourcePosition | undefined =>
  w.file !== undefined && w.line !== undefined && w.column !== undefined ? { file: w.file, line: w.line, column: w.column } : undefined;

/**
 * The section after the schema accepted it; null when it names an undeclared account (diagnostics
 * say where).
 */
export function parseRouting(value: JsonObject, accounts: readonly AccountConfig[], where: Where, diagnostics: Diagnostic[]): RoutingSettings | null {
  const dims = routingDimensions(KINDS);
  const declared = accounts.map((a) => a.name);
  let ok = true;
  const checkAccount = (name: string, pointer: string): void => {
    if (declared.includes(name)) return;
    ok = false;
    diagnostics.push({
      severity: 'error',
      code: 'account-not-declared',
      message: `routing names account \`${name}\`, which \`accounts\` does not declare`,
      ...where(pointer),
      hint: didYouMean(name, declared) ?? `declared accounts: ${declared.join(', ')}`,
    });
  };
  const requirements: RoutingRequirement[] = [];
  const reqs = Array.isArray(value.requirements) ? (value.requirements as JsonObject[]) : [];
  reqs.forEach((r, i) => {
    const at = `/routing/requirements/${i}`;
    const accountsOf: string[] | '*' = r.accounts === '*' ? '*' : strings(r.accounts);
    if (accountsOf !== '*') accountsOf.forEach((a, j) => checkAccount(a, typeof r.accounts === 'string' ? `${at}/accounts` : `${at}/accounts/${j}`));
    const reach = (r.reach ?? {}) as JsonObject;
    const source = positionOf(where(at, 'key'));
    requirements.push({
      name: String(r.name),
      accounts: accountsOf,
      eventCategories: r.eventCategory === '*' ? '*' : strings(r.eventCategory).map((c) => categoryOf(dims, c)),
      severities: r.severity === '*' ? '*' : (r.severity as Json[]).map((s) => severityName(dims, s) ?? String(s)),
      reach: { ...(reach.types !== undefined ? { types: strings(reach.types) } : {}), ...(reach.channels !== undefined ? { channels: strings(reach.channels) } : {}) },
      allResources: r.allResources === true,
      ...(r.healthy === true ? { healthy: true } : {}),
      ...(source ? { source } : {}),
    });
  });
  const tests: RoutingTest[] = [];
  const given = Array.isArray(value.tests) ? (value.tests as JsonObject[]) : [];
  given.forEach((t, i) => {
    const at = `/routing/tests/${i}`;
    checkAccount(String(t.account), `${at}/account`);
    const source = positionOf(where(at, 'key'));
    tests.push({
      ...(typeof t.name === 'string' ? { name: t.name } : {}),
      account: String(t.account),
      eventCategory: categoryOf(dims, String(t.eventCategory)),
      severity: severityName(dims, t.severity as Json) ?? String(t.severity),
      expect: strings(t.expect),
      ...(source ? { source } : {}),
    });
  });
  return ok ? { requirements, tests } : null;
}

/** The routing map of the configuration (offline) for these accounts; `asked`: categories shown as rows even when no rule names them. */
export function configurationRouting(state: DesiredState, accounts: readonly string[], asked: readonly string[] = []): RoutingMap {
  return routeAll(routingInputs(state.resources, accounts, KINDS), routingDimensions(KINDS), 'configuration', undefined, asked);
}

/** The configuration's routing map against its requirements and route tests: one error per failing one. */
export function checkRouting(state: DesiredState): Diagnostic[] {
  const settings = state.root.routing;
  if (!settings || (settings.requirements.length === 0 && settings.tests.length === 0)) return [];
  const map = configurationRouting(state, state.root.accounts.map((a) => a.name), askedCategories(settings));
  const out: Diagnostic[] = [];
  for (const req of settings.requirements) {
    if (req.healthy === true) {
      out.push({
        severity: 'warning',
        code: 'routing-health-unchecked',
        message: `routing requirement "${req.name}" asks for a healthy channel: validate reads no service, so it cannot know whether a channel delivers and checks only what the cells reach`,
        ...(req.source ?? {}),
        field: '/routing/requirements',
        hint: '`postureops plan` (and `routes --live`) check it against the health the service reports',
      });
    }
    const failure = checkRequirement(req, map);
    if (!failure) continue;
    out.push({
      severity: 'error',
      code: 'routing-requirement',
      message: failureText(failure, req.reach),
      ...(req.source ?? {}),
      field: '/routing/requirements',
      hint: 'route these cells to such a channel (an enabled rule listing an enabled channel), or narrow the requirement',
    });
  }
  for (const test of settings.tests) {
    const mismatch = testMismatch(test, map);
    if (!mismatch) continue;
    const label = test.name ? `route test "${test.name}"` : `route test ${test.account} ${test.eventCategory}/${test.severity}`;
    const parts = [mismatch.missing.length > 0 ? `missing ${mismatch.missing.join(', ')}` : '', mismatch.extra.length > 0 ? `unexpected ${mismatch.extra.join(', ')}` : ''].filter((p) => p !== '');
    out.push({
      severity: 'error',
      code: 'routing-test',
      message: `${label} fails: ${test.account} ${test.eventCategory}/${test.severity} reaches [${mismatch.got.join(', ')}], expected [${[...test.expect].sort().join(', ')}]${parts.length > 0 ? ` (${parts.join('; ')})` : ''}`,
      ...(test.source ?? {}),
      field: '/routing/tests',
    });
  }
  return out;
}
