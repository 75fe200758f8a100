// Every shell block of README.md, examples/README.md and docs/*.md works verbatim, as a reader runs
// it after the two set-up commands: the blocks are extracted and run in order by bash, in a copy of
// the repository's examples with dist/ beside them, on a terminal (script(1) gives them one, so an
// `apply` that asks for 'yes' gets it), with `set -e`: a command that fails fails the test, with the
// transcript. A block that starts the emulator is started in the background first, as a reader does
// in another terminal. The set-up block (`npm ci`, `npm start`, `npm test`) is left out: this test
// runs inside `npm test`, and the demo has its own test.

import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';

const ROOT = packageRoot();

/** The ```sh (or bash, shell) blocks of a Markdown file, in order. */
export function shellBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

function documents(): string[] {
  const docs = existsSync(join(ROOT, 'docs')) ? readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f)) : [];
  return ['README.md', 'examples/README.md', ...docs.sort()];
}

const isSetUp = (block: string): boolean => /^npm (ci|install)\b/m.test(block);
const isEmulator = (block: string): boolean => /^node dist\/cmd\/postureops\.js emulator\b/m.test(block.trim()) && block.trim().split('\n').length === 1;

const sandboxes: string[] = [];
const children: { kill(): void }[] = [];
afterAll(() => {
  for (const c of children) c.kill();
  for (const d of sandboxes) rmSync(d, { recursive: true, force: true });
});

/** A port the system has just handed out as unused (not a random pick, which may be another test's). */
function systemPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

describe('the commands of the README and the docs', () => {
  it('finds the blocks it runs: the walkthrough against the emulator is among them', () => {
    const blocks = documents().flatMap((d) => shellBlocks(readFileSync(join(ROOT, d), 'utf8')));
    expect(blocks.some(isSetUp)).toBe(true);
    expect(blocks.some(isEmulator)).toBe(true);
    expect(blocks.filter((b) => !isSetUp(b) && !isEmulator(b)).join('\n')).toMatch(/postureops\.js (validate|plan|apply)/);
  });

  it('runs every block verbatim, in order, and each command succeeds', async () => {
    const blocks = documents().flatMap((d) => shellBlocks(readFileSync(join(ROOT, d), 'utf8')).map((text) => ({ doc: d, text })));
    const sandbox = mkdtempSync(join(tmpdir(), 'postureops-readme-'));
    sandboxes.push(sandbox);
    cpSync(join(ROOT, 'examples'), join(sandbox, 'examples'), { recursive: true, filter: (src) => basename(src) !== '.env' });
    symlinkSync(join(ROOT, 'dist'), join(sandbox, 'dist'));
    symlinkSync(join(ROOT, 'node_modules'), join(sandbox, 'node_modules'));
    cpSync(join(ROOT, 'package.json'), join(sandbox, 'package.json'));

    // A port a block names that another process holds here is replaced by a free one everywhere.
    const ports = new Map<string, string>();
    for (const { text } of blocks) {
      for (const [, port] of text.matchAll(/--port (\d{4,5})/g)) {
        if (ports.has(port)) continue;
        ports.set(port, (await portFree(Number(port))) ? port : String(await systemPort()));
      }
    }
    const local = (text: string): string => [...ports].reduce((t, [from, to]) => t.replaceAll(from, to), text);

    for (const { text } of blocks.filter((b) => isEmulator(b.text))) {
      const child = spawn('bash', ['-c', `exec ${local(text.trim())}`], { cwd: sandbox, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      let out = '';
      await new Promise<void>((resolve, reject) => {
        const onData = (c: Buffer) => {
          out += c.toString('utf8');
          if (out.includes('listening on')) resolve();
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', onData);
        child.once('exit', (code) => reject(new Error(`the emulator block exited with ${code}: ${out}`)));
      });
    }

    const script = ['set -e', ...blocks.filter((b) => !isSetUp(b.text) && !isEmulator(b.text)).map((b) => `# ${b.doc}\n${local(b.text)}`), 'echo README-COMMANDS-DONE'].join('\n');
    writeFileSync(join(sandbox, 'readme.sh'), script);
    const { code, transcript } = await new Promise<{ code: number | null; transcript: string }>((resolve) => {
      // script(1): the commands run on a terminal, as a reader's do; what a prompt asks is answered 'yes'.
      const child = spawn('script', ['-qefc', 'bash readme.sh', '/dev/null'], { cwd: sandbox, env: { ...process.env, NO_COLOR: '1', TERM: 'dumb' }, stdio: ['pipe', 'pipe', 'pipe'] });
      let transcript = '';
      let answered = 0;
      child.stdout.on('data', (c: Buffer) => {
        transcript += c.toString('utf8');
        const asked = transcript.split("Only 'yes' is accepted").length - 1;
        for (; answered < asked; answered++) child.stdin.write('yes\n');
      });
      child.stderr.on('data', (c: Buffer) => (transcript += c.toString('utf8')));
      child.on('close', (c) => resolve({ code: c, transcript }));
    });
    expect(code, transcript).toBe(0);
    expect(transcript).toContain('README-COMMANDS-DONE');
  });
});
