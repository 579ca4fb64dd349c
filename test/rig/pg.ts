import { inject } from 'vitest';
import type {} from './global-setup.ts'; // brings in the ProvidedContext['pgUrl'] declaration
import { createDatabaseOn } from './pg-database.ts';

/**
 * Creates an empty database (random name, owned by the app role) on the run's
 * shared cluster and returns its postgres:// url. Call it in beforeAll so each
 * test file gets its own database.
 */
export async function freshPgDatabase(): Promise<string> {
  const url = inject('pgUrl') as string | undefined;
  if (!url) {
    throw new Error(
      "pgUrl was not provided: add 'test/rig/global-setup.ts' to test.globalSetup in the vitest config",
    );
  }
  return createDatabaseOn(url);
}
