#!/usr/bin/env node
// The CLI entry: parses arguments, calls src/, prints, exits. The only place that exits.
// First, before any module whose functions it tunes runs: V8's tier-up for a run of seconds.
import '../src/util/v8-tiering.js';
import { inertText } from '../src/model/inert.js';
import { run } from './main.js';

// A reader that stops early (`postureops --help | head -1`) is no error of ours: what is left of the output
// goes nowhere, and the command ends as it would have (an apply still frees its lease).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
  });
}

run(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    // Last resort: cmd/main.ts turns every expected failure into a message and an exit code.
    process.stderr.write(`postureops: internal error: ${inertText(err instanceof Error ? err.message : String(err))}\n`);
    process.exitCode = 1;
  },
);
