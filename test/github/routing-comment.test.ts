// A pull request whose plan is refused by a routing requirement: the comment says so, and the refused plan,
// folded under it, warns of the cells it silences and draws the change.

import { describe, expect, it } from 'vitest';
import { failureBody, planBody } from '../../src/github/bodies.js';
import type { Plan } from '../../src/model/plan.js';
import { emptyPlan } from '../render/fixtures.js';

const stamp = { folder: 'posture', sha: 'abcdef0123456789', runUrl: 'https://github.example/acme/posture/actions/runs/1' };

function refusedPlan(): Plan {
  return {
    ...emptyPlan(),
    refusal: { code: 'routing-requirement', message: 'after this plan, a routing requirement fails', details: ['routing requirement "pages" fails in 1 cell: prod: Cloud/critical'] },
    routing: {
      accounts: ['prod'],
      changes: [{ account: 'prod', eventCategory: 'Cloud', severity: 'critical', before: ['pager'], after: [], gained: [], lost: ['pager'] }],
      failing: [{ requirement: 'pages', accounts: [{ account: 'prod', cells: ['Cloud/critical'] }] }],
    },
  };
}

describe('the comment of a plan refused by a routing requirement', () => {
  it('names the requirement, warns of the silenced cell and has the diagram', () => {
    const body = failureBody(stamp, { kind: 'refused', plan: refusedPlan() }, 0, (f) => f).text;
    expect(body).toContain('the plan was refused (routing-requirement)');
    expect(body).toContain('routing requirement "pages" fails in 1 cell: prod: Cloud/critical');
    expect(body).toContain('> [!WARNING]');
    expect(body).toContain('### Routing changes (1 cell)');
    expect(body).toMatch(/```mermaid\nflowchart LR\n[\s\S]*k0 -\. lost \.-> c0[\s\S]*class k0 silenced\n```/);
    expect(body).toContain('apply --force');
  });

  it('an accepted plan has the warning and the section too', () => {
    const plan = refusedPlan();
    delete plan.refusal;
    const text = planBody(stamp, plan).text;
    expect(text.indexOf('> [!WARNING]')).toBeGreaterThan(0);
    expect(text).toContain('### Routing changes (1 cell)');
  });
});
