import type * as z from 'zod';
import type { Account } from '../../core/accounts/account.ts';
import type { Principal } from '../../core/auth/principal.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import type { ToolError } from './tool-error.ts';
import type { ToolServices } from './tool-services.ts';

/** What the MCP spec calls tool annotations; every tool states all four truthfully. */
export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  /** True when the tool reaches beyond our database (a mailbox, a web server). */
  readonly openWorldHint: boolean;
}

export interface ToolContext {
  readonly principal: Principal;
  readonly account: Account;
  readonly services: ToolServices;
  readonly clock: Clock;
  readonly log: Logger;
}

/** A success payload: any JSON object; `sayToHuman` is for the person, `agentOnly` for the agent only. */
export type ToolPayload = Record<string, unknown> & { sayToHuman?: string; agentOnly?: string[] };

export type ToolOutcome =
  { readonly ok: true; readonly value: ToolPayload } | { readonly ok: false; readonly error: ToolError };

export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly title: string;
  /** Written for a model: what it does, when to use it, what to ask the person first. */
  readonly description: string;
  readonly input: S;
  readonly annotations: ToolAnnotations;
  /** `['app']` hides the tool from the model; views call it (MCP Apps). Authorised like any other tool. */
  readonly visibility?: readonly ('model' | 'app')[];
  /** The MCP Apps view this tool renders into. */
  readonly resourceUri?: string;
  run(args: z.output<S>, ctx: ToolContext): Promise<ToolOutcome>;
}

/** Keeps the argument type of `run` tied to the schema. */
export function defineTool<S extends z.ZodType>(def: ToolDefinition<S>): ToolDefinition {
  return def;
}
