// Saved plans: written atomically with mode 0600, read back with their shape checked, and refused as
// stale when the live records they were computed from moved (Terraform's saved-plan rule). A plan
// saved with a key (POSTUREOPS_PLAN_KEY) carries an HMAC-SHA256 that someone who edits the file
// cannot recompute; the checksum beside it only catches accidents (anyone can recompute a sha256).

import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { DiagnosticCode } from '../../model/diagnostic-codes.js';
import { type Diagnostic, DiagnosticsError } from '../../model/diagnostics.js';
import type { LiveResource } from '../../model/resource.js';
import { liveDigest } from '../core/digest.js';
import { inertText as inert } from '../../model/inert.js';
import { renameLive } from '../steps/rename.js';
import { KINDS } from '../../kinds/index.js';
import type { Kind } from '../../kinds/types.js';
import { ACTIONS, type Plan, PLAN_FORMAT_VERSION, type Refusal, REHEARSAL_OUTCOMES } from '../../model/plan.js';
import { CHANGE_REASON_CODES, isChangeReasonCode } from '../../model/reasons.js';
import { type LiveState } from '../../model/live.js';
import { resourceKey } from '../../model/resource.js';
import { ROUTING_ACTIONS, type RoutingAction } from '../../model/routing.js';

/** sha256 of the plan's JSON: catches a damaged file; not an authenticity check (see `planMac`). */
function checksumOf(plan: unknown): string {
  return createHash('sha256').update(JSON.stringify(plan)).digest('hex');
}

/** The variable holding the key the runs that save and apply plans share. */
export const PLAN_KEY_VARIABLE = 'POSTUREOPS_PLAN_KEY';
/** Shorter keys can be guessed offline from one signed plan. */
export const PLAN_KEY_MIN_LENGTH = 32;
/** The MAC names its purpose, so a MAC made with the same key for something else never passes as a plan's. */
const MAC_CONTEXT = 'postureops-plan-v1\n';

/** A plan key that is set but unusable (too short); its message never holds the key. */
export class PlanKeyError extends Error {}

/**
 * The plan key from `env` (the environment, or the .env the user pointed at); undefined when unset or
 * empty. Refused when shorter than PLAN_KEY_MIN_LENGTH characters.
 */
export function planKeyFrom(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const key = env[PLAN_KEY_VARIABLE];
  if (key === undefined || key === '') return undefined;
  if (key.length < PLAN_KEY_MIN_LENGTH) {
    throw new PlanKeyError(
      `${PLAN_KEY_VARIABLE} is too short (${key.length} characters; at least ${PLAN_KEY_MIN_LENGTH}): generate one with \`openssl rand -hex 32\``,
    );
  }
  return key;
}

/** HMAC-SHA256 (hex) of the plan's JSON, keyed by the runs' shared key. */
export function planMac(plan: unknown, key: string): string {
  return createHmac('sha256', key).update(MAC_CONTEXT).update(JSON.stringify(plan)).digest('hex');
}

/** Compares in constant time: the time taken tells nothing of how much of a forged MAC was right. */
export function macMatches(plan: unknown, key: string, mac: unknown): boolean {
  if (typeof mac !== 'string' || !/^[0-9a-f]{64}$/.test(mac)) return false;
  return timingSafeEqual(Buffer.from(planMac(plan, key), 'hex'), Buffer.from(mac, 'hex'));
}

/**
 * How a loaded plan was authenticated: `verified` (its MAC matches the key), `unsigned` (no MAC, no key),
 * `unverifiable` (a MAC, but no key to check it with).
 */
export type PlanSignature = 'verified' | 'unsigned' | 'unverifiable';

export interface SavedPlan {
  plan: Plan;
  signature: PlanSignature;
}

/** Codes of plan-file problems that mean "not the plan that was saved" (refused, exit 3) rather than "unreadable". */
export const TAMPERED_CODES: readonly string[] = ['plan-file-modified', 'plan-file-mac-missing', 'plan-file-mac-wrong'];

/** The text of a saved plan: JSON with a `checksum` member and, given a key, a `mac` member. */
export function planFileText(plan: Plan, key?: string): string {
  return JSON.stringify({ ...plan, checksum: checksumOf(plan), ...(key !== undefined ? { mac: planMac(plan, key) } : {}) }, null, 2) + '\n';
}

/** The largest plan file read: a plan of 10,000 changes is a few MB; a larger file is refused before it is read whole. */
export const MAX_PLAN_BYTES = 64 * 1024 * 1024;
/** Values nested at most this deep (a plan's own nesting is a few levels, a spec's a dozen). */
export const MAX_PLAN_DEPTH = 100;

