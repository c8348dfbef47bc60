import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Tests that fill a connector budget against the real clock (a first sync of 100,000
 * customers beside live polls for 35 s, most of a core): they run last, one file at a time,
 * neither slowing the suite's files nor slowed by them. What they assert does not depend on
 * time (the budget's turns, the capacity offered), but a starved process offers less.
 */
const BUDGET_FILLING_TESTS = ['test/polling/connector-budget.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...BUDGET_FILLING_TESTS],
          // Most integration tests wait on sockets, child processes and timers: at two files at a
          // time the two cores were ~78% busy (CPU seconds over wall × 2 of a quarter of the
          // suite), and at three ~70% (the real-clock files' waits). Four files at a time, two
          // alternating pairs on a clean cache (as on CI): 267 and 288 s against 295 and 315 s at
          // three, every test passing (vitest's default would be one).
          maxWorkers: 4,
          // Files of a worker share its loaded modules: importing the sources anew for each file
          // took ~90 of the suite's ~300 s. Tests undo what they change for the whole process
          // (client mocks, spies, environment variables, fake timers); the local dynalite fixes
          // they install are idempotent and process-wide.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'budget-filling',
          include: BUDGET_FILLING_TESTS,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
