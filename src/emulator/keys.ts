// API keys and the users behind them (seed 000, "Organization access"): the role of a token follows
// the user who created the key. Organization admins reach every account and the organization;
// sub-account admins only their listed sub-accounts; account users get no token at all.

export type Role = 'org-admin' | 'sub-account-admin' | 'account-user';
export const ROLES: readonly Role[] = ['org-admin', 'sub-account-admin', 'account-user'];

/** Seed 000: "Each user may have at most 20 keys." */
export const MAX_KEYS_PER_USER = 20;

export interface ApiKey {
  keyId: string;
  secret: string;
  role: Role;
  /** The user who created the key: written as createdOrUpdatedBy and in audit records; owns the rate-limit buckets. */
  user: string;
  /** Sub-account admin: the sub-accounts it administers (the first is the default account). Empty otherwise. */
  accounts: string[];
}

/** What a key is given as in options; `user` defaults to `<keyId>@example.com`. */
export interface KeyOptions {
  keyId: string;
  secret: string;
  role: Role;
  accounts?: string[];
  user?: string;
}

export const defaultUserOf = (keyId: string): string => `${keyId}@example.com`;

/**
 * `ID:SECRET:ROLE[:ACCOUNTS[:USER]]`, ACCOUNTS comma-separated (sub-account admin only; may be empty
 * for the other roles). Neither ID nor SECRET may contain `:`.
 */
export function parseKeySpec(spec: string): KeyOptions {
  const parts = spec.split(':');
  const usage = `expected ID:SECRET:ROLE[:ACCOUNTS[:USER]] with ROLE one of ${ROLES.join(', ')}`;
  if (parts.length < 3 || parts.length > 5) throw new Error(`--key ${JSON.stringify(redact(spec))}: ${usage}`);
  const [keyId, secret, role, accounts, user] = parts;
  if (!ROLES.includes(role as Role)) throw new Error(`--key ${JSON.stringify(redact(spec))}: unknown role ${JSON.stringify(role)}; ${usage}`);
  const list = (accounts ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return { keyId, secret, role: role as Role, ...(list.length > 0 ? { accounts: list } : {}), ...(user ? { user } : {}) };
}

/** A key spec as it may appear in an error message: the secret replaced. */
function redact(spec: string): string {
  const parts = spec.split(':');
  if (parts.length >= 2) parts[1] = '***';
  return parts.join(':');
}

/**
 * Resolves and checks the keys against the organization's accounts (the first is the primary):
 * unique key ids, one role per user, at most 20 keys per user, a sub-account admin lists known
 * sub-accounts (never the primary account). Throws with every problem found.
 */
export function resolveKeys(keys: readonly KeyOptions[], accounts: readonly string[]): ApiKey[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  const roleOfUser = new Map<string, Role>();
  const keysOfUser = new Map<string, number>();
  const resolved = keys.map((k): ApiKey => {
    const user = k.user ?? defaultUserOf(k.keyId);
    if (k.keyId === '' || k.secret === '') problems.push(`key ${JSON.stringify(k.keyId)}: id and secret must not be empty`);
    if (ids.has(k.keyId)) problems.push(`key ${k.keyId} is given twice`);
    ids.add(k.keyId);
    if (!ROLES.includes(k.role)) problems.push(`key ${k.keyId}: unknown role ${JSON.stringify(k.role)}`);
    const earlier = roleOfUser.get(user);
    if (earlier !== undefined && earlier !== k.role) problems.push(`user ${user} has keys with two roles (${earlier}, ${k.role}); a user has one role`);
    roleOfUser.set(user, k.role);
    keysOfUser.set(user, (keysOfUser.get(user) ?? 0) + 1);
    const listed: string[] = [];
    for (const wanted of k.accounts ?? []) {
      const found = accounts.find((a) => a.toLowerCase() === wanted.toLowerCase());
      if (found === undefined) problems.push(`key ${k.keyId}: account ${wanted} is not one of ${accounts.join(', ')}`);
      else if (found === accounts[0] && k.role === 'sub-account-admin') {
        problems.push(`key ${k.keyId}: ${found} is the primary account, not a sub-account; a sub-account admin cannot reach it`);
      } else listed.push(found);
    }
    if (k.role === 'sub-account-admin' && (k.accounts ?? []).length === 0) problems.push(`key ${k.keyId}: a sub-account admin needs the sub-accounts it administers`);
    if (k.role === 'org-admin' && (k.accounts ?? []).length > 0) problems.push(`key ${k.keyId}: an organization admin reaches every account; list no accounts`);
    return { keyId: k.keyId, secret: k.secret, role: k.role, user, accounts: listed };
  });
  for (const [user, n] of keysOfUser) if (n > MAX_KEYS_PER_USER) problems.push(`user ${user} has ${n} keys; at most ${MAX_KEYS_PER_USER}`);
  if (problems.length > 0) throw new Error(`emulator: invalid keys: ${problems.join('; ')}`);
  return resolved;
}
