import { hash, verify } from '@node-rs/argon2';
import type { PasswordHasher } from '../../core/accounts/password-hasher.ts';

/** argon2id with the OWASP-recommended minimum (19 MiB, 2 passes); runs on libuv's thread pool. */
export function argon2PasswordHasher(
  cost: { memoryCost: number; timeCost: number } = { memoryCost: 19_456, timeCost: 2 },
): PasswordHasher {
  const options = {
    algorithm: 2 /* Argon2id */,
    memoryCost: cost.memoryCost,
    timeCost: cost.timeCost,
    parallelism: 1,
  } as const;
  return {
    hash: (password) => hash(password, options),
    verify: async (stored, password) => {
      try {
        return await verify(stored, password);
      } catch {
        return false; // a malformed stored hash is a failed sign-in, not a crash
      }
    },
  };
}
