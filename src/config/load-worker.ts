// A worker thread of parallel-load.ts: takes files from the shared counter, reads their documents,
// answers once with what it read.

import { parentPort, workerData } from 'node:worker_threads';
import type { FileResult } from './load-file.js';
import { takeFiles, type WorkerAnswer, type WorkerTask } from './parallel-load.js';
import { prepareValidators } from './validators.js';

async function main(task: WorkerTask): Promise<WorkerAnswer> {
  await prepareValidators();
  const results: [number, FileResult][] = [];
  takeFiles({ ...task, options: { ...task.options, now: () => task.now } }, new Int32Array(task.counter), results);
  return { results };
}

main(workerData as WorkerTask).then(
  (answer) => parentPort?.postMessage(answer),
  (err: unknown) => parentPort?.postMessage({ error: err instanceof Error ? err.message : String(err) } satisfies WorkerAnswer),
);
