// Outside text made harmless for the medium it lands in: one neutraliser per medium (terminal, CI
// log, Markdown, JSON), used by every renderer. Names, messages and ids come from the service and
// from files; none of them may move a cursor, rewrite a line, reorder what a reader sees (Trojan
// Source), hide characters, start a workflow command, notify anyone, or break out of Markdown.
//
// Characters are shown escaped (`\x1b`, `\u202e`, `\n`), not dropped, so the reader sees that
// something odd is there. Backslashes are left alone: every neutraliser is idempotent, so a value
// already neutralised for one medium can go through another without being escaped twice.

/**
 * Controls (C0, DEL, C1), format characters (bidi overrides and isolates, zero-width characters,
 * soft hyphen, tag characters), line and paragraph separators, lone surrogates, and the
 * characters that render as nothing although they are letters (Hangul fillers, the combining
 * grapheme joiner) or are no characters at all.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u034f\u115f\u1160\u3164\uffa0\ufffe\uffff]/u;
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'gu');

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `\n`, `\x1b`, `\u202e`, `\u{e0041}`: how an unsafe character is shown. */
function escapeChar(c: string): string {
  const named = NAMED[c];
  if (named !== undefined) return named;
  const cp = c.codePointAt(0)!;
  const hex = cp.toString(16);
  // Stryker disable next-line EqualityOperator: U+00FF is a letter (ÿ), never escaped, so < and <= agree.
  if (cp <= 0xff) return `\\x${hex.padStart(2, '0')}`;
  if (cp <= 0xffff) return `\\u${hex.padStart(4, '0')}`;
  return `\\u{${hex}}`;
}

/** True when `text` holds a character some medium must not receive raw. */
export function hasUnsafe(text: string): boolean {
  return UNSAFE.test(text);
}

// ---------------------------------------------------------------------------------------------
// Terminal

/**
 * A value for one line of terminal text: every control and invisible character escaped, newline
 * included. Colour is added by the renderer around the result, never inside it.
 */
export function inertText(text: string): string {
  return UNSAFE.test(text) ? text.replace(UNSAFE_ALL, escapeChar) : text;
}

/**
 * Exactly the SGR sequences src/render/ansi.ts and diagnostics.ts write (colours, bold, dim, reset),
 * or one unsafe character other than the line feed (lines stay lines; a match per line would be a
 * call per line of a large plan).
 */
const OWN_SGR_OR_UNSAFE = new RegExp(`\u001b\\[(?:0|1|2|22|31|32|33|36|39)m|(?!\n)${UNSAFE.source}`, 'gu');

export interface LogOptions {
  /** Keep our own colour codes (the text was rendered with colour). */
  colour?: boolean;
  /** The text is our own workflow commands (validate --format github): lines may start with `::`. */
  commands?: boolean;
}

/**
 * A whole text about to be printed (stdout, stderr, the Action's log): lines stay lines, every
 * other unsafe character is escaped, and no line can start a workflow command. The last step before
 * output, behind the renderers' own neutralising of each value.
 *
 * The runner reads a command from a line that starts with `::` after leading whitespace (the v2
 * syntax, `TrimStart` then `StartsWith("::")`) or that holds `##[` anywhere (the v1 syntax). Such a
 * line gets its first `:` (or the `[`) shown as `\x3a` (`\x5b`): visible, and inert, without
 * `::stop-commands::` state that one lost token or one missed end marker would undo.
 */
export function inertLog(text: string, options: LogOptions = {}): string {
  // Printable ASCII and line feeds hold no colour code and nothing unsafe: only the commands remain.
  const out = !NOT_PLAIN.test(text)
    ? text
    : text.replace(OWN_SGR_OR_UNSAFE, (m) => {
        if (m.length > 2) return options.colour ? m : [...m].map((c) => (UNSAFE.test(c) ? escapeChar(c) : c)).join('');
        return escapeChar(m);
      });
  if (options.commands) return out;
  // `[^\S\n]`: the whitespace TrimStart skips (what is left of it once controls are escaped). A
  // text without `::` and `##[` (a plan's lines, almost always) has nothing to replace.
  const started = out.includes('::') ? out.replace(COMMAND_START, '$1\\x3a:') : out;
  return started.includes('##[') ? started.replaceAll('##[', '##\\x5b') : started;
}

const COMMAND_START = /^([^\S\n]*)::/gm;
// Stryker disable next-line Regex: a shortcut only; text it sends the long way (any) comes out of the character pass the same.
const NOT_PLAIN = /[^\n\x20-\x7e]/;

