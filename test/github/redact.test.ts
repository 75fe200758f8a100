// The Action's guard (src/github/redact.ts), in process: the last net before a text leaves for
// GitHub. Part of the safety core (stryker.config.mjs, group secrets): these tests kill its mutants.

import { describe, expect, it } from 'vitest';
import { MASK } from '../../src/model/env-markers.js';
import { secretGuard } from '../../src/github/redact.js';

const SECRET = 'hunter2-the-api-secret';
const SLACK = 'https://hooks.slack.com/services/T0/B0/xyzzy';

function guardOf(env: NodeJS.ProcessEnv, names: readonly string[]) {
  const reports: string[][] = [];
  const guard = secretGuard(env, names, (found) => reports.push(found));
  return { guard, reports };
}

describe('secretGuard', () => {
  it('replaces the value of each name, in every form an echo may take, and reports the names found, never the values', () => {
    const { guard, reports } = guardOf({ SVC_API_SECRET: SECRET, SLACK_URL: SLACK, OTHER: 'not-listed-value' }, ['SVC_API_SECRET', 'SLACK_URL']);
    expect(guard(`key ${SECRET} and ${JSON.stringify(SLACK)} and not-listed-value`)).toBe(`key ${MASK} and "${MASK}" and not-listed-value`);
    expect(guard(`url=${encodeURIComponent(SLACK)}`)).toBe(`url=${MASK}`);
    expect(reports).toEqual([['SLACK_URL', 'SVC_API_SECRET'], ['SLACK_URL']]);
  });

  it('leaves a text without any of them as it is, and reports nothing', () => {
    const { guard, reports } = guardOf({ SVC_API_SECRET: SECRET }, ['SVC_API_SECRET']);
    const text = 'postureops: plan: 1 to create';
    expect(guard(text)).toBe(text);
    expect(reports).toEqual([]);
  });

  it('names each variable once, however often it is listed or found', () => {
    const { guard, reports } = guardOf({ SVC_API_SECRET: SECRET }, ['SVC_API_SECRET', 'SVC_API_SECRET']);
    expect(guard(`${SECRET} ${SECRET}`)).toBe(`${MASK} ${MASK}`);
    expect(reports).toEqual([['SVC_API_SECRET']]);
  });

  it('names every variable sharing a value', () => {
    const { guard, reports } = guardOf({ A_URL: SLACK, B_URL: SLACK }, ['A_URL', 'B_URL']);
    expect(guard(SLACK)).toBe(MASK);
    expect(reports).toEqual([['A_URL', 'B_URL']]);
  });

  it('ignores names that are unset or empty, and values under 6 characters, which ordinary text holds', () => {
    const { guard, reports } = guardOf({ EMPTY: '', SHORT: 'abcde', SIX: 'abcdef' }, ['UNSET', 'EMPTY', 'SHORT', 'SIX']);
    expect(guard('x abcde y')).toBe('x abcde y');
    expect(guard('empty: ""')).toBe('empty: ""');
    expect(guard('x abcdef y, xabcdefx')).toBe(`x ${MASK} y, x${MASK}x`);
    expect(reports).toEqual([['SIX']]);
  });

  it('masks nothing with no names, and only what the names hold', () => {
    const none = guardOf({ SVC_API_SECRET: SECRET }, []);
    expect(none.guard(SECRET)).toBe(SECRET);
    expect(none.reports).toEqual([]);
  });
});
