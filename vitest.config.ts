import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/rig/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores: real servers (PostgreSQL, Dovecot, Chromium) per file make more workers slower, not faster.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
