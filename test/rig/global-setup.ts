import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { bundledMain } from '../../bin/bundle.ts';
import { startPgCluster } from './pg-cluster.ts';
import { ensureSystemPackages, REQUIRED_SYSTEM_PACKAGES } from './system-deps.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** app-role url of the run's PostgreSQL cluster (role has CREATEDB); see freshPgDatabase */
    pgUrl: string;
  }
}

/**
 * vitest globalSetup: runs once in the main process before any test file.
 * Starting PostgreSQL once per run (≈1 s) instead of per file keeps the suite
 * fast; files get isolation from freshPgDatabase() instead.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await ensureSystemPackages(REQUIRED_SYSTEM_PACKAGES);
  // The service processes the suites start run the bundle (decision 0035): built here once, not by the first few
  // processes at the same time, and a suite that could only run from source fails here instead of passing unseen.
  if (bundledMain(join(import.meta.dirname, '..', '..'), {}) === undefined)
    throw new Error('the service could not be bundled (see the line above)');
  const cluster = await startPgCluster();
  project.provide('pgUrl', cluster.url);
  return () => cluster.stop();
}
