// The Action's texts and decisions, as pure functions; and the CLI kept free of the Action's packages.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { failureBody, isOurs, planBody, readMarker } from '../../src/github/bodies.js';
import { detectMode, isForkPull, normalizeFolder, runUrlOf } from '../../src/github/settings.js';
import { packageRoot } from '../../src/util/package-root.js';
import { fixturePlan } from '../render/fixtures.js';

const stamp = { folder: 'posture', sha: 'abcdef0123456789', runUrl: 'https://github.example/acme/posture/actions/runs/1' };

describe('comment bodies', () => {
  it('the digest ignores the run link and follows the commit and the content', () => {
    const a = planBody(stamp, fixturePlan());
    expect(planBody({ ...stamp, runUrl: 'https://github.example/acme/posture/actions/runs/2' }, fixturePlan()).digest).toBe(a.digest);
    expect(planBody({ ...stamp, sha: 'fedcba9876543210' }, fixturePlan()).digest).not.toBe(a.digest);
    const other = fixturePlan();
    other.changes = other.changes.slice(1);
    expect(planBody(stamp, other).digest).not.toBe(a.digest);
    expect(a.text).not.toContain('API calls made'); // run-to-run numbers stay out of the comment
  });

  it('the marker belongs to one folder; a quote of it or another folder is not ours', () => {
    const body = planBody(stamp, fixturePlan()).text;
    expect(isOurs('comment', 'posture', body)).toBe(true);
    expect(isOurs('comment', 'post', body)).toBe(false);
    expect(isOurs('comment', 'posture', `> ${body}`)).toBe(false);
    expect(isOurs('drift', 'posture', body)).toBe(false);
    expect(readMarker('comment', body)).toMatchObject({ folder: 'posture', deletes: true });
  });

  it('a refused plan becomes a failure: what, why, how to fix, and the plan folded under it, every change shown', () => {
    const plan = fixturePlan();
    plan.refusal = { code: 'safety-threshold', message: 'would delete 40% of AlertRule in prod', details: ['12 of 30'] };
    const body = failureBody(stamp, { kind: 'refused', plan }, 0, (f) => f).text;
    expect(body).toContain('> [!CAUTION]\n> **No plan for this commit: the plan was refused (safety-threshold).** Any earlier plan shown here no longer applies.\n> would delete 40% of AlertRule in prod; 12 of 30');
    expect(body).toContain('How to fix it');
    const folded = body.slice(body.indexOf('<details><summary>The refused plan: 4 to create, 4 to update, 1 to replace, 2 to delete</summary>'));
    expect(folded.length).toBeLessThan(body.length);
    expect(folded).toContain('| **Total** |');
    // The deletions, the renames and the diffs a reviewer must judge before anyone uses --force.
    for (const c of plan.changes) expect(folded).toContain(`**${c.name.replace(/([\\`*_<>|])/g, '')}`.slice(0, 6));
    expect(folded).toContain('### Deletions (2)');
    expect(folded).toContain('```diff');
    expect(folded).not.toContain('<!-- postureops-plan -->');
    expect(folded.match(/Plan refused/g)).toBeNull(); // said once, above
  });

  it('the job summary is linked by reference from every mark of what the comment leaves out; no link from a run URL that is not one', () => {
    const md = planBody(stamp, fixturePlan()).text;
    expect(md.trimEnd().endsWith('[postureops-run]: https://github.example/acme/posture/actions/runs/1')).toBe(true);
    expect(md.match(/\[postureops-run\]: /g)).toHaveLength(1);
    const bare = planBody({ ...stamp, runUrl: '' }, fixturePlan()).text;
    expect(bare).not.toContain('postureops-run');
    expect(bare).not.toContain('](');
  });
});

describe('settings', () => {
  it('the run URL is built from the environment only when each part has its shape', () => {
    const env = { GITHUB_SERVER_URL: 'https://github.example', GITHUB_REPOSITORY: 'acme/posture', GITHUB_RUN_ID: '777' };
    expect(runUrlOf(env)).toBe('https://github.example/acme/posture/actions/runs/777');
    expect(runUrlOf({ GITHUB_REPOSITORY: 'acme/posture', GITHUB_RUN_ID: '1' })).toBe('https://github.com/acme/posture/actions/runs/1');
    expect(runUrlOf({ ...env, GITHUB_SERVER_URL: 'https://github.example/' })).toBe('https://github.example/acme/posture/actions/runs/777');
    for (const bad of [
      { GITHUB_SERVER_URL: 'javascript:alert(1)' },
      { GITHUB_SERVER_URL: 'http://github.example' },
      { GITHUB_SERVER_URL: 'https://user:pw@github.example' },
      { GITHUB_SERVER_URL: 'https://evil.example/x?y' },
      { GITHUB_SERVER_URL: 'not a url' },
      { GITHUB_REPOSITORY: 'acme/posture) [click](https://evil.example' },
      { GITHUB_REPOSITORY: 'acme/../x' },
      { GITHUB_REPOSITORY: 'acme/..' },
      { GITHUB_REPOSITORY: '' },
      { GITHUB_RUN_ID: '7 7' },
      { GITHUB_RUN_ID: '' },
      { GITHUB_RUN_ID: '1e9' },
    ]) {
      expect(runUrlOf({ ...env, ...bad }), JSON.stringify(bad)).toBe('');
    }
  });

  it('auto applies only on a push to the default branch', () => {
    expect(detectMode('auto', 'push', 'refs/heads/main', 'main')).toBe('apply');
    expect(detectMode('auto', 'push', 'refs/heads/topic', 'main')).toBe('plan');
    expect(detectMode('auto', 'push', 'refs/heads/main', undefined)).toBe('plan');
    expect(detectMode('auto', 'schedule', 'refs/heads/main', 'main')).toBe('plan');
    expect(detectMode('drift', 'schedule', undefined, undefined)).toBe('drift');
  });

  it('a fork is a head in another repository, or one that is gone', () => {
    const base = { repo: { full_name: 'acme/posture' } };
    expect(isForkPull({ base, head: { repo: { full_name: 'acme/posture' } } })).toBe(false);
    expect(isForkPull({ base, head: { repo: { full_name: 'eve/posture' } } })).toBe(true);
    expect(isForkPull({ base, head: { repo: null } })).toBe(true);
    expect(isForkPull(undefined)).toBe(false);
  });

  it('folders are named the same however they are written', () => {
    expect(['posture', './posture/', 'posture//'].map(normalizeFolder)).toEqual(['posture', 'posture', 'posture']);
    expect(['', '.', './'].map(normalizeFolder)).toEqual(['.', '.', '.']);
  });
});

describe('the CLI does not load the Action', () => {
  it('no file under cmd/ imports src/github, and @actions/* are build-time (bundled) dependencies only', () => {
    const root = packageRoot();
    for (const f of readdirSync(join(root, 'cmd'), { recursive: true }) as string[]) {
      if (f.endsWith('.ts')) expect(readFileSync(join(root, 'cmd', f), 'utf8'), f).not.toMatch(/src\/github|@actions\//);
    }
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    expect(Object.keys(pkg.dependencies).filter((d) => d.startsWith('@actions/') || d.startsWith('@octokit/') || d === 'esbuild')).toEqual([]);
    expect(Object.keys(pkg.devDependencies)).toEqual(expect.arrayContaining(['@actions/core', '@actions/github', '@octokit/plugin-retry', 'esbuild']));
  });
});
