// Keeps credentials out of every message the client produces.

const REDACTED = '[redacted]';
const MAX_TEXT = 200;
const MIN_SECRET_LENGTH = 4;
const MAX_MESSAGE = 1000;

export class Redactor {
  private readonly values = new Set<string>();

  constructor(initial: string[]) {
    for (const v of initial) this.add(v);
  }

  /**
   * Remembers another sensitive value (each bearer token the client receives). Values shorter than
   * 4 characters are not credentials anyone issues, and replacing them would shred every message.
   */
  add(value: string): void {
    if (value.length >= MIN_SECRET_LENGTH) this.values.add(value);
  }

  redact(text: string): string {
    let out = text;
    // Longest first, so a value containing another is removed whole.
    for (const v of [...this.values].sort((a, b) => b.length - a.length)) out = out.split(v).join(REDACTED);
    return out;
  }

  /**
   * The service's explanation in an error body: its JSON `message`, or for a body that is not
   * JSON the first 200 characters of the text. Redacted before it is cut, so a cut cannot leave
   * part of a secret behind.
   */
  serviceMessage(text: string): string | undefined {
    const trimmed = text.trim();
    if (trimmed === '') return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch {
      return cut(this.redact(trimmed).replace(/\s+/g, ' '), MAX_TEXT);
    }
    if (parsed !== null && typeof parsed === 'object' && 'message' in parsed) {
      const message = (parsed as { message: unknown }).message;
      if (typeof message === 'string' && message.trim() !== '') return cut(this.redact(message.trim()), MAX_MESSAGE);
    }
    return undefined;
  }
}

function cut(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) : text;
}
