import * as z from 'zod';
import type { Lease } from '../../core/leases/lease-store.ts';
import { FIT_NAME } from '../../lib/shown-text.ts';
import { toolError } from './tool-error.ts';

/** The label an agent gives its pass, as every lease tool takes it. */
export const AGENT_LABEL = z
  .string()
  .trim()
  .min(1)
  .max(80)
  // Shown to the person and to other agents ("“…” holds the triage lease"): no control character, and no direction
  // override or isolate, which turns the words after it around (decision 0106).
  .regex(FIT_NAME, 'no control or direction characters');

/** A lease as the lease tools answer it. */
export const leaseView = (l: Lease) => ({
  agentLabel: l.agentLabel,
  startedAt: l.startedAt.toISOString(),
  expiresAt: l.expiresAt.toISOString(),
});

export const LEASE = z.object({ agentLabel: z.string(), startedAt: z.string(), expiresAt: z.string() });

/** Another agent holds the inbox's lease: `lease_held`, with whom and until when. */
export const heldError = (l: Lease) =>
  toolError(
    'lease_held',
    `“${l.agentLabel}” holds the triage lease on this inbox until ${l.expiresAt.toISOString()}. Do not change mail here until it ends.`,
    {
      details: { holder: l.agentLabel, expiresAt: l.expiresAt.toISOString() },
      sayToHuman:
        'Another agent is tidying this inbox right now, so I will not change anything there until it is done.',
    },
  );
