// The example workflows use the Action as action.yml declares it, with the permissions each job needs.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { packageRoot } from '../../src/util/package-root.js';
import { applyRefusal } from '../../src/github/settings.js';

const root = packageRoot();
const dir = join(root, 'examples', '.github', 'workflows');
const action = parse(readFileSync(join(root, 'action.yml'), 'utf8')) as { inputs: Record<string, unknown>; outputs: Record<string, unknown> };

interface Job {
  needs?: string;
  if?: string;
  permissions?: Record<string, string>;
  strategy?: { matrix: { shard: number[] } };
  environment?: string | { name: string };
  steps: { uses?: string; if?: string; with?: Record<string, string | boolean | number>; env?: Record<string, string> }[];
}
interface Workflow {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  concurrency?: { group: string; 'cancel-in-progress': boolean | string };
  jobs: Record<string, Job>;
}
const load = (name: string) => parse(readFileSync(join(dir, name), 'utf8')) as Workflow;
const step = (w: Workflow) => Object.values(w.jobs)[0].steps.find((s) => s.uses?.includes('postureops'))!;

describe('example workflows', () => {
  it('are the four the docs name, and use only inputs action.yml declares', () => {
    expect(readdirSync(dir).sort()).toEqual(['postureops-apply.yml', 'postureops-drift.yml', 'postureops-plan.yml', 'postureops-sharded.yml']);
    for (const name of readdirSync(dir)) {
      for (const job of Object.values(load(name).jobs)) {
        for (const s of job.steps.filter((x) => x.uses?.includes('postureops'))) {
          for (const input of Object.keys(s.with ?? {})) expect(Object.keys(action.inputs)).toContain(input);
        }
      }
      if (name !== 'postureops-sharded.yml') expect(step(load(name)).env?.SVC_API_SECRET).toBe('${{ secrets.SVC_API_SECRET }}');
    }
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain('examples/.github/workflows/');
    const docs = readFileSync(join(root, 'docs', 'github-action.md'), 'utf8');
    for (const name of readdirSync(dir)) expect(docs).toContain(name);
  });

  it('plan: pull_request (never pull_request_target), pull-requests: write', () => {
    const w = load('postureops-plan.yml');
    expect(Object.keys(w.on)).toEqual(['pull_request']);
    expect(readFileSync(join(dir, 'postureops-plan.yml'), 'utf8')).toMatch(/Why `pull_request` and not `pull_request_target`/);
    expect(w.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    // The routing report compares with the pull request's base: the checkout holds it, the workflow uploads the page.
    const steps = Object.values(w.jobs)[0].steps as (Job['steps'][number] & { id?: string })[];
    expect(steps[0]).toMatchObject({ uses: expect.stringMatching('^actions/checkout@'), with: { 'fetch-depth': 0 } });
    expect(step(w)).toMatchObject({ id: 'postureops' });
    expect(Object.keys(action.outputs)).toContain('routing-report');
    const upload = steps.find((x) => x.uses?.startsWith('actions/upload-artifact@'))!;
    expect(upload.with?.path).toBe('${{ steps.postureops.outputs.routing-report }}');
    expect(upload.if).toContain("steps.postureops.outputs.routing-report != ''");
  });

  it('apply: push to the default branch, one apply at a time, never cancelled', () => {
    const w = load('postureops-apply.yml');
    expect(w.on).toEqual({ push: { branches: ['main'], paths: ['posture/**'] }, workflow_dispatch: {} });
    expect(w.concurrency).toEqual({ group: 'postureops-apply-posture', 'cancel-in-progress': false });
    expect(w.permissions).toEqual({ contents: 'read' });
    expect(step(w).with?.mode).toBe('apply');
    // changed-since: auto (every account changed since its last successful apply) makes a cancelled pending run harmless.
    expect(step(w).with?.['changed-since'] ?? 'auto').toBe('auto');
  });

  it('drift: nightly, issues: write, mode drift, in a group of its own (never cancelling a pending apply)', () => {
    const w = load('postureops-drift.yml');
    expect(Object.keys(w.on)).toContain('schedule');
    expect(w.permissions).toEqual({ contents: 'read', issues: 'write' });
    expect(step(w).with?.mode).toBe('drift');
    expect(w.concurrency).toEqual({ group: 'postureops-drift-posture', 'cancel-in-progress': false });
    expect(w.concurrency?.group).not.toBe(load('postureops-apply.yml').concurrency?.group);
  });

  it('sharded: a matrix of shards, each with its own key, uploading its plan; one merge job posts the result', () => {
    const w = load('postureops-sharded.yml');
    expect(Object.keys(w.on).sort()).toEqual(['pull_request', 'schedule', 'workflow_dispatch']);
    expect(w.permissions).toEqual({});
    const { shard, merge } = w.jobs;
    expect(shard.permissions).toEqual({ contents: 'read' });
    const shards = shard.strategy!.matrix.shard;
    expect(shards.length).toBeGreaterThan(1);
    const run = shard.steps.find((s) => s.uses?.includes('postureops'))!;
    expect(run.with?.shard).toBe(`\${{ matrix.shard }}/${shards.length}`);
    expect(run.with?.['plan-out']).toBe('plans/shard-${{ matrix.shard }}.json');
    expect(run.env?.SVC_API_KEY_ID).toBe("${{ secrets[format('SVC_API_KEY_ID_{0}', matrix.shard)] }}");
    expect(run.env?.SVC_API_SECRET).toBe("${{ secrets[format('SVC_API_SECRET_{0}', matrix.shard)] }}");
    const upload = shard.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(upload?.with?.path).toBe(run.with?.['plan-out']);
    // A refused shard fails its step but has written its plan: it is uploaded, and the merge shows the refusal.
    expect(upload?.if).toBe('${{ !cancelled() }}');
    expect(merge.needs).toBe('shard');
    // Not after a cancel: a newer push's run posts the comment.
    expect(merge.if).toBe('${{ !cancelled() }}');
    expect(merge.permissions).toEqual({ contents: 'read', 'pull-requests': 'write', issues: 'write' });
    expect(merge.steps.find((s) => s.uses?.startsWith('actions/download-artifact@'))?.with).toMatchObject({ path: 'plans', 'merge-multiple': true });
    expect(merge.steps.find((s) => s.uses?.includes('postureops'))?.with).toMatchObject({ mode: 'merge', plans: 'plans' });
    expect(readFileSync(join(root, 'docs', 'github-action.md'), 'utf8')).toContain('postureops-sharded.yml');
  });

  it('apply: only on the default branch, behind the environment\'s protection rules, which the docs say how to set', () => {
    const w = load('postureops-apply.yml');
    const job = w.jobs.apply;
    // GitHub's `jobs.<id>.environment`: the environment's rules pass before its secrets are released.
    expect(job.environment).toBe('production');
    // The workflow's triggers are what the Action allows, and nothing else.
    expect(Object.keys(w.on).sort()).toEqual(['push', 'workflow_dispatch']);
    const branches = (w.on.push as { branches: string[] }).branches;
    for (const b of branches) expect(applyRefusal('push', `refs/heads/${b}`, ['main'])).toBeUndefined();
    expect(applyRefusal('workflow_dispatch', 'refs/heads/feature', ['main'])).toBeDefined();
    const docs = readFileSync(join(root, 'docs', 'github-action.md'), 'utf8');
    expect(docs).toMatch(/required reviewers/);
    expect(docs).toMatch(/branch protection|rulesets?/);
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toMatch(/protect\s+the\s+default\s+branch\s+with\s+the\s+repository's\s+rules/);
  });
});

/** Every workflow of the repository and of the examples. */
const workflows = [
  ...readdirSync(dir).map((n) => join(dir, n)),
  ...readdirSync(join(root, '.github', 'workflows')).map((n) => join(root, '.github', 'workflows', n)),
];

describe('every workflow (examples and .github/)', () => {
  it('pins each third-party action by its full commit SHA, with the version in a comment', () => {
    let pinned = 0;
    for (const file of workflows) {
      const text = readFileSync(file, 'utf8');
      for (const line of text.split('\n').filter((l) => /^\s*-?\s*uses:/.test(l))) {
        const uses = /uses:\s*(\S+)/.exec(line)![1];
        // postureops itself: the user's copy, pinned by the user (the comment above it says so).
        if (uses.startsWith('acme/postureops@')) continue;
        expect(uses, `${file}: ${line}`).toMatch(/^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/);
        expect(line, `${file}: ${line}`).toMatch(/@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
        pinned++;
      }
    }
    expect(pinned).toBeGreaterThan(8);
  });

  it('one SHA per action and version, the same in every workflow', () => {
    const seen = new Map<string, string>();
    for (const file of workflows) {
      for (const m of readFileSync(file, 'utf8').matchAll(/uses: ([\w/-]+)@([0-9a-f]{40}) # (v[\d.]+)/g)) {
        const key = `${m[1]}@${m[2]}`;
        expect(seen.get(key) ?? m[3], key).toBe(m[3]);
        seen.set(key, m[3]);
      }
    }
    expect([...seen.keys()].map((k) => k.split('@')[0]).sort()).toEqual(['actions/checkout', 'actions/download-artifact', 'actions/setup-node', 'actions/upload-artifact']);
  });

  it('checks out without persisting credentials', () => {
    let checkouts = 0;
    for (const file of workflows) {
      const w = parse(readFileSync(file, 'utf8')) as Workflow;
      for (const job of Object.values(w.jobs)) {
        for (const s of job.steps.filter((x) => x.uses?.startsWith('actions/checkout@'))) {
          expect(s.with?.['persist-credentials'], file).toBe(false);
          checkouts++;
        }
      }
    }
    expect(checkouts).toBe(9);
  });
});
