// The YAML a plan shows, written directly for the values most plans hold: yaml's stringify builds a
// document of nodes for every value, which for a plan of 10,000 changes was a quarter of its CPU.
// Only values whose every key and string yaml writes as a plain scalar (or, for digits and words
// like `true`, in double quotes), and whose every number is a safe integer, are written here; for anything else the caller uses yaml's stringify. The output is
// byte for byte what `stringify(value, { sortMapEntries: true, lineWidth: 0, minContentWidth: 0 })`
// gives (a test compares the two over many values).

import type { Json } from '../model/json.js';
import { compareText } from '../model/compare.js';

/** Words the YAML 1.2 core schema reads as null or a boolean: yaml quotes them. */
const NOT_STRINGS = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE']);
/**
 * Strings yaml leaves plain, conservatively: printable ASCII without quotes, `#`, `!`, `&`, `*`,
 * `%`, `|`, `>`, `?`, `[`, `]`, `` ` `` or `\`; starting with a letter, a digit (then holding a
 * character no number holds), `_`, `$`, `/` or `(` (so no indicator, sign or dot); not ending with
 * a space or `:`; at most 1,000 characters (longer keys are written as explicit keys).
 */
const PLAIN = /^[A-Za-z0-9_$/(][A-Za-z0-9 _.,/:;@$~{}()+=^-]{0,999}$/;
/** A character no YAML 1.2 number (decimal, 0x, 0o, exponent, .inf) can hold. */
const NOT_NUMERIC = /[^0-9a-fA-F.xo+-]/;

function plain(s: string): boolean {
  if (!PLAIN.test(s) || s.includes(': ') || s.endsWith(' ') || s.endsWith(':') || NOT_STRINGS.has(s)) return false;
  // Starting with a digit, it is a string only if it cannot be read as a number.
  return !(s[0] >= '0' && s[0] <= '9') || NOT_NUMERIC.test(s);
}

/** Digits only: yaml would read an integer, so it writes the string in double quotes. */
const DIGITS = /^[0-9]{1,999}$/;

/** A string (key or value) as yaml writes it, or undefined when it is not one this module writes. */
function text(s: string): string | undefined {
  if (plain(s)) return s;
  if (DIGITS.test(s) || NOT_STRINGS.has(s)) return `"${s}"`;
  return undefined;
}

/** A scalar as yaml writes it, or undefined when it is not one this module writes. */
function scalar(v: Json): string | undefined {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return Number.isSafeInteger(v) && !Object.is(v, -0) ? String(v) : undefined;
  if (typeof v === 'string') return text(v);
  return undefined;
}

/** Thrown (not an Error: no stack to capture) when a value is not one this module writes. */
const NOT_PLAIN = Symbol('not plain');

const byKey = compareText;

/** A collection's lines at `indent`; the first line without its indent when `first` is false. */
function collection(v: Json, indent: string, out: string[], inline: boolean): void {
  if (Array.isArray(v)) {
    v.forEach((item, i) => {
      const lead = i === 0 && inline ? '- ' : `${indent}- `;
      node(item, lead, indent + '  ', out);
    });
    return;
  }
  const obj = v as Record<string, Json>;
  Object.keys(obj)
    .sort(byKey)
    .forEach((key, i) => {
      const name = text(key);
      const value = obj[key];
      if (name === undefined || value === undefined) throw NOT_PLAIN;
      const lead = i === 0 && inline ? `${name}:` : `${indent}${name}:`;
      if (value !== null && typeof value === 'object' && (Array.isArray(value) ? value.length : Object.keys(value).length) > 0) {
        out.push(lead);
        collection(value, indent + '  ', out, false);
      } else {
        node(value, lead + ' ', indent + '  ', out);
      }
    });
}

/** One value after `lead` (`- ` or `key: `): a scalar or empty collection on the line, else nested. */
function node(v: Json, lead: string, indent: string, out: string[]): void {
  if (v !== null && typeof v === 'object') {
    const empty = Array.isArray(v) ? v.length === 0 : Object.keys(v).length === 0;
    if (empty) {
      out.push(lead + (Array.isArray(v) ? '[]' : '{}'));
      return;
    }
    // `- key: value` / `- - item`: the first line of the nested collection follows the dash.
    const lines: string[] = [];
    collection(v, indent, lines, true);
    out.push(lead + lines[0], ...lines.slice(1));
    return;
  }
  const s = scalar(v);
  if (s === undefined) throw NOT_PLAIN;
  out.push(lead + s);
}

/** `value` as YAML, or undefined when yaml's stringify has to write it. */
export function plainYaml(value: Json): string | undefined {
  const out: string[] = [];
  try {
    if (value !== null && typeof value === 'object') {
      const empty = Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
      if (empty) return Array.isArray(value) ? '[]\n' : '{}\n';
      collection(value, '', out, false);
    } else {
      const s = scalar(value);
      if (s === undefined) return undefined;
      out.push(s);
    }
  } catch (err) {
    if (err === NOT_PLAIN) return undefined;
    throw err;
  }
  return out.join('\n') + '\n';
}
