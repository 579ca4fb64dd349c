import type { UnsubscribePoster } from '../../../core/unsubscribe/unsubscribe-poster.ts';

/** The demo inbox's senders do not exist: the request is recorded (on its approval), nothing leaves the service. */
export const demoPoster: UnsubscribePoster = {
  post: () => Promise.resolve({ kind: 'recorded' }),
};
