// The README, the docs and the examples' README link only to files that exist and to headings those
// files have (GitHub's anchors: lower case, punctuation dropped, spaces to dashes).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';

const ROOT = packageRoot();
const DOCS = ['README.md', 'examples/README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** The text outside fenced code blocks. */
const prose = (md: string): string => md.replace(/^```[\s\S]*?^```$/gm, '');

function anchors(md: string): Set<string> {
  const out = new Set<string>();
  for (const [, title] of prose(md).matchAll(/^#{1,6} (.+)$/gm)) {
    out.add(
      title
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    );
  }
  return out;
}

describe('links between the README and the docs', () => {
  it('every relative link names a file that exists, and every #anchor a heading it has', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const doc of DOCS) {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target)) continue;
        checked++;
        const [file, anchor] = target.split('#');
        const path = file === '' ? join(ROOT, doc) : normalize(join(ROOT, dirname(doc), file));
        if (!existsSync(path)) {
          broken.push(`${doc}: ${target} (no such file)`);
          continue;
        }
        if (anchor !== undefined && path.endsWith('.md') && !anchors(readFileSync(path, 'utf8')).has(anchor)) broken.push(`${doc}: ${target} (no such heading)`);
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(broken).toEqual([]);
  });
});
