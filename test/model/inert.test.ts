// The neutralisers called in-process, one rule per test: each escape spelled out exactly, so a
// changed or dropped escape fails the test that names it (test/render/hostile.test.ts covers the
// renderers that use them).
import { describe, expect, it } from 'vitest';
import { escapeHtml, escapeMd, inertJson, inertLog, inertText, inlineCode } from '../../src/model/inert.js';

describe('inertText: how an unsafe character is shown', () => {
  it('tab, carriage return and newline are shown by name', () => {
    expect(inertText('a\tb\rc\nd')).toBe('a\\tb\\rc\\nd');
  });

  it('a control under 0x10 is shown as two hex digits (\\x01, not \\x1)', () => {
    expect(inertText('\x01\x1b')).toBe('\\x01\\x1b');
  });

  it('a BMP character is shown as four hex digits (\\u034f) and U+FFFF still as \\uffff', () => {
    expect(inertText('a\u034fb')).toBe('a\\u034fb');
    expect(inertText('\u202e\uffff')).toBe('\\u202e\\uffff');
  });

  it('a character past U+FFFF is shown as \\u{...}', () => {
    expect(inertText('\u{e0041}')).toBe('\\u{e0041}');
  });
});

describe('inertLog', () => {
  it('an astral invisible character is escaped even where our own colour codes are kept', () => {
    expect(inertLog('x\u{e0041}y', { colour: true })).toBe('x\\u{e0041}y');
    expect(inertLog('\u001b[31mred\u001b[39m', { colour: true })).toBe('\u001b[31mred\u001b[39m');
  });

  it('a v1 command (##[ anywhere in a line) is broken by showing its [ as \\x5b', () => {
    expect(inertLog('x ##[error] y')).toBe('x ##\\x5berror] y');
  });

  it('lines stay lines, plain ASCII or not, and a v2 command at a line start is broken either way', () => {
    // Printable ASCII only (nothing but the commands to look for) and the same text with a control.
    expect(inertLog('plan\n  ::error::x\nend\n')).toBe('plan\n  \\x3a:error::x\nend\n');
    expect(inertLog('plan\x07\n  ::error::x\n\u202eend\n')).toBe('plan\\x07\n  \\x3a:error::x\n\\u202eend\n');
  });
});

describe('escapeMd and escapeHtml', () => {
  it('& becomes &amp; in Markdown text', () => {
    expect(escapeMd('a & b')).toBe('a &amp; b');
  });

  it('every HTML special character becomes an entity inside raw HTML', () => {
    expect(escapeHtml(`& < > " ' |`)).toBe('&amp; &lt; &gt; &quot; &#39; &#124;');
  });

  it('references with several digits become code spans whole: #123, GH-123, owner/repo#123', () => {
    expect(escapeMd('see #123')).toBe('see `#123`');
    expect(escapeMd('see GH-123')).toBe('see `GH-123`');
    expect(escapeMd('see o/r#123.')).toBe('see `o/r#123`.');
  });
});

describe('inlineCode', () => {
  it('a code span starting or ending with a backtick is padded with a space', () => {
    expect(inlineCode('`a')).toBe('`` `a ``');
    expect(inlineCode('a`')).toBe('`` a` ``');
    expect(inlineCode('a`b')).toBe('``a`b``');
  });

  it('| inside a code span is escaped so a table cell does not split', () => {
    expect(inlineCode('a|b')).toBe('`a\\|b`');
  });
});

describe('inertJson', () => {
  it('##[ inside a JSON string is spelled ##\\u005b, the same value', () => {
    const json = '{"a":"##[x"}';
    expect(inertJson(json)).toBe('{"a":"##\\u005bx"}');
    expect(JSON.parse(inertJson(json))).toEqual(JSON.parse(json));
  });

  it('raw newline, tab and carriage return between tokens are kept; other unsafe characters escaped', () => {
    expect(inertJson('{\n\t"a": 1\r\n}')).toBe('{\n\t"a": 1\r\n}');
    expect(inertJson('{\n"a": "\u202e"}')).toBe('{\n"a": "\\u202e"}');
  });
});
