// Offline shape checks of a query text (api-facts.md "Queries"): what any text the service parses
// has. The language itself is the service's (its parser is not public), so every finding here is a
// warning; `plan` asks the service's own `validate` endpoint (Kind.serviceCheck) for the verdict.
// Checked: `---` lines are comments; quotes close on their line; braces outside quotes balance; one
// block, anonymous `{ ... }` or named `<queryId> { ... }`; inside it `source`, `filter` and
// `return [distinct]` sections in that order, `source` and `return` present.

export interface TextFinding {
  /** 1-based line of the text where the problem is (the first line when it is the whole text). */
  line: number;
  message: string;
}

const SECTION = /^(source|filter|return)(?:\s+distinct)?$/i;
const ORDER = ['source', 'filter', 'return'];

interface Block {
  head: string;
  body: string;
  line: number;
}

/** Depth-0 blocks of `text` (the words before each `{` and the text inside), or the first problem found. */
function blocksOf(text: string, firstLine: number): { blocks: Block[]; tail: string } | TextFinding {
  const blocks: Block[] = [];
  let depth = 0;
  let line = firstLine;
  let quote: string | undefined;
  let head = '';
  let start = 0;
  let startLine = firstLine;
  // Lines of the braces still open, innermost last: an unclosed one is reported where it opened.
  const open: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') {
      if (quote !== undefined) return { line, message: `a quoted text (${quote}) is not closed on its line` };
      line += 1;
    }
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === '{') {
      if (depth === 0) {
        start = i + 1;
        startLine = line;
      }
      open.push(line);
      depth += 1;
    } else if (c === '}') {
      if (depth === 0) return { line, message: 'a `}` closes nothing' };
      depth -= 1;
      open.pop();
      if (depth === 0) {
        blocks.push({ head: head.trim(), body: text.slice(start, i), line: startLine });
        head = '';
      }
    } else if (depth === 0) head += c;
  }
  if (quote !== undefined) return { line, message: `a quoted text (${quote}) is not closed` };
  if (depth > 0) return { line: open[0], message: `${depth === 1 ? 'a `{` is' : `${depth} \`{\` are`} not closed` };
  return { blocks, tail: head.trim() };
}

/** The shape findings of a query text; none for a text of the expected shape. */
export function queryTextFindings(text: string): TextFinding[] {
  const plain = text
    .split('\n')
    .map((l) => (l.trimStart().startsWith('---') ? '' : l))
    .join('\n');
  if (plain.trim() === '') return [{ line: 1, message: 'the text holds nothing but comments' }];
  const outer = blocksOf(plain, 1);
  if ('message' in outer) return [outer];
  if (outer.blocks.length !== 1 || outer.tail !== '') {
    return [{ line: 1, message: 'a query is one block, `{ source {...} filter {...} return {...} }` or `<queryId> { ... }`, with nothing around it' }];
  }
  const [query] = outer.blocks;
  if (query.head !== '' && !/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(query.head)) {
    return [{ line: query.line, message: `\`${query.head}\` before the block is not a query id` }];
  }
  const inner = blocksOf(query.body, query.line);
  if ('message' in inner) return [inner];
  const findings: TextFinding[] = [];
  if (inner.tail !== '') findings.push({ line: query.line, message: `\`${inner.tail.split(/\s+/)[0]}\` stands outside any section` });
  const seen: string[] = [];
  for (const section of inner.blocks) {
    const m = SECTION.exec(section.head);
    if (!m) {
      findings.push({ line: section.line, message: `\`${section.head || '{'}\` is not a section (source, filter, return)` });
      continue;
    }
    const name = m[1].toLowerCase();
    if (seen.includes(name)) findings.push({ line: section.line, message: `section \`${name}\` is given twice` });
    else if (seen.some((s) => ORDER.indexOf(s) > ORDER.indexOf(name))) findings.push({ line: section.line, message: `section \`${name}\` comes after \`${seen[seen.length - 1]}\`; the order is source, filter, return` });
    if (name === 'source' && section.body.trim() === '') findings.push({ line: section.line, message: 'section `source` is empty' });
    seen.push(name);
  }
  for (const required of ['source', 'return']) if (!seen.includes(required)) findings.push({ line: query.line, message: `section \`${required}\` is missing` });
  return findings;
}
