// Registers every secret with the runner (`::add-mask::`) before anything could print it: the
// Action's own credentials first, then each value the loader reads from the environment, as it
// reads it (after YAML decoding: what the configuration really reads, not what a scan of its text
// finds), whether the configuration then loads or not. Each value is registered in the forms a
// service or serialiser may echo it in, and line by line.

import * as core from '@actions/core';
import { ENV_KEY_ID, ENV_SECRET } from '../api/options.js';
import { PLAN_KEY_VARIABLE } from '../plan/saved/plan-file.js';
import { echoForms } from '../model/masking.js';

/** Credentials masked whatever the configuration says. */
export const CREDENTIAL_VARIABLES = [ENV_SECRET, ENV_KEY_ID, 'GITHUB_TOKEN', 'INPUT_GITHUB-TOKEN', PLAN_KEY_VARIABLE];

/** The forms of `value` registered with the runner. */
export function maskForms(value: string): string[] {
  const forms = new Set(echoForms(value));
  for (const line of value.split(/\r?\n/)) if (line.trim().length >= 4) forms.add(line.trim());
  // echoForms leaves out the empty form, and a line is taken only with four characters: none is empty.
  return [...forms];
}

/** Registers the values with the runner. */
export function registerValues(values: Iterable<string>, setSecret: (v: string) => void = core.setSecret): void {
  // An empty value has no form (maskForms('') is empty): nothing is registered for it.
  for (const value of values) for (const form of maskForms(value)) setSecret(form);
}

/** Registers the credentials; returns the names whose values were registered (the guard's list). */
export function maskCredentials(env: NodeJS.ProcessEnv, setSecret: (v: string) => void = core.setSecret): string[] {
  const masked: string[] = [];
  for (const name of CREDENTIAL_VARIABLES) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    registerValues([value], setSecret);
    masked.push(name);
  }
  return masked;
}
