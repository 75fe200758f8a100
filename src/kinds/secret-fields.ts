// Secret members of an integration's `data`, as the kinds (and, until issue 12 is done, the emulator)
// describe them: a dotted path inside `data`, whether it is write-only, and how the service masks it.
// Secrets no table names (members of unknown types named as secrets, members shown masked) are
// found by src/model/secret-detection.ts.

/**
 * How the service hides a write-only member in responses:
 * `empty` returns "", `omitted` leaves the member out.
 */
export type Masking = 'empty' | 'omitted';

export interface SecretField {
  /** Dotted path inside `data`, e.g. `credentials.privateKey`. */
  path: string;
  /** Write-only: never returned as written. Otherwise returned in clear but still never shown. */
  writeOnly: boolean;
  masking?: Masking;
}

/** Dotted path → JSON pointer below `/data`: `credentials.privateKey` → `/data/credentials/privateKey`. */
export function dataPointer(dotted: string): string {
  return '/data/' + dotted.split('.').join('/');
}
