// How soon V8 compiles a hot function with its optimizing compiler, tuned for a run of seconds.
//
// Node 20's V8 (11.x) sends a function to TurboFan once about 66 KB of its bytecode has run
// (`--interrupt-budget=67584`). A plan or validate runs a few seconds over hundreds of functions, and
// most of those compiles never pay back: on the bench's plan (10,000 resources) the compiler threads
// took about a third of the process's CPU. Later V8s tier up later on their own (Node 22 and 24 put
// Maglev between the tiers and count invocations) and no longer know this flag. An unknown flag is
// not an error for V8 but a line it prints on stdout, where it would corrupt `--format json`: so only
// the V8 this was measured on is tuned, and any other runs with its defaults.
//
// Imported first by the entries (cmd/postureops.ts), before the modules whose functions it tunes
// run. It changes when code is optimized, never what it does. docs/performance.md has the figures.

import { setFlagsFromString } from 'node:v8';

/** Bytecode a function runs before V8 11 considers optimizing it: about 15 times its default. */
export const INTERRUPT_BUDGET = 1_000_000;

/** The V8 major versions that know `--interrupt-budget` with this meaning (measured: 11, Node 20). */
const TUNED_MAJORS: ReadonlySet<string> = new Set(['11']);

/** The flags this V8 gets; none for a version not measured. */
export function tieringFlags(v8Version: string): string[] {
  return TUNED_MAJORS.has(v8Version.split('.')[0]) ? [`--interrupt-budget=${INTERRUPT_BUDGET}`] : [];
}

/** Sets the flags on the running V8 (process-wide, worker threads included); what it set. */
export function tuneTiering(v8Version: string = process.versions.v8, set: (flags: string) => void = setFlagsFromString): string[] {
  const flags = tieringFlags(v8Version);
  for (const flag of flags) set(flag);
  return flags;
}

tuneTiering();
