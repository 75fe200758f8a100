// Secrets postureops has no table for: a member of a type it does not know is a secret when its
// name says so, and any member is one when the service shows it masked. Kinds, the diff, export,
// config and masking share these rules, so they sit at the bottom layer (pure functions on JSON).
//
// The name rule, in words (a name is split into words at camelCase humps, `_`, `-`, `.` and spaces;
// version digits are dropped, `apiKey2`): the member holds what its head word (the last one, after
// words that only say how it is encoded: `value`, `pem`, `base64`, `json`, `hash`...) names.
// - A head that is or ends with a credential noun (password, passwd, pwd, passphrase, secret, token,
//   credential, apikey...) makes a secret: `hecToken`, `clientSecret`, `DB_PASSWD`, `accessKeySecret`.
// - A head that names something about a credential is no secret: `keyId`, `accessKeyId`,
//   `privateKeyId`, `tokenUrl`, `tokenAlias`, `passwordPolicy`, `secretArn`, `tokenExpiresAt`.
// - `key` alone is too common (a tag key, a sort key, a KMS key reference): as the head it makes a
//   secret only after a word that says which credential it is (`api`, `private`, `secret`,
//   `access`, `insert`, `signing`, `intg`, `license`...): `apiIntgKey`, `x_api_key`, `privateKey`.
// - `pass` makes a secret only as the head (`dbPass`, not `passThrough`).
// - A name that opens with a question (`is`, `has`, `use`, `enable`...) is a flag, not a secret.
// Booleans and null are never secrets, whatever their name.

import { isObject, type Json, type JsonObject } from './json.js';
import { escapePointerSegment, getAt, hasAt, parsePointer, removeAt, toPointer } from './json-pointer.js';

/** What a member withheld by the service holds in postureops' view of a live record (a mask it recognises). */
export const WITHHELD = '****';

/** Nouns that name a credential: a word equal to one, or ending in one (`hectoken`), is secret. */
const CREDENTIAL_NOUNS = [
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'passcode',
  'secret',
  'token',
  'credential',
  'apikey',
  'privatekey',
  'secretkey',
  'accesskey',
  'signingkey',
  'insertkey',
  'authorization',
  'connectionstring',
  'cookie',
];

/** Words that, before `key`, say the key is a credential. */
const KEY_QUALIFIERS = new Set([
  'api',
  'private',
  'secret',
  'access',
  'insert',
  'signing',
  'sign',
  'encryption',
  'decryption',
  'master',
  'shared',
  'license',
  'licence',
  'auth',
  'account',
  'storage',
  'integration',
  'intg',
  'service',
  'client',
  'subscription',
  'webhook',
  'hmac',
  'session',
  'routing',
  'app',
  'application',
  'ingest',
  'ingestion',
  'instrumentation',
  'write',
  'admin',
  'user',
  'ssh',
  'pgp',
  'gpg',
  'rsa',
  'aes',
  'sas',
  'primary',
  'secondary',
]);

/** First words that make a name a question (a flag), not a value. */
const FLAG_WORDS = new Set(['is', 'has', 'use', 'uses', 'enable', 'require', 'requires', 'allow', 'show', 'skip', 'no', 'num']);

/** Trailing words that only say how a secret is encoded: `privateKeyPem`, `apiKeyValue`. */
const ENCODING_WORDS = new Set([
  'value',
  'values',
  'data',
  'text',
  'string',
  'content',
  'contents',
  'json',
  'pem',
  'b64',
  'base64',
  'encoded',
  'encrypted',
  'hash',
  'raw',
  'plain',
  'material',
  'bytes',
  'hex',
]);

/** Names come from the service: only this many last characters are read (the head word is at the end). */
const MAX_NAME = 128;

/** `hecToken` → [hec, token]; `x_api_key` → [x, api, key]; `APIKey` → [api, key]. */
export function nameWords(name: string): string[] {
  const humps = name.slice(-MAX_NAME).replace(/([a-z0-9])([A-Z])/g, '$1 $2');
  // Stryker disable next-line Regex: `([A-Z])` splits at the same place, the last capital before a lowercase.
  const acronyms = humps.replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
  // Stryker disable next-line Regex: without `+` the extra empty words are dropped by the filter.
  const words = acronyms.split(/[^A-Za-z0-9]+/);
  return words.filter((w) => w !== '').map((w) => w.toLowerCase());
}

const endsWithNoun = (word: string): boolean => CREDENTIAL_NOUNS.some((n) => word.endsWith(n) || word === n + 's');

