import type { Brand } from '../../lib/brand.ts';

export type AccountId = Brand<string, 'AccountId'>;
export type Plan = 'trial' | 'pro';
export type PaymentState = 'ok' | 'failed';

export interface Account {
  readonly id: AccountId;
  /** Lower-cased; unique across the instance. */
  readonly email: string;
  readonly plan: Plan;
  /** Set for `trial`; agent-facing routes answer 402 after it. */
  readonly trialEndsAt: Date | null;
  readonly paymentState: PaymentState;
  readonly createdAt: Date;
}
