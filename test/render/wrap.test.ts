// wrapText copies the lines that need no wrapping as they are instead of splitting and joining the
// whole text: the same result as wrapping every line, checked over generated texts.

import { describe, expect, it } from 'vitest';
import { visibleWidth, wrapLine, wrapText } from '../../src/render/wrap.js';

/** The definition: every line wrapped on its own. */
const wrapEvery = (text: string, width: number): string =>
  text
    .split('\n')
    .flatMap((line) => wrapLine(line, width))
    .join('\n');

/** A small deterministic generator (no wall clock, no Math.random: the same texts every run). */
function generator(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

const PIECES = ['\ud83d', '\ude00', '\u001b[1m', '\u001b[', 'a', 'word', 'x'.repeat(30), ' ', '  ', '   ', '\u001b[32m', '\u001b[39m', 'é', '→', '😀', '\n', '\n', '- ', '+ '];

function texts(count: number): string[] {
  const next = generator(7);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let text = '';
    const parts = Math.floor(next() * 60);
    for (let j = 0; j < parts; j++) text += PIECES[Math.floor(next() * PIECES.length)];
    out.push(text);
  }
  return out;
}

describe('wrapText', () => {
  it('gives what wrapping every line gives, for lines under, at and over the width, trailing spaces, colour and wide characters', () => {
    const cases = [...texts(3000), '', '\n', 'a\n', `${'x'.repeat(20)}   `, `${'x'.repeat(19)}\n${'y '.repeat(15)}\n`, '😀'.repeat(15)];
    let wrapped = 0;
    for (const text of cases) {
      for (const width of [1, 5, 20, 40]) {
        const got = wrapText(text, width);
        expect(got, JSON.stringify({ text, width })).toBe(wrapEvery(text, width));
        if (got !== text) wrapped++;
      }
    }
    // The generated texts exercise both ways: most are wrapped somewhere, some are left whole.
    expect(wrapped).toBeGreaterThan(1000);
    expect(wrapped).toBeLessThan(cases.length * 4);
  });

  it('leaves a line as it is when it is no wider than the width, however many UTF-16 units it takes', () => {
    // 20 code points in 40 units: one screen column each, so it fits 20 columns.
    expect(wrapLine('😀'.repeat(20), 20)).toEqual(['😀'.repeat(20)]);
    expect(wrapText(`${'😀'.repeat(20)}\nnext`, 20)).toBe(`${'😀'.repeat(20)}\nnext`);
    // A line over the width only by its trailing spaces loses them, as wrapLine trims a line it breaks.
    expect(wrapText(`${'x'.repeat(20)}   \nnext`, 20)).toBe(`${'x'.repeat(20)}\nnext`);
    expect(visibleWidth('\u001b[32mab\u001b[39m')).toBe(2);
    // One column over is over: broken.
    expect(wrapLine('abc de', 5)).toEqual(['abc', 'de']);
    expect(wrapLine('abc d', 5)).toEqual(['abc d']);
  });
});

describe('visibleWidth', () => {
  it('is the number of code points once colour codes are taken out, lone surrogates counting one each', () => {
    const definition = (text: string): number => [...text.replace(/\u001b\[[0-9;]*m/g, '')].length;
    for (const text of texts(3000)) expect(visibleWidth(text), JSON.stringify(text)).toBe(definition(text));
    expect(visibleWidth('a😀b')).toBe(3);
    expect(visibleWidth('a\ud83db')).toBe(3);
    expect(visibleWidth('\u001b[32m😀\u001b[39m\u001b[')).toBe(3);
  });
});
