// An apply that stopped early says so in every rendering, with what was left undone.
import { describe, expect, it } from 'vitest';
import { renderApplyReport } from '../../src/render/index.js';
import { fixtureApplyReport } from './fixtures.js';

describe('apply report of a stopped run', () => {
  const report = { ...fixtureApplyReport(), stopped: { cause: 'interrupted' as const, message: 'interrupted by SIGINT', notStarted: 2 } };

  it('text and Markdown say that the run was interrupted and how many changes did not start', () => {
    const line = 'Interrupted by SIGINT: 2 changes not started; run apply again to finish.';
    expect(renderApplyReport(report, 'text', { color: false })).toContain(line);
    expect(renderApplyReport(report, 'markdown', { color: false })).toContain(line);
  });

  it('JSON carries the stop', () => {
    expect(JSON.parse(renderApplyReport(report, 'json', { color: false })).stopped).toEqual(report.stopped);
  });

  it('an unreachable service is named, and nothing is said when the run was not stopped', () => {
    const dead = { ...fixtureApplyReport(), stopped: { cause: 'unreachable' as const, message: 'the service at http://127.0.0.1:9 is unreachable (ECONNREFUSED)', notStarted: 1 } };
    expect(renderApplyReport(dead, 'text', { color: false })).toContain('Stopped: the service at http://127.0.0.1:9 is unreachable (ECONNREFUSED): 1 change not started');
    expect(renderApplyReport(fixtureApplyReport(), 'text', { color: false })).not.toMatch(/not started|Stopped/);
  });
});
