// Text for a terminal of a given width: a line longer than the width is broken at spaces, its
// continuation lines indented two columns past the line's own indent (a hanging indent), and cut
// inside a word only when the word alone is wider than the line. Our colour codes (SGR) take no
// width. Pure: the CLI passes the width (cmd/io.ts, terminalWidth).

const SGR = /\u001b\[[0-9;]*m/g;

/** Columns a text takes on screen (colour codes take none; one column a code point). */
export function visibleWidth(text: string): number {
  const shown = text.includes('\u001b') ? text.replace(SGR, '') : text;
  // Without surrogates every UTF-16 unit is a code point: no need to split it into them.
  return SURROGATE.test(shown) ? [...shown].length : shown.length;
}

const SURROGATE = /[\ud800-\udfff]/;

/** Least room a continuation line keeps for text, however deep its indent. */
const MIN_ROOM = 20;

/** Splits a word wider than `room` into pieces of `room` columns (colour codes go with the text they precede). */
function chunks(word: string, room: number): string[] {
  const out: string[] = [];
  let cur = '';
  let width = 0;
  for (const part of word.split(/(\u001b\[[0-9;]*m)/)) {
    if (part.startsWith('\u001b[')) {
      cur += part;
      continue;
    }
    for (const ch of part) {
      if (width === room) {
        out.push(cur);
        cur = '';
        width = 0;
      }
      cur += ch;
      width++;
    }
  }
  if (cur !== '') out.push(cur);
  return out;
}

export function wrapLine(line: string, width: number): string[] {
  // No wider than its length (a code point takes one or two UTF-16 units; colour codes take none).
  if (line.length <= width || visibleWidth(line) <= width) return [line];
  const indent = /^ */.exec(line)![0];
  // Two columns past the line's indent: under the text of a list item (`- x`, `+ x`), and set off from a plain line.
  const hang = ' '.repeat(Math.min(indent.length + 2, Math.max(0, width - MIN_ROOM)));
  const tokens = line.slice(indent.length).match(/ +|[^ ]+/g) ?? [];
  const out: string[] = [];
  let cur = indent;
  let curWidth = indent.length;
  let fresh = true;
  for (const token of tokens) {
    const w = visibleWidth(token);
    if (token.startsWith(' ')) {
      if (!fresh) {
        cur += token;
        curWidth += w;
      }
      continue;
    }
    if (!fresh && curWidth + w > width) {
      out.push(cur.trimEnd());
      cur = hang;
      curWidth = hang.length;
      fresh = true;
    }
    if (curWidth + w > width) {
      // Wider than a whole line: cut it; the last piece goes on with the line.
      let rest = token;
      while (visibleWidth(rest) > width - curWidth) {
        const [head, ...tail] = chunks(rest, Math.max(1, width - curWidth));
        out.push(cur + head);
        cur = hang;
        curWidth = hang.length;
        rest = tail.join('');
      }
      cur += rest;
      curWidth += visibleWidth(rest);
    } else {
      cur += token;
      curWidth += w;
    }
    fresh = false;
  }
  out.push(cur.trimEnd());
  return out;
}

/**
 * Every line of `text` wrapped to `width` columns; the line breaks it had stay. A run of lines that
 * need no wrapping is copied as one slice (most of a plan of 3 MB), not split and joined again.
 */
export function wrapText(text: string, width: number): string {
  if (!Number.isFinite(width) || width < 1) return text;
  let out = '';
  let kept = 0; // where the text not yet copied to `out` starts
  let changed = false;
  for (let start = 0; start <= text.length; ) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    if (end - start > width) {
      const line = text.slice(start, end);
      const wrapped = wrapLine(line, width).join('\n');
      if (wrapped !== line) {
        out += text.slice(kept, start) + wrapped;
        kept = end;
        changed = true;
      }
    }
    start = end + 1;
  }
  return changed ? out + text.slice(kept) : text;
}
