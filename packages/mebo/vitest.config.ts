import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Whole-corpus tests (678 vectors, 10,000-blob loops) take seconds each.
    testTimeout: 120_000,
  },
});
