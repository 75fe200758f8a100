// The emulator's parse check of a query text (api-facts.md "Queries": two text forms, `---` comment
// lines). Not a query language: it checks what a text that parses must have, so that a client's
// mistakes (an unclosed brace, a missing section) are refused as the service refuses a text that does
// not parse. What it checks:
//   - lines whose first non-blank characters are `---` are comments;
//   - quotes ('…', "…") are closed on their line and braces outside them balance;
//   - the text is one block, anonymous `{ … }` or named `<id> { … }`, with nothing after it;
//   - inside it, only sections `source { … }`, `filter { … }` and `return [distinct] { … }`, in that
//     order, `source` and `return` required, each at most once, `source` not empty.

export interface QueryShape {
  form: 'anonymous' | 'named';
  /** The id written in a named text. */
  name?: string;
  /** The providers the source section names (AWS, GCP, Azure, K8s, Agent), in that order. */
  providers: string[];
  /** The names the return section gives its columns (the alias after `as`, else the last dotted part). */
  columns: string[];
}

export type QueryCheck = { ok: true; shape: QueryShape } | { ok: false; problem: string };

interface Section {
  keyword: string;
  body: string;
  line: number;
}

const SECTION = /^(source|filter|return)(\s+distinct)?$/i;
const ORDER = ['source', 'filter', 'return'];
const NAMED = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** The text with comment lines blanked (line numbers kept). */
function uncommented(text: string): string {
  return text
    .split('\n')
    .map((l) => (l.trimStart().startsWith('---') ? '' : l))
    .join('\n');
}

/** Splits `text` at depth-0 blocks: the prefix words before each `{` and the block's inner text. */
function blocks(text: string, lineBase: number): { head: string; body: string; line: number; tail: string }[] | string {
  const out: { head: string; body: string; line: number; tail: string }[] = [];
  let depth = 0;
  let line = lineBase;
  let quote: string | undefined;
  let head = '';
  let start = -1;
  let startLine = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') {
      if (quote !== undefined) return `line ${line}: a quoted text (${quote}) is not closed on its line`;
      line += 1;
    }
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      continue;
    }
    if (c === '{') {
      if (depth === 0) {
        start = i + 1;
        startLine = line;
      }
      depth += 1;
    } else if (c === '}') {
      if (depth === 0) return `line ${line}: unexpected }`;
      depth -= 1;
      if (depth === 0) {
        out.push({ head: head.trim(), body: text.slice(start, i), line: startLine, tail: '' });
        head = '';
      }
    } else if (depth === 0) {
      head += c;
    }
  }
  if (quote !== undefined) return `line ${line}: a quoted text (${quote}) is not closed`;
  if (depth > 0) return `line ${startLine}: the { opened here is not closed`;
  if (head.trim() !== '') {
    if (out.length === 0) return `line ${lineBase}: expected a block { … }`;
    out[out.length - 1].tail = head.trim();
  }
  return out;
}

/** Splits at depth-0 commas (the columns of a return section). */
function topLevelItems(body: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let current = '';
  for (const c of body) {
    if (c === '(' || c === '{' || c === '[') depth += 1;
    if (c === ')' || c === '}' || c === ']') depth -= 1;
    if (c === ',' && depth === 0) {
      items.push(current);
      current = '';
    } else current += c;
  }
  items.push(current);
  return items.map((s) => s.trim()).filter((s) => s !== '');
}

function columnName(item: string): string {
  const alias = /\s+as\s+([A-Za-z_][A-Za-z0-9_]*)\s*$/i.exec(item);
  if (alias) return alias[1];
  const parts = item.split('.');
  return parts[parts.length - 1].trim();
}

function providersOf(source: string): string[] {
  const found: string[] = [];
  if (/AWS|CloudTrail/i.test(source)) found.push('AWS');
  if (/GCP/i.test(source)) found.push('GCP');
  if (/AZURE/i.test(source)) found.push('Azure');
  if (/K8S/i.test(source)) found.push('K8s');
  if (/_HE_/i.test(source)) found.push('Agent');
  return found;
}

export function checkQueryText(text: string): QueryCheck {
  const outer = blocks(uncommented(text), 1);
  if (typeof outer === 'string') return { ok: false, problem: outer };
  if (outer.length === 0) return { ok: false, problem: 'line 1: expected a block { source {…} return {…} }' };
  if (outer.length > 1) return { ok: false, problem: `line ${outer[1].line}: more than one top-level block` };
  const top = outer[0];
  if (top.tail !== '') return { ok: false, problem: `text after the closing } of the query: ${JSON.stringify(top.tail.slice(0, 40))}` };
  if (top.head !== '' && !NAMED.test(top.head)) return { ok: false, problem: `line 1: ${JSON.stringify(top.head.slice(0, 40))} is not a query id (before the first {)` };
  const inner = blocks(top.body, top.line);
  if (typeof inner === 'string') return { ok: false, problem: inner };
  const sections: Section[] = [];
  for (const b of inner) {
    if (!SECTION.test(b.head)) return { ok: false, problem: `line ${b.line}: expected a section source, filter or return, found ${JSON.stringify(b.head.slice(0, 40))}` };
    sections.push({ keyword: b.head.split(/\s+/)[0].toLowerCase(), body: b.body, line: b.line });
    if (b.tail !== '') return { ok: false, problem: `line ${b.line}: ${JSON.stringify(b.tail.slice(0, 40))} after the last section` };
  }
  const order = sections.map((s) => ORDER.indexOf(s.keyword));
  for (let i = 1; i < order.length; i++) {
    if (order[i] <= order[i - 1]) return { ok: false, problem: `line ${sections[i].line}: section ${sections[i].keyword} out of order or repeated (source, filter, return)` };
  }
  const source = sections.find((s) => s.keyword === 'source');
  const ret = sections.find((s) => s.keyword === 'return');
  if (source === undefined) return { ok: false, problem: 'the query has no source section' };
  if (ret === undefined) return { ok: false, problem: 'the query has no return section' };
  if (source.body.trim() === '') return { ok: false, problem: `line ${source.line}: the source section is empty` };
  return {
    ok: true,
    shape: {
      form: top.head === '' ? 'anonymous' : 'named',
      ...(top.head !== '' ? { name: top.head } : {}),
      providers: providersOf(source.body),
      columns: topLevelItems(ret.body).map(columnName),
    },
  };
}
