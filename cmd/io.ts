// What a command needs from the process, injectable so tests can drive commands in-process.

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Record<string, string | undefined>;
  cwd: string;
}

export function processIo(): Io {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd() };
}

/** Exit codes (contract): documented in README.md. */
export const EXIT = { ok: 0, error: 1, changes: 2, refused: 3, leaseHeld: 4 } as const;

/** One error type the CLI catches at the top: a message for stderr and an exit code. */
export class ExitError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'ExitError';
  }
}

/** Colour follows the terminal; NO_COLOR (any non-empty value) turns it off, FORCE_COLOR turns it on. */
export function useColor(stream: { isTTY?: boolean }, env: Io['env']): boolean {
  if (env.NO_COLOR) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !(force === '0' || force === 'false');
  return stream.isTTY === true;
}

export function write(stream: NodeJS.WritableStream, text: string): void {
  stream.write(text.endsWith('\n') || text === '' ? text : text + '\n');
}
