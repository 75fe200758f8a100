#!/usr/bin/env node
// The CLI entry: parses arguments, calls src/, prints, exits. The only place that exits.
import { inertText } from '../src/model/inert.js';
import { run } from './main.js';

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