/** Whether JSON text nests arrays and objects deeper than `max` (strings skipped), before it is parsed. */
export function jsonTooDeep(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

export const planFileProblem = (file: string, code: DiagnosticCode, message: string, hint?: string): DiagnosticsError =>
  new DiagnosticsError([{ severity: 'error', code, message, file, ...(hint ? { hint } : {}) } satisfies Diagnostic]);
const problem = planFileProblem;

/**
 * Reads the text of a saved plan (`path` names it in messages): its shape, its checksum and, with a
 * key, its MAC (a plan without one, or with a wrong one, is refused: with a key set, every plan must
 * be signed with it). Reading the file is the run layer's (src/run/plan-files.ts).
 */
export function parsePlanFile(text: string, path: string, key?: string): SavedPlan {
  if (jsonTooDeep(text, MAX_PLAN_DEPTH)) {
    throw problem(path, 'plan-file-too-deep', `plan file ${path} nests values more than ${MAX_PLAN_DEPTH} deep: not a plan postureops wrote`, 'create a new plan with `postureops plan --out FILE`');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw problem(path, 'plan-file-corrupt', `plan file ${path} is not valid JSON (truncated or edited?)`, 'create a new plan with `postureops plan --out FILE`');
  }
  if (!isObject(value) || !('formatVersion' in value)) {
    throw problem(path, 'plan-file-foreign', `${path} is not a postureops plan file (no formatVersion)`);
  }
  if (value.formatVersion !== PLAN_FORMAT_VERSION) {
    // An older plan lacks what this version's apply and comparison rely on (version 1: reason codes).
    const older =
      typeof value.formatVersion === 'number' &&
      // Stryker disable next-line EqualityOperator: the current version never gets here, so `<` and `<=` agree (`>=` shares the line; the older-version test kills it)
      value.formatVersion < PLAN_FORMAT_VERSION;
    throw problem(
      path,
      'plan-file-version',
      `plan file ${path} has format version ${shown(value.formatVersion)}; this postureops reads version ${PLAN_FORMAT_VERSION}${older ? ' only (the file was saved by an older postureops)' : ''}`,
      'create the plan again with this version',
    );
  }
  const { checksum, mac, ...planValue } = value;
  if (key !== undefined) {
    // The MAC first: with a key, nobody's edit is worth a finer message than "not signed with the key".
    if (mac === undefined) {
      throw problem(
        path,
        'plan-file-mac-missing',
        `plan file ${path} is not signed, and ${PLAN_KEY_VARIABLE} is set: only plans signed with that key are applied`,
        `save the plan with ${PLAN_KEY_VARIABLE} set (the same key as this run)`,
      );
    }
    if (!macMatches(planValue, key, mac)) {
      throw problem(
        path,
        'plan-file-mac-wrong',
        `plan file ${path} does not carry a valid signature for ${PLAN_KEY_VARIABLE}: it was edited after it was saved, or saved with another key`,
        'create a new plan with `postureops plan --out FILE` and the same key',
      );
    }
  }
  if (checksum !== checksumOf(planValue)) {
    throw problem(
      path,
      'plan-file-modified',
      `plan file ${path} was changed after it was saved (its checksum does not match); it is not the plan that was reviewed`,
      'create a new plan with `postureops plan --out FILE`',
    );
  }
  const wrong = shapeProblems(planValue);
  if (wrong.length > 0) {
    throw problem(path, 'plan-file-corrupt', `plan file ${path} is damaged: ${wrong.slice(0, 5).join('; ')}${wrong.length > 5 ? ` (and ${wrong.length - 5} more)` : ''}`);
  }
  const signature: PlanSignature = key !== undefined ? 'verified' : mac === undefined ? 'unsigned' : 'unverifiable';
  return { plan: planValue as unknown as Plan, signature };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const isStringArray = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** A plan's `routing` as renderers read it (a saved plan is untrusted input). */
function routingShape(r: unknown): boolean {
  if (!isObject(r) || !isStringArray(r.accounts) || !Array.isArray(r.changes)) return false;
  const cellsOk = r.changes.every(
    (c) =>
      isObject(c) &&
      ['account', 'eventCategory', 'severity'].every((m) => typeof c[m] === 'string') &&
      ['before', 'after', 'gained', 'lost'].every((m) => isStringArray(c[m])) &&
      (c.causes === undefined || (Array.isArray(c.causes) && c.causes.every((x) => isObject(x) && typeof x.key === 'string' && typeof x.name === 'string' && ROUTING_ACTIONS.includes(x.action as RoutingAction) && (x.role === 'rule' || x.role === 'channel')))),
  );
  const receiptsOk = (list: unknown): boolean =>
    list === undefined ||
    (Array.isArray(list) &&
      list.every((x) => isObject(x) && ['account', 'name', 'type'].every((m) => typeof x[m] === 'string') && typeof x.enabled === 'boolean' && isStringArray(x.cells) && isStringArray(x.rules)));
  const failuresOk = (list: unknown): boolean =>
    list === undefined ||
    (Array.isArray(list) &&
      list.every((f) => isObject(f) && typeof f.requirement === 'string' && Array.isArray(f.accounts) && f.accounts.every((a) => isObject(a) && typeof a.account === 'string' && isStringArray(a.cells))));
  const healthOk = (h: unknown): boolean =>
    isObject(h) &&
    (h.state === 'healthy' || h.state === 'failing' || h.state === 'unknown') &&
    (h.lastSuccess === undefined || (typeof h.lastSuccess === 'number' && Number.isFinite(h.lastSuccess))) &&
    (h.detail === undefined || typeof h.detail === 'string') &&
    (h.reason === undefined || typeof h.reason === 'string');
  const deliveryOk =
    r.delivery === undefined ||
    (Array.isArray(r.delivery) &&
      r.delivery.every(
        (d) =>
          isObject(d) &&
          typeof d.account === 'string' &&
          isStringArray(d.silent) &&
          isStringArray(d.degraded) &&
          Array.isArray(d.failing) &&
          d.failing.every((f) => isObject(f) && typeof f.name === 'string' && typeof f.type === 'string' && healthOk(f.health)),
      ));
  const requiredOk =
    r.requiredChannels === undefined ||
    (Array.isArray(r.requiredChannels) && r.requiredChannels.every((x) => isObject(x) && typeof x.account === 'string' && typeof x.name === 'string' && isStringArray(x.requirements)));
  return cellsOk && requiredOk && failuresOk(r.failing) && failuresOk(r.outages) && deliveryOk && receiptsOk(r.newChannels) && receiptsOk(r.undeclaredChannels);
}

/** A plan's `rehearsal` as renderers read it. */
function rehearsalShape(r: unknown): boolean {
  const changes = (list: unknown) =>
    list === undefined || (Array.isArray(list) && list.every((c) => isObject(c) && typeof c.key === 'string' && ACTIONS.includes(c.action as never) && (c.message === undefined || typeof c.message === 'string')));
  const count = (n: unknown) => n === undefined || (Number.isInteger(n) && (n as number) >= 0);
  return (
    isObject(r) &&
    REHEARSAL_OUTCOMES.includes(r.outcome as never) &&
    Number.isInteger(r.accepted) &&
    count(r.accepted) &&
    count(r.notTried) &&
    count(r.remainingCount) &&
    changes(r.refused) &&
    changes(r.remaining) &&
    (r.message === undefined || typeof r.message === 'string')
  );
}

function shapeProblems(plan: Record<string, unknown>): string[] {
  const out: string[] = [];
  if (!Array.isArray(plan.accounts) || !plan.accounts.every((a) => isObject(a) && typeof a.name === 'string' && typeof a.orgAccess === 'boolean')) {
    out.push('accounts must be a list of {name, orgAccess}');
  }
  if (!isObject(plan.summary)) out.push('summary is missing');
  if (!Array.isArray(plan.unmanaged)) out.push('unmanaged must be a list');
  if (!Array.isArray(plan.diagnostics)) out.push('diagnostics must be a list');
  if (!isObject(plan.apiCalls)) out.push('apiCalls is missing');
  if (!Array.isArray(plan.budget)) out.push('budget must be a list');
  if (plan.scope !== undefined) {
    const scope = plan.scope;
    if (!isObject(scope) || !Array.isArray(scope.skipped) || !scope.skipped.every((s) => isObject(s) && typeof s.account === 'string' && typeof s.reason === 'string')) {
      out.push('scope.skipped must be a list of {account, reason}');
    } else {
      const shard = scope.shard;
      if (shard !== undefined && !(isObject(shard) && Number.isInteger(shard.index) && Number.isInteger(shard.count))) out.push('scope.shard must be {index, count}');
      if (scope.rootAccounts !== undefined && !isStringArray(scope.rootAccounts)) out.push('scope.rootAccounts must be a list of strings');
    }
  }
  if (plan.rehearsal !== undefined && !rehearsalShape(plan.rehearsal)) out.push('rehearsal must be {outcome, accepted, refused?, notTried?, remaining?, remainingCount?, message?}');
  if (plan.routing !== undefined && !routingShape(plan.routing)) out.push('routing must be {accounts, changes: [{account, eventCategory, severity, before, after, gained, lost, causes?}], failing?, newChannels?, undeclaredChannels?, delivery?, outages?, requiredChannels?}');
  if (!Array.isArray(plan.changes)) {
    out.push('changes must be a list');
    return out;
  }
  const keys = new Set<string>();
  plan.changes.forEach((c, i) => {
    const where = `changes[${i}]`;
    if (!isObject(c)) {
      out.push(`${where} is not an object`);
      return;
    }
    for (const member of ['key', 'kind', 'account', 'name', 'liveDigest'] as const) {
      if (typeof c[member] !== 'string') out.push(`${where}.${member} must be a string`);
    }
    if (!ACTIONS.includes(c.action as never)) out.push(`${where}.action must be one of ${ACTIONS.join(', ')}`);
    for (const member of ['writeOnly', 'sensitive', 'dependsOn'] as const) {
      if (!isStringArray(c[member])) out.push(`${where}.${member} must be a list of strings`);
    }
    if (c.action !== 'delete' && !isObject(c.after)) out.push(`${where}.after is missing`);
    // A reason comes with its code, and the code is one this version knows (renderings and counts key on it).
    if (c.reasonCode !== undefined && !isChangeReasonCode(c.reasonCode)) out.push(`${where}.reasonCode must be one of ${Object.keys(CHANGE_REASON_CODES).join(', ')}`);
    if ((c.reason === undefined) !== (c.reasonCode === undefined) || (c.reason !== undefined && typeof c.reason !== 'string')) {
      out.push(`${where}.reason and reasonCode go together (a text and a code)`);
    }
    if (c.action !== 'create' && typeof c.liveId !== 'string') out.push(`${where}.liveId is missing`);
    if (typeof c.key === 'string') {
      if (keys.has(c.key)) out.push(`${where}.key ${shown(c.key)} appears twice`);
      keys.add(c.key);
    }
  });
  plan.changes.forEach((c, i) => {
    if (isObject(c) && Array.isArray(c.dependsOn)) {
      for (const dep of c.dependsOn) if (typeof dep === 'string' && !keys.has(dep)) out.push(`changes[${i}] depends on unknown change ${shown(dep)}`);
    }
  });
  return out;
}

/**
 * The plan is stale when a record it was computed from moved: a create whose name now exists, an
 * update/delete/replace whose live record changed or is gone, a referenced id that no longer exists.
 */
export function checkStale(plan: Plan, live: LiveState, kinds: readonly Kind[] = KINDS): Refusal | undefined {
  const byKey = new Map<string, LiveResource[]>();
  const ids = new Set<string>();
  const idKey = (account: string, kind: string, id: string): string => JSON.stringify([account, kind, id]);
  // The plan saw the live state with its renames made; so does this comparison (same digests). A
  // rename whose new name has been taken meanwhile is not made, and the change then finds no twin.
  const taken = new Set(live.resources.map((r) => resourceKey(r.account, r.kind, r.name)));
  const renames = plan.changes
    .filter((c) => c.renamedFrom !== undefined && !taken.has(c.key))
    .map((c) => ({ account: c.account, kind: c.kind, from: c.renamedFrom!, to: c.name }));
  for (const r of renameLive(live.resources, renames, kinds)) {
    const key = resourceKey(r.account, r.kind, r.name);
    const list = byKey.get(key);
    if (list) list.push(r);
    else byKey.set(key, [r]);
    ids.add(idKey(r.account, r.kind, r.id));
  }
  const details: string[] = [];
  for (const change of plan.changes) {
    const found = byKey.get(resourceKey(change.account, change.kind, change.name)) ?? [];
    // From the file: made inert before it reaches a terminal or a log.
    const where = inert(`${change.account}/${change.kind}/${change.name}`);
    if (change.action === 'create') {
      if (found.length > 0) details.push(`${where}: to be created, but it exists now`);
    } else {
      const target = found.find((r) => r.id === change.liveId);
      // Stryker disable next-line StringLiteral: a loaded plan's update, replace or delete always has a live id (shapeProblems); the fallback keeps a plan built in code from crashing here
      const liveId = change.liveId ?? '';
      if (!target) details.push(`${where}: its live record (id ${inert(liveId)}) is gone or renamed`);
      else if (liveDigest(target) !== change.liveDigest) details.push(`${where}: its live record changed since the plan`);
    }
    // Stryker disable next-line ArrayDeclaration: a default holding text has no `id`, so it names no reference either
    for (const ref of change.refs ?? []) {
      if (ref.id !== undefined && !ids.has(idKey(change.account, ref.kind, ref.id))) {
        details.push(`${where}: the ${inert(ref.kind)} ${inert(ref.name)} it refers to (id ${inert(ref.id)}) is gone`);
      }
    }
  }
  if (details.length === 0) return undefined;
  return {
    code: 'stale',
    message: `the saved plan is stale: ${details.length} of its changes no longer match the live state; create a new plan`,
    details,
  };
}

/** A value of the file in a message: as JSON, cut at 80 characters (a crafted file is as long as it likes). */
export function shown(value: unknown): string {
  const text = String(JSON.stringify(value));
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}