/** Workflow command data: `%`, CR and LF escaped (GitHub's toolkit rules). */
export function escapeCommandData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Workflow command property values: as data, plus `:` and `,`. */
export function escapeCommandProperty(s: string): string {
  return escapeCommandData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

// ---------------------------------------------------------------------------------------------
// Markdown (pull-request comments, the drift issue, job summaries)

/**
 * What GitHub turns into a notification or a cross-reference: `@user` and `@org/team` (GitHub's
 * mention needs a non-word character or nothing before the `@`), `#12`, `GH-12`, `owner/repo#12`,
 * and URLs (a link to an issue cross-references it too). Found in the raw text, which is also the
 * text the Markdown renders to, so the boundaries are GitHub's own.
 */
const LINKABLE =
  /(?<![A-Za-z0-9_])@[A-Za-z0-9][A-Za-z0-9_.\/-]*|(?<![A-Za-z0-9_])[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+#\d+|(?<![A-Za-z0-9_])(?:#|GH-)\d+|(?<![A-Za-z0-9_])(?:[a-z][a-z0-9+.-]*:\/\/|www\.)[^\s`|<>"']+/giu;

// A shortcut past the slow pattern: a text with none of these holds no linkable token.
// Stryker disable next-line Regex: `[^@#]` differs only on texts of `@` and `#` alone, none of them linkable.
const MAYBE_LINKABLE = /[@#]|:\/\/|www\.|gh-\d/i;

/** Splits `text` into plain parts (escaped by `plain`) and linkable tokens (wrapped by `token`). */
function splitLinkable(text: string, plain: (s: string) => string, token: (s: string) => string): string {
  // Stryker disable next-line ConditionalExpression: a shortcut; the loop below finds no token either.
  if (!MAYBE_LINKABLE.test(text)) return plain(text);
  let out = '';
  let last = 0;
  for (const m of text.matchAll(LINKABLE)) {
    out += plain(text.slice(last, m.index)) + token(m[0]);
    last = m.index + m[0].length;
  }
  return out + plain(text.slice(last));
}

function mdPunctuation(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]|~$])/g, '\\$1');
}

/**
 * Plain text for Markdown (tables included): controls and invisible characters escaped, newlines
 * shown as `\n`; HTML special characters become entities; emphasis, code, link, math and table
 * punctuation is backslash-escaped; mentions, references and URLs become code spans, which GitHub
 * neither links nor notifies from. Never used at the start of a line.
 *
 * Why code spans: GitHub finds mentions and references in the rendered HTML's text and skips text
 * inside `code` (and `pre`, `a`); a code span is an element of its own in every rendering, where a
 * comment or an entity between `@` and the name is gone or decoded once the HTML is cleaned.
 */
export function escapeMd(text: string): string {
  return splitLinkable(inertText(text), mdPunctuation, inlineCode);
}

function htmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;').replace(/\|/g, '&#124;');
}

/** Text inside raw HTML (`<summary>`), where Markdown escapes would show literally: mentions in `<code>`. */
export function escapeHtml(text: string): string {
  return splitLinkable(inertText(text), htmlText, (t) => `<code>${htmlText(t)}</code>`);
}

function longestRun(text: string, ch: string): number {
  let best = 0;
  let run = 0;
  for (const c of text) {
    run = c === ch ? run + 1 : 0;
    best = Math.max(best, run);
  }
  return best;
}

/** A code span that survives backticks inside; `|` escaped so it also survives table cells. */
export function inlineCode(text: string): string {
  const flat = inertText(text);
  const ticks = '`'.repeat(longestRun(flat, '`') + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${flat.replace(/\|/g, '\\|')}${pad}${ticks}`;
}

/**
 * A fenced block whose fence is longer than any backtick run inside, so content cannot close it;
 * each line neutralised (a line of outside text is one line here: its own breaks are escaped).
 */
export function fenced(lang: string, lines: readonly string[]): string {
  const body = lines.map(inertText).join('\n');
  const fence = '`'.repeat(Math.max(3, longestRun(body, '`') + 1));
  return `${fence}${lang}\n${body}\n${fence}`;
}

// ---------------------------------------------------------------------------------------------
// HTML (the routing report)

/**
 * Text for an HTML element or a quoted attribute value: controls and invisible characters escaped
 * as for a terminal (so a bidi override cannot reorder the page), then `& < > " '` as entities.
 * Nothing in the result can open a tag, end an attribute or a `<script>`, or start a URL scheme
 * (it is never put in an `href`).
 */
export function inertHtml(text: string): string {
  return inertText(text).replace(/[&<>"']/g, (c) => HTML_ENTITY[c]!);
}

const HTML_ENTITY: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

// ---------------------------------------------------------------------------------------------
// JSON

/**
 * JSON text that parses to exactly the same value, with nothing a terminal acts on: JSON.stringify
 * escapes C0 controls and lone surrogates already; DEL, C1 controls, format characters and U+2028/9
 * it leaves raw. Outside strings JSON text is ASCII, so every such character sits in a string,
 * where its `\uXXXX` escape (a surrogate pair past U+FFFF) means the same character. So printed
 * in a CI log (where inertLog would change it) it already holds no line a runner reads as a command.
 */
export function inertJson(json: string): string {
  // `##[` anywhere in a line is the runner's v1 command syntax: inside a string, `\u005b` is the same `[`.
  const text = json.replaceAll('##[', '##\\u005b');
  // Stryker disable next-line ConditionalExpression: a shortcut; the replace below finds nothing either.
  if (!UNSAFE.test(text)) return text;
  return text.replace(UNSAFE_ALL, (c) => {
    // Raw tab, newline and carriage return in JSON text are whitespace between tokens.
    if (c === '\n' || c === '\t' || c === '\r') return c;
    let out = '';
    for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}
