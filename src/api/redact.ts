// Keeps credentials out of every message the client produces: the key, the secret and each bearer
// token are hidden (in every form the service could echo them) before a message is kept.

import { Redactor } from '../model/masking.js';

const REDACTED = '[redacted]';
const MAX_TEXT = 200;
const MAX_MESSAGE = 1000;

/** Values shorter than 4 characters are not credentials anyone issues; hiding them would shred messages. */
export function credentialRedactor(values: string[]): Redactor {
  return new Redactor({ mask: REDACTED, minLength: 4, short: 'skip' }, values);
}

/**
 * The service's explanation in an error body: its JSON `message`, or for a body that is not JSON
 * the first 200 characters of the text. Redacted before it is cut, so a cut cannot leave part of a
 * secret behind.
 */
export function serviceMessage(redactor: Redactor, text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    return redactor.redact(trimmed).replace(/\s+/g, ' ').slice(0, MAX_TEXT);
  }
  if (parsed !== null && typeof parsed === 'object' && 'message' in parsed) {
    const message = (parsed as { message: unknown }).message;
    if (typeof message === 'string' && message.trim() !== '') return redactor.redact(message.trim()).slice(0, MAX_MESSAGE);
  }
  return undefined;
}

