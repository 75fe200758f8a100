import { describe, expect, it } from 'vitest';
import { parseSelector, selects } from '../../src/plan/core/selectors.js';

describe('selectors [account/]Kind/name', () => {
  it.each([
    ['AlertChannel/ops', 'prod', 'AlertChannel', 'ops', true],
    ['prod/AlertChannel/ops', 'prod', 'AlertChannel', 'ops', true],
    ['staging/AlertChannel/ops', 'prod', 'AlertChannel', 'ops', false],
    ['AlertChannel/oncall-*', 'prod', 'AlertChannel', 'oncall-eu', true],
    ['AlertRule/oncall-*', 'prod', 'AlertChannel', 'oncall-eu', false],
    ['*/*', 'prod', 'AlertRule', 'x', true],
    // Names may hold `/`: the name part is the rest, and `*` in it matches across `/`.
    ['AlertChannel/*', 'prod', 'AlertChannel', 'Team A / PagerDuty', true],
    ['prod/*/*', 'prod', 'AlertChannel', 'Team A / PagerDuty', true],
    ['AlertChannel/Team A / PagerDuty', 'prod', 'AlertChannel', 'Team A / PagerDuty', true],
    ['prod/AlertChannel/Team A / PagerDuty', 'prod', 'AlertChannel', 'Team A / PagerDuty', true],
    ['AlertChannel/Team A', 'prod', 'AlertChannel', 'Team A / PagerDuty', false],
    ['AlertChannel', 'prod', 'AlertChannel', 'ops', false],
  ])('%s selects %s/%s/%s: %s', (text, account, kind, name, expected) => {
    expect(selects(parseSelector(text), account, kind, name)).toBe(expected);
  });
});
