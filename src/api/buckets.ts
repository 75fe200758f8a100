// Rate-limit buckets are protocol knowledge: "each API v2 functionality has its own bucket", and
// "reading one agent access token and listing agent access tokens share one bucket (the path id
// is disregarded)". A functionality is the method plus the path without its identifiers. Which
// segment is an identifier follows from the API's naming rules, not from a list of collections:
// collections and namespaces are UpperCamelCase plurals (`AlertChannels`, `Activities`, `DNSs`),
// verbs and fixed words are lowercase letters (`search`, `test`, `access/tokens`, `schemas`).
// Identifiers (intgGuid, mcGuid, a token's hex value, an alert profile id, a template name) carry
// digits, `_`, `-`, `.` or upper-case runs, and so never look like either.
// Limit: an identifier made only of lowercase letters (a template named `violation`) in the last
// position after a collection reads as a verb; it then gets a bucket of its own, which only makes
// the budget estimate more cautious for that one path.

export const API_PREFIX = '/api/v2';

const COLLECTION = /^[A-Z][A-Za-z]*[a-z]s$|^[A-Z]+s$/;
const WORD = /^[a-z]+$/;

/** `bucketOf('GET', '/api/v2/AlertChannels/ABC_123')` → `GET AlertChannels`. */
export function bucketOf(method: string, path: string): string {
  const bare = path.split('?')[0];
  const rest = bare.startsWith(API_PREFIX) ? bare.slice(API_PREFIX.length) : bare;
  const segments = rest.split('/').filter((s) => s !== '');
  const kept: string[] = [];
  segments.forEach((segment, i) => {
    const afterCollection = i > 0 && COLLECTION.test(segments[i - 1]);
    const last = i === segments.length - 1;
    // A lowercase word right after a collection is a verb only at the end (`.../search`, `.../{id}/test`).
    if (COLLECTION.test(segment) || (WORD.test(segment) && (!afterCollection || last))) kept.push(segment);
  });
  return `${method.toUpperCase()} ${kept.join('/')}`;
}
