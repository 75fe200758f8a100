import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderApplyReport, renderPlan } from '../../src/render/index.js';
import { emptyPlan, fixtureApplyReport, fixturePlan, fixtureRefusedPlan } from './fixtures.js';

const goldenDir = join(dirname(fileURLToPath(import.meta.url)), 'golden');
const update = process.env.UPDATE_GOLDEN === '1';

/** Compares with test/render/golden/<name>; `UPDATE_GOLDEN=1` rewrites the file instead. */
function golden(name: string, actual: string): void {
  const file = join(goldenDir, name);
  if (update) {
    mkdirSync(goldenDir, { recursive: true });
    writeFileSync(file, actual);
  }
  expect(existsSync(file), `golden ${name} missing: run with UPDATE_GOLDEN=1`).toBe(true);
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

describe('plan renderings match the goldens', () => {
  it('text', () => golden('plan.txt', renderPlan(fixturePlan(), 'text', { color: false })));
  it('text with colour', () => golden('plan.color.txt', renderPlan(fixturePlan(), 'text', { color: true })));
  it('json', () => golden('plan.json', renderPlan(fixturePlan(), 'json', { color: false })));
  it('markdown', () => golden('plan.md', renderPlan(fixturePlan(), 'markdown', { color: false })));
  it('refused text', () => golden('plan-refused.txt', renderPlan(fixtureRefusedPlan(), 'text', { color: false })));
  it('refused json', () => golden('plan-refused.json', renderPlan(fixtureRefusedPlan(), 'json', { color: false })));
  it('refused markdown', () => golden('plan-refused.md', renderPlan(fixtureRefusedPlan(), 'markdown', { color: false })));
  it('no changes text', () => golden('plan-empty.txt', renderPlan(emptyPlan(), 'text', { color: false })));
  it('no changes markdown', () => golden('plan-empty.md', renderPlan(emptyPlan(), 'markdown', { color: false })));
});

describe('apply report renderings match the goldens', () => {
  it('text', () => golden('apply.txt', renderApplyReport(fixtureApplyReport(), 'text', { color: false })));
  it('json', () => golden('apply.json', renderApplyReport(fixtureApplyReport(), 'json', { color: false })));
  it('markdown', () => golden('apply.md', renderApplyReport(fixtureApplyReport(), 'markdown', { color: false })));
});