/** A compound word ending in `key` after a qualifier: `apikey`, `intgkey`. */
const qualifiedKeyWord = (word: string): boolean => {
  const m = /(.+?)keys?$/.exec(word);
  return m !== null && KEY_QUALIFIERS.has(m[1]);
};

/**
 * Verdicts by name: every resource of a kind repeats the same member names, so each is judged once.
 * Bounded (names come from files and the service): the cache starts over once it holds this many.
 */
const SECRET_NAMES = new Map<string, boolean>();
const SECRET_NAMES_MAX = 4096;

/** Whether a member of this name holds a credential (see the rule at the top of this file). */
export function isSecretName(name: string): boolean {
  let known = SECRET_NAMES.get(name);
  // Stryker disable next-line ConditionalExpression: a cache; judging the name again gives the same verdict.
  if (known === undefined) {
    if (SECRET_NAMES.size >= SECRET_NAMES_MAX) SECRET_NAMES.clear();
    known = judgeName(name);
    SECRET_NAMES.set(name, known);
  }
  return known;
}

/** How many verdicts the cache holds (its bound is what keeps names from files and the service from growing memory). */
export function secretNamesHeld(): number {
  return SECRET_NAMES.size;
}

function judgeName(name: string): boolean {
  // Version digits say nothing: `apiKey2`, `password_1`, `signingSecretV2`.
  const all = nameWords(name)
    .map((w) => (ENCODING_WORDS.has(w) ? w : /^v\d+$/.test(w) ? '' : w.replace(/\d+$/, '')))
    .filter((w) => w !== '');
  // Stryker disable next-line ConditionalExpression: a shortcut; no rule below matches no words.
  if (all.length === 0) return false;
  if (FLAG_WORDS.has(all[0]!)) return false;
  let end = all.length;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a name of encoding words alone is no secret either way.
  while (end > 1 && ENCODING_WORDS.has(all[end - 1])) end--;
  const words = all.slice(0, end);
  const head = words[words.length - 1]!;
  // The head (last) word says what the member holds: `tokenUrl` a URL, `accessKeySecret` a secret
  // (the words joined end as the head does: `hecToken`, and `pass word` as `password`), or the whole
  // name when an encoding word belongs to the noun (`connectionString`).
  if (endsWithNoun(words.join('')) || endsWithNoun(all.join(''))) return true;
  if (qualifiedKeyWord(head)) return true;
  if ((head === 'key' || head === 'keys') && words.some((w) => KEY_QUALIFIERS.has(w))) return true;
  return head === 'pass';
}

/** Characters a service shows in place of a hidden secret. */
const MASK_CHARS = /[*•●∙·]/gu;
const BRACKETED = /^[[(<{]\s*(redacted|masked|hidden|sensitive|secret|filtered|removed|encrypted)\s*[\])>}]$/i;

/**
 * What every mask below contains (a run of 3 mask characters or 4 x's, an opening bracket, `redacted`):
 * a value without any of them is no mask, decided without the trimming and counting below.
 */
