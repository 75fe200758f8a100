// Reading the files of a large repository on several threads: parsing YAML is most of a load's CPU.
// The main thread and the workers take files from one shared counter (whoever is free takes the
// next), each runs loadFileText on it, and the results are put back in file order: documents and
// problems come out exactly as one thread would give them.
//
// Workers pay a start-up (a thread, then loading yaml, the kinds and the validators: ~130 ms of CPU)
// and the copy of what they read (~10 ms per 1,000 documents), so only large repositories on
// machines with 4 CPUs or more use them unasked. On a 2-CPU machine (the bench's, shared with other
// jobs) one worker did not pay: loading 10,000 resources took 0.90 s on one thread and 0.94 s with
// a worker (best of 4 each) for a third more CPU; two threads each ran at little more than half speed. Workers need the compiled worker module
// beside this one (dist/); where it is missing (tests run from src/, the Action's single-file
// bundle) everything is read on the main thread.

import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { RootConfig } from '../model/account.js';
import { type FileResult, loadFileText } from './load-file.js';
import type { LoadOptions } from './types.js';

/** Below this much text (UTF-16 units, all files together) files are read on the main thread only. */
export const PARALLEL_MIN_CHARS = 512 * 1024;
/** CPUs a machine needs for workers to be used unasked. */
export const PARALLEL_MIN_CPUS = 4;
/** Workers at most, whatever the machine (the main thread reads files too). */
export const MAX_WORKERS = 3;

export interface TextFile {
  /** Path as diagnostics show it. */
  file: string;
  text: string;
}

/** What a worker is given (posted once). */
export interface WorkerTask {
  files: TextFile[];
  root: RootConfig | undefined;
  options: LoadOptions;
  /** The load's time (LoadOptions.now, read once: a function cannot be posted). */
  now: number;
  /** Int32Array over it: [0] is the index of the next file to take. */
  counter: SharedArrayBuffer;
}

/** What a worker answers (posted once): the files it took, by index, or why it failed. */
export type WorkerAnswer = { results: [number, FileResult][] } | { error: string };

const WORKER_URL = new URL('./load-worker.js', import.meta.url);

/** Takes files from the shared counter until none is left. */
export function takeFiles(task: Pick<WorkerTask, 'files' | 'root' | 'options'>, counter: Int32Array, into: [number, FileResult][]): void {
  for (;;) {
    const i = Atomics.add(counter, 0, 1);
    if (i >= task.files.length) return;
    const { file, text } = task.files[i];
    into.push([i, loadFileText(file, text, task.root, task.options)]);
  }
}

/** Workers worth starting for these files (0: read them on the main thread). */
export function workersFor(files: readonly TextFile[], parallel: boolean | undefined): number {
  if (parallel === false || files.length < 2 || !existsSync(fileURLToPath(WORKER_URL))) return 0;
  const cpus = availableParallelism();
  if (parallel === undefined && (cpus < PARALLEL_MIN_CPUS || files.reduce((n, f) => n + f.text.length, 0) < PARALLEL_MIN_CHARS)) return 0;
  return Math.max(parallel ? 1 : 0, Math.min(MAX_WORKERS, cpus - 1, files.length - 1));
}

/**
 * loadFileText of every file, in file order, on `workers` worker threads and the main thread.
 * Validators must be ready (prepareValidators). A worker that fails leaves its files to the main
 * thread: the result is the same, only slower.
 */
export async function loadFilesInParallel(files: TextFile[], root: RootConfig | undefined, options: LoadOptions, workers: number): Promise<FileResult[]> {
  const counter = new SharedArrayBuffer(4);
  const shared = new Int32Array(counter);
  // Only what a worker needs, as plain data (io.env may be process.env itself).
  const task: WorkerTask = {
    files,
    root,
    options: { env: { ...options.env }, ...(options.missingEnv !== undefined ? { missingEnv: options.missingEnv } : {}) },
    now: (options.now ?? Date.now)(),
    counter,
  };
  const answers = Array.from({ length: workers }, () => runWorker(task));
  const results: [number, FileResult][] = [];
  takeFiles({ files, root, options }, shared, results);
  for (const answer of await Promise.all(answers)) {
    if ('results' in answer) results.push(...answer.results);
  }
  const byIndex: (FileResult | undefined)[] = new Array(files.length);
  for (const [i, r] of results) byIndex[i] = r;
  // Files a failed worker had taken but not answered for.
  return byIndex.map((r, i) => r ?? loadFileText(files[i].file, files[i].text, root, options));
}

function runWorker(task: WorkerTask): Promise<WorkerAnswer> {
  return new Promise((resolve) => {
    let answered = false;
    const answer = (a: WorkerAnswer) => {
      if (answered) return;
      answered = true;
      resolve(a);
    };
    let worker: Worker;
    try {
      worker = new Worker(WORKER_URL, { workerData: task, stdout: false, stderr: false });
    } catch (err) {
      answer({ error: err instanceof Error ? err.message : String(err) });
      return;
    }
    worker.once('message', (a: WorkerAnswer) => answer(a));
    worker.once('error', (err) => answer({ error: err.message }));
    worker.once('exit', (code) => answer({ error: `worker exited with code ${code}` }));
  });
}
