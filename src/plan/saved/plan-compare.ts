// A saved plan against the plan derived again from the repository and the live state: `apply --plan`
// executes the derived plan, and only when the saved one holds exactly its changes. Every difference
// is named (which change, which member, which pointers), never a value: a value may be a secret's
// template, and an edited file's values are the attacker's text.

import type { AccountConfig } from '../../model/account.js';
import { inertText } from '../../model/inert.js';
import type { Change, Plan } from '../../model/plan.js';

/**
 * Members of a change that say where it was read or who changed it, not what it does: the file's
 * path depends on the folder plan ran in, and the audit log is read by `plan --attribute` alone.
 */
const PROVENANCE: ReadonlySet<string> = new Set(['source', 'audit']);

/** Differences named per change; a long list is cut here, with the count of the rest. */
const MAX_POINTERS = 5;

/** JSON pointers (RFC 6901) where `a` and `b` differ, in document order; `''` for the whole value. */
export function differingPointers(a: unknown, b: unknown, at = ''): string[] {
  if (Object.is(a, b)) return [];
  const bothArrays = Array.isArray(a) && Array.isArray(b);
  const bothObjects = isPlainObject(a) && isPlainObject(b);
  if (!bothArrays && !bothObjects) return [at];
  if (bothArrays) {
    if (a.length !== b.length) return [at];
    return a.flatMap((item, i) => differingPointers(item, b[i], `${at}/${i}`));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])];
  return keys.flatMap((k) => differingPointers(x[k], y[k], `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`));
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A key or name as data: quoted, its controls escaped, so an edited file cannot shape the message. */
const quote = (text: string): string => `"${inertText(text.replace(/["\\]/g, (c) => `\\${c}`))}"`;

const where = (c: Pick<Change, 'action' | 'key'>): string => `${c.action} ${quote(c.key)}`;

/** Members of two changes with one key that differ, each with where. */
function changeDifferences(saved: Change, derived: Change): string[] {
  const s = saved as unknown as Record<string, unknown>;
  const d = derived as unknown as Record<string, unknown>;
  const members = [...new Set([...Object.keys(d), ...Object.keys(s)])].filter((m) => !PROVENANCE.has(m));
  const out: string[] = [];
  for (const member of members) {
    const pointers = differingPointers(s[member], d[member]);
    if (pointers.length === 0) continue;
    // Identity and action are short words the reader needs; anything else is named by pointer only.
    const shown = ['action', 'kind', 'account', 'name', 'liveId'].includes(member);
    const text = shown
      ? `${member} is ${show(s[member])} in the saved plan, ${show(d[member])} when derived again`
      : pointers[0] === ''
        ? `${member} differs${s[member] === undefined ? ' (missing from the saved plan)' : d[member] === undefined ? ' (not in the derived plan)' : ''}`
        : `${member} differs at ${pointers.slice(0, MAX_POINTERS).join(', ')}${pointers.length > MAX_POINTERS ? ` (and ${pointers.length - MAX_POINTERS} more)` : ''}`;
    out.push(`${where(derived)}: ${text}`);
  }
  return out;
}

const show = (v: unknown): string => (v === undefined ? 'absent' : typeof v === 'string' ? quote(v) : inertText(JSON.stringify(v)));

/** The plan's accounts against those the repository declares: a plan names an account as its root file does. */
function accountDifferences(saved: readonly AccountConfig[], declared: readonly AccountConfig[]): string[] {
  const out: string[] = [];
  const byName = new Map(declared.map((a) => [a.name, a]));
  for (const a of saved) {
    const twin = byName.get(a.name);
    if (!twin) {
      out.push(`account ${quote(a.name)} is in the saved plan, but the repository does not declare it`);
      continue;
    }
    const pointers = differingPointers(a, { name: twin.name, orgAccess: twin.orgAccess });
    if (pointers.length > 0) out.push(`account ${quote(a.name)}: its settings in the saved plan differ from the repository's (${pointers.join(', ')})`);
  }
  return out;
}

/**
 * Every way `saved` differs from `derived` (computed from the repository and the live state, with the
 * saved plan's targets, for the accounts it changes): a change only one of them holds (added to the
 * file, or left out of it: the sets must be equal), a member of a change that differs, an account
 * not as the repository's root file `declared` it. Empty when the saved plan is exactly what the
 * repository asks for.
 */
export function planDifferences(saved: Plan, derived: Plan, declared: readonly AccountConfig[] = derived.accounts): string[] {
  const out = accountDifferences(saved.accounts, declared);
  const derivedByKey = new Map(derived.changes.map((c) => [c.key, c]));
  const savedKeys = new Set(saved.changes.map((c) => c.key));
  for (const c of saved.changes) {
    const twin = derivedByKey.get(c.key);
    if (!twin) out.push(`${where(c)}: in the saved plan, but the repository and the live state ask for no such change`);
    else out.push(...changeDifferences(c, twin));
  }
  for (const c of derived.changes) {
    if (!savedKeys.has(c.key)) out.push(`${where(c)}: the repository and the live state ask for it, but the saved plan does not hold it`);
  }
  return out;
}
