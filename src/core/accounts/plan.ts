import type { Account, Plan } from './account.ts';

/** Contract §2 / §8: trial accounts may hold 1 active API key, pro accounts 3. */
export const PLAN_LIMITS: Record<Plan, { readonly activeApiKeys: number }> = {
  trial: { activeApiKeys: 1 },
  pro: { activeApiKeys: 3 },
};

export type AccessDecision =
  | { readonly allowed: true }
  | {
      readonly allowed: false;
      readonly reason: 'trial_ended' | 'payment_failed';
      readonly description: string;
    };

/**
 * Whether agents may act for this account now. Agent-facing routes answer 402 when not; the person's own
 * pages keep working and show the same description.
 */
export function agentAccess(account: Account, now: Date): AccessDecision {
  if (account.paymentState === 'failed') {
    return {
      allowed: false,
      reason: 'payment_failed',
      description: 'The last payment for this account failed. The account owner can fix it in Settings.',
    };
  }
  if (
    account.plan === 'trial' &&
    account.trialEndsAt !== null &&
    now.getTime() >= account.trialEndsAt.getTime()
  ) {
    return {
      allowed: false,
      reason: 'trial_ended',
      description: `The trial ended on ${account.trialEndsAt.toISOString().slice(0, 10)}. The account owner can upgrade in Settings.`,
    };
  }
  return { allowed: true };
}
