// The one redactor: every text that leaves postureops (terminal, JSON, Markdown, plan files, logs,
// GitHub comments) passes through one of these. It knows the values it must hide and the forms in
// which a service or a serialiser may echo them back: as written, JSON-escaped (a multi-line private
// key becomes `\n`-escaped), URL-encoded, and base64 (at any byte alignment, plain or URL-safe).

export interface RedactorOptions {
  /** What a hidden value is replaced by. */
  mask: string;
  /**
   * Values at least this long are removed wherever they occur. Shorter ones are removed only where
   * they stand alone (a 2-letter secret must not shred every message), or not at all with
   * `short: 'skip'`. Default 4.
   */
  minLength?: number;
  short?: 'standalone' | 'skip';
}

interface Entry {
  value: string;
  label: string | undefined;
}

/** Base64 of `value` (and its URL-safe spelling) as it appears inside a longer encoded text. */
function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value);
  const out: string[] = [];
  for (const pad of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(pad), bytes]).toString('base64');
    // Only the characters whose 6 bits all come from `value` are the same whatever surrounds it;
    // under 8 of them (a value under 6 bytes) would match unrelated encoded text.
    const core = encoded.slice(Math.ceil((pad * 8) / 6), Math.floor(((pad + bytes.length) * 8) / 6));
    if (core.length >= 8) out.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return out;
}

/** Lines of a multi-line value long enough to be secret on their own (a private key's body lines). */
const MIN_LINE = 16;

/** The forms in which `value` may come back inside other text. */
export function echoForms(value: string): string[] {
  const forms = new Set([value]);
  const escaped = JSON.stringify(value).slice(1, -1);
  forms.add(escaped);
  forms.add(JSON.stringify(escaped).slice(1, -1));
  // Serialisers that also escape `/`, or spell control characters as \u00XX.
  forms.add(escaped.replace(/\//g, '\\/'));
  forms.add(escaped.replace(/\\n/g, '\\u000a').replace(/\\r/g, '\\u000d').replace(/\\t/g, '\\u0009'));
  const encoded = encodeURIComponent(value);
  forms.add(encoded);
  forms.add(encoded.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()));
  for (const f of base64Forms(value)) forms.add(f);
  // A message cut short, or echoed line by line, still must not show a line of a multi-line secret
  // (trimmed: CRLF or LF, whatever the echo ends its lines with).
  for (const line of value.split('\n')) if (line.trim().length >= MIN_LINE) forms.add(line.trim());
  return [...forms].filter((f) => f !== '');
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export class Redactor {
  private readonly entries: Entry[] = [];
  private readonly seen = new Set<string>();
  private readonly minLength: number;
  /** The forms to remove, longest first, computed once per set of values (redact runs per request). */
  private forms: { long: string[]; short: { form: string; re: RegExp }[]; shortest: number } | undefined;

  constructor(
    private readonly options: RedactorOptions,
    values: Iterable<string> = [],
  ) {
    this.minLength = options.minLength ?? 4;
    for (const v of values) this.add(v);
  }

  /** Remembers another value to hide; `label` names it (a variable) in `labelsIn`. Empty values are ignored. */
  add(value: string, label?: string): void {
    if (value === '' || (value.length < this.minLength && this.options.short === 'skip')) return;
    const key = JSON.stringify([value, label ?? null]);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.entries.push({ value, label });
    this.forms = undefined;
  }

  get size(): number {
    return this.entries.length;
  }

  private compiled(): { long: string[]; short: { form: string; re: RegExp }[]; shortest: number } {
    // Stryker disable next-line ConditionalExpression: a cache; recomputing gives the same forms.
    if (this.forms) return this.forms;
    const long = new Set<string>();
    const short = new Set<string>();
    for (const e of this.entries) for (const form of echoForms(e.value)) (form.length >= this.minLength ? long : short).add(form);
    // Longest first: a value containing another is removed whole.
    // Stryker disable next-line EqualityOperator: forms come from a Set, so a === b never happens.
    const order = (a: string, b: string): number => b.length - a.length || (a < b ? -1 : 1);
    const longForms = [...long].sort(order);
    const shortForms = [...short].sort(order);
    this.forms = {
      long: longForms,
      short: shortForms.map((form) => ({ form, re: new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(form)}(?![A-Za-z0-9])`, 'g') })),
      // Both lists are longest first and every short form is shorter than every long one: the last
      // form is the shortest (no spread of every form as arguments, which a large set would overflow).
      // Stryker disable next-line OptionalChaining: an entry always has forms (its own text at least), so one list holds one
      shortest: (shortForms.at(-1) ?? longForms.at(-1))?.length ?? Infinity,
    };
    return this.forms;
  }

  redact(text: string): string {
    // Stryker disable next-line ConditionalExpression: a shortcut; with no values there are no forms.
    if (this.entries.length === 0) return text;
    const { long, short, shortest } = this.compiled();
    // A text shorter than every form holds none (most strings of a plan: names, types, flags).
    // Stryker disable next-line ConditionalExpression: a shortcut; the loops below leave such a text as it is.
    if (text.length < shortest) return text;
    let out = text;
    // A form the text does not hold is not split on nor searched for (most strings of a plan hold none).
    // Stryker disable next-line ConditionalExpression: a shortcut; splitting on an absent form changes nothing.
    for (const form of long) if (out.includes(form)) out = out.split(form).join(this.options.mask);
    // Stryker disable next-line ConditionalExpression: a shortcut; replacing an absent form changes nothing.
    for (const { form, re } of short) if (out.includes(form)) out = out.replace(re, this.options.mask);
    return out;
  }

  /** Labels of the values that `text` holds in any form (what a log may name instead of the value). */
  labelsIn(text: string): string[] {
    const found = new Set<string>();
    // Stryker disable next-line ConditionalExpression: a shortcut; each value alone has a subset of the forms.
    if (this.redact(text) === text) return [];
    for (const e of this.entries) {
      if (e.label === undefined) continue;
      const alone = new Redactor(this.options, [e.value]);
      if (alone.redact(text) !== text) found.add(e.label);
    }
    return [...found].sort();
  }
}
