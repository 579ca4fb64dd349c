import { describe } from 'vitest';
import { rateLimiterContract } from '../../core/rate-limits/rate-limiter.contract.ts';
import { flexibleRateLimiter } from './flexible-rate-limiter.ts';

describe('rate limiter in memory', () => {
  const limiters = {
    first: flexibleRateLimiter(),
    second: flexibleRateLimiter(),
    shared: false,
  };
  rateLimiterContract(() => limiters);
});
