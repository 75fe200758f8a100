// The last line of defence before a text leaves for GitHub (comment, issue, summary, log): plans are
// masked already, but should the value of a variable the configuration reads (or a credential) still
// appear, it is replaced, and the log names the variable, never the value.

import { MASK } from '../model/env-markers.js';
import { Redactor } from '../model/masking.js';

/** Shorter values match too much ordinary text to be told apart from it. */
const MIN_SECRET_LENGTH = 6;

export type Guard = (text: string) => string;

/** A function that masks the values of `names` in a text and reports (by name) what it found. */
export function secretGuard(env: NodeJS.ProcessEnv, names: readonly string[], onFound: (names: string[]) => void): Guard {
  const redactor = new Redactor({ mask: MASK, minLength: MIN_SECRET_LENGTH, short: 'skip' });
  // The redactor skips an empty value and keeps a name given twice once.
  for (const name of names) {
    const value = env[name];
    if (value !== undefined) redactor.add(value, name);
  }
  return (text) => {
    const found = redactor.labelsIn(text);
    if (found.length === 0) return text;
    onFound(found);
    return redactor.redact(text);
  };
}
