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

/** Keys repeat from value to value: their verdicts are kept, in a map that starts over when full. */
const keyTexts = new Map<string, string | undefined>();
const KEY_TEXTS_MAX = 4096;

function keyText(key: string): string | undefined {
  let name = keyTexts.get(key);
  if (name === undefined && !keyTexts.has(key)) {
    name = text(key);
    if (keyTexts.size >= KEY_TEXTS_MAX) keyTexts.clear();
    keyTexts.set(key, name);
  }
  return name;
}

const isNonEmpty = (v: Json): v is Json[] | { [key: string]: Json } =>
  v !== null && typeof v === 'object' && (Array.isArray(v) ? v.length > 0 : Object.keys(v).length > 0);

/**
 * A non-empty collection's lines at `indent`. `first` is what its first line starts with instead of
 * the indent: `- ` after a dash (`- key: value`, `- - item`), the indent itself otherwise.
 */
function collection(v: Json[] | { [key: string]: Json }, indent: string, first: string, out: string[]): void {
  const inner = indent + '  ';
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) node(v[i], `${i === 0 ? first : indent}- `, inner, out);
    return;
  }
  const keys = Object.keys(v).sort(byKey);
  for (let i = 0; i < keys.length; i++) {
    const name = keyText(keys[i]);
    const value = v[keys[i]];
    if (name === undefined || value === undefined) throw NOT_PLAIN;
    const lead = `${i === 0 ? first : indent}${name}:`;
    if (isNonEmpty(value)) {
      out.push(lead);
      collection(value, inner, inner, out);
    } else {
      node(value, lead + ' ', inner, out);
    }
  }
}

/** One value after `lead` (`- ` or `key: `): a scalar or empty collection on the line, else nested. */
function node(v: Json, lead: string, indent: string, out: string[]): void {
  if (v !== null && typeof v === 'object') {
    // `- key: value` / `- - item`: the first line of the nested collection follows the dash.
    if (isNonEmpty(v)) collection(v, indent, lead, out);
    else out.push(lead + (Array.isArray(v) ? '[]' : '{}'));
    return;
  }
  const s = scalar(v);
  if (s === undefined) throw NOT_PLAIN;
  out.push(lead + s);
}

/** `value` as lines of YAML (no line ends), or undefined when yaml's stringify has to write it. */
export function plainYamlLines(value: Json): string[] | undefined {
  if (value !== null && typeof value === 'object' && !isNonEmpty(value)) return [Array.isArray(value) ? '[]' : '{}'];
  const out: string[] = [];
  try {
    if (value !== null && typeof value === 'object') collection(value, '', '', out);
    else {
      const s = scalar(value);
      if (s === undefined) return undefined;
      out.push(s);
    }
  } catch (err) {
    if (err === NOT_PLAIN) return undefined;
    throw err;
  }
  return out;
}

/** `value` as YAML, or undefined when yaml's stringify has to write it. */
export function plainYaml(value: Json): string | undefined {
  const lines = plainYamlLines(value);
  return lines === undefined ? undefined : lines.join('\n') + '\n';
}
