// The last line of defence before anything leaves for GitHub: plans are masked already, but should a
// value of a variable the plan reads (or a credential) still appear, it is replaced, and the log
// names the variable, never the value.

import { envTemplates, MASK } from '../model/env-markers.js';
import type { Json } from '../model/json.js';
import { envNames } from '../model/env.js';
import { Redactor } from '../model/masking.js';
import type { Env } from './context.js';

/** Shorter values match too much ordinary text to be told apart from it. */
const MIN_SECRET_LENGTH = 6;
const CREDENTIAL_VARS = ['SVC_API_SECRET', 'SVC_API_KEY_ID', 'GITHUB_TOKEN', 'INPUT_GITHUB-TOKEN', 'INPUT_GITHUB_TOKEN'];

/** Names of the variables the env markers in `values` read. */
export function markerVariables(values: readonly (Json | undefined)[]): string[] {
  return [...new Set(values.flatMap(envTemplates).flatMap(envNames))].sort();
}

/** `text` with the value of every listed variable (and credential) replaced, in any echoed form; which ones were found. */
export function redactSecrets(text: string, env: Env, variables: readonly string[]): { text: string; found: string[] } {
  const redactor = new Redactor({ mask: MASK, minLength: MIN_SECRET_LENGTH, short: 'skip' });
  for (const name of [...new Set([...variables, ...CREDENTIAL_VARS])]) {
    const value = env[name];
    if (value !== undefined) redactor.add(value, name);
  }
  const found = redactor.labelsIn(text);
  return { text: found.length > 0 ? redactor.redact(text) : text, found };
}
