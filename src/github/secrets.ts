// Registers every secret with the runner (`::add-mask::`) before anything is printed: the values of
// the variables the configuration reads through ${env:NAME} (found by scanning the files, so that
// even a configuration that does not load is covered), and the service and GitHub credentials. Each
// value is registered in the forms a service or serialiser may echo it in, and line by line.

import * as core from '@actions/core';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ENV_KEY_ID, ENV_SECRET } from '../api/options.js';
import { PLAN_KEY_VARIABLE } from '../plan/saved/plan-file.js';
import { envNames } from '../model/env.js';
import { echoForms } from '../model/masking.js';

/** Credentials masked whatever the configuration says. */
export const CREDENTIAL_VARIABLES = [ENV_SECRET, ENV_KEY_ID, 'GITHUB_TOKEN', 'INPUT_GITHUB-TOKEN', PLAN_KEY_VARIABLE];

const SKIP_DIRS = new Set(['node_modules', '.git']);

/** Names of the variables the YAML files below `dir` read with ${env:NAME}; [] when there are none or the folder is unreadable. */
export function referencedVariables(dir: string): string[] {
  const names = new Set<string>();
  const walk = (d: string, depth: number): void => {
    if (depth > 20) return;
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory() && !SKIP_DIRS.has(e.name)) walk(p, depth + 1);
      else if (e.isFile() && /\.ya?ml$/i.test(e.name)) {
        try {
          for (const n of envNames(readFileSync(p, 'utf8'))) names.add(n);
        } catch {
          // unreadable: the loader reports it
        }
      }
    }
  };
  walk(dir, 0);
  return [...names].sort();
}

/** The forms of `value` registered with the runner. */
export function maskForms(value: string): string[] {
  const forms = new Set(echoForms(value));
  for (const line of value.split(/\r?\n/)) if (line.trim().length >= 4) forms.add(line.trim());
  return [...forms].filter((f) => f !== '');
}

/** Registers the secrets; returns the names whose values were registered (the redactor's list). */
export function maskSecrets(dir: string, env: NodeJS.ProcessEnv, setSecret: (v: string) => void = core.setSecret): string[] {
  const names = [...new Set([...CREDENTIAL_VARIABLES, ...referencedVariables(dir)])];
  const masked: string[] = [];
  for (const name of names) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    for (const form of maskForms(value)) setSecret(form);
    masked.push(name);
  }
  return masked;
}
