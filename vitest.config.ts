import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/rig/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // expect.poll waits on real browsers and servers: 1 s (vitest's default) is too short for a two-core machine
    // running two test files at once (a Google sign-in's callback page once took longer in CI).
    expect: { poll: { timeout: 10_000 } },
    // Two cores: real servers (PostgreSQL, Dovecot, Chromium) per file make more workers slower, not faster.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
