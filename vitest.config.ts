import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Test files share their worker's module cache: importing the client, the emulator, ajv and
    // yaml again for each of ~100 files cost about 40 s of a 65 s run on 2 cores. It is safe because
    // no test mocks modules or keeps state in them (clocks come in through options, e.g.
    // Io.clientOptions), and `vitest run --sequence.shuffle` is kept passing to prove it.
    isolate: false,
    // Two workers on the 2-core CI machine (vitest's default there is one): many tests wait on child
    // processes and loopback HTTP rather than on the CPU, so two files at a time finish sooner. Tests
    // share no file, port or cache folder (each makes its own temporary ones), which
    // `vitest run --sequence.shuffle` keeps honest.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