// Stryker disable next-line Regex: a pre-filter only; one that lets more through leaves the verdict to maskedByDefinition, the same (the test of isMaskedValue against the definition holds it to never letting less through).
const MAYBE_MASKED = /[*•●∙·]{3}|[xX]{4}|[[(<{]|redacted/i;

/**
 * Whether a value is a mask the service shows instead of a secret: `****`, `*****abc`, `••••`,
 * `xxxx`, `XXXXXXXX1234`, `[redacted]`, `(sensitive)`. A run of at least 3 mask characters (4 for
 * `x`, a letter) that makes up at least half of the text, with at most 6 other visible characters
 * (the last digits some services leave). Not the empty string: that is ambiguous (isEmptyValue).
 */
export function isMaskedValue(value: Json | undefined): boolean {
  return typeof value === 'string' && MAYBE_MASKED.test(value) && maskedByDefinition(value);
}

/** isMaskedValue of a string without the pre-filter (exported for the test comparing the two). */
export function maskedByDefinition(value: string): boolean {
  const text = value.trim();
  if (BRACKETED.test(text) || /^redacted$/i.test(text)) return true;
  const visible = text.replace(/[\s\-_.:/]/g, '');
  // The run holds the minimum count of mask characters (3, or 4 for `x`).
  const masked = (chars: RegExp, run: RegExp): boolean => {
    const n = visible.match(chars)?.length ?? 0;
    return run.test(text) && n * 2 >= visible.length && visible.length - n <= 6;
  };
  return masked(MASK_CHARS, /[*•●∙·]{3,}/u) || masked(/[xX]/g, /(?:x{4,}|X{4,})/);
}

export function isEmptyValue(value: Json | undefined): boolean {
  return value === '';
}

const child = (base: string, key: string | number): string => `${base}/${typeof key === 'number' ? key : escapePointerSegment(key)}`;

/**
 * Pointers (below `base`) of the members of `value` that their name marks as secret, at any depth.
 * Inside objects the walk goes on member by member (`credentials {clientId, clientSecret}`); a list
 * of plain values under a secret name is one secret (`apiKeys: [...]`); inside a secret-named
 * object, members that only say how it is held (`value`, `pem`...) are secret too.
 */
export function secretNamePointers(value: Json | undefined, base: string): string[] {
  const out: string[] = [];
  const walk = (v: Json, at: string, secretContext: boolean): void => {
    if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, child(at, i), secretContext));
      return;
    }
    // Stryker disable next-line ConditionalExpression: a string or number has no member names to walk.
    if (!isObject(v)) return;
    for (const [key, member] of Object.entries(v)) {
      const named = isSecretName(key) || (secretContext && ENCODING_WORDS.has(key.toLowerCase()));
      const ptr = child(at, key);
      if (member === null || typeof member === 'boolean') continue;
      if (isObject(member)) walk(member, ptr, named);
      else if (Array.isArray(member) && member.some((m) => isObject(m) || Array.isArray(m))) walk(member, ptr, named);
      else if (named) out.push(ptr);
    }
  };
  // Stryker disable next-line ConditionalExpression: walking undefined finds nothing either.
  if (value !== undefined) walk(value, base, false);
  return out;
}

/** Pointers (below `base`) of every value at any depth for which `test` holds. */
function valuePointers(value: Json | undefined, base: string, test: (v: Json) => boolean): string[] {
  const out: string[] = [];
  const walk = (v: Json, at: string): void => {
    if (test(v)) out.push(at);
    else if (Array.isArray(v)) v.forEach((item, i) => walk(item, child(at, i)));
    else if (isObject(v)) for (const [k, m] of Object.entries(v)) walk(m, child(at, k));
  };
  // The members below `base`, not `value` itself (an array's indexes are its entries' keys).
  if (isObject(value) || Array.isArray(value)) for (const [k, m] of Object.entries(value)) walk(m, child(base, k));
  return out;
}

/** Pointers (below `base`) of the masked values at any depth. */
export function maskedPointers(value: Json | undefined, base: string): string[] {
  return valuePointers(value, base, isMaskedValue);
}

/** Pointers (below `base`) of the empty strings at any depth. */
export function emptyPointers(value: Json | undefined, base: string): string[] {
  return valuePointers(value, base, isEmptyValue);
}

/** A pointer cut at its first list index: the member holding the list (`/data/keys/0` → `/data/keys`). */
function holdingMember(pointer: string, root: JsonObject): string {
  const segments = parsePointer(pointer);
  for (let i = 1; i <= segments.length; i++) {
    const held = getAt(root, toPointer(segments.slice(0, i - 1)));
    if (Array.isArray(held)) return toPointer(segments.slice(0, i - 1));
  }
  return pointer;
}

/**
 * The live rest an update carries, without what the live record held masked or empty: `carried` is
 * the desired spec completed by live members (plan/core/declared.ts), `declared` the spec the file
 * gives. Every member below `open` that the live record holds masked or empty, at any depth, and
 * that the file does not set, is left out: sending it back would overwrite the real value with the
 * mask. A list holding a mask is left out whole (sending it shorter would drop the hidden items).
 * `left`, when given, receives the pointers of the members left out, sorted.
 */
export function withoutWithheld(carried: JsonObject, live: JsonObject, declared: JsonObject, open: readonly string[], left?: string[]): JsonObject {
  let out = carried;
  const withheld = open.flatMap((p) => {
    const held = getAt(live, p);
    return [...maskedPointers(held, p), ...emptyPointers(held, p)];
  });
  // Never nested: each is a masked or empty value, or the list holding one (cut at the first index).
  const members = new Set(withheld.map((p) => holdingMember(p, live)));
  for (const pointer of members) {
    if (hasAt(declared, pointer) || !hasAt(out, pointer)) continue;
    // Only what came from the live record: the file's own value at this place is its choice.
    if (JSON.stringify(getAt(out, pointer)) !== JSON.stringify(getAt(live, pointer))) continue;
    out = removeAt(out, pointer);
    left?.push(pointer);
  }
  left?.sort();
  return out;
}

