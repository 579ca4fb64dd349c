import type * as z from 'zod';
import type { Account } from '../../core/accounts/account.ts';
import type { Needs } from '../../core/auth/agent-powers.ts';
import type { Principal } from '../../core/auth/principal.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Logger } from '../../lib/logger.ts';
import type { ToolError } from './tool-error.ts';
import type { Marker } from './untrusted-marks.ts';
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
  /** This call's markers for sender-written text (untrusted-marks.ts): for text a tool writes into a sentence. */
  readonly marker: Marker;
  readonly principal: Principal;
  readonly account: Account;
  readonly services: ToolServices;
  readonly clock: Clock;
  readonly log: Logger;
}

/** A success payload: a JSON object of the shape the tool's `output` declares (common members: output-shapes.ts). */
export type ToolPayload = Record<string, unknown>;

export type ToolFailure = { readonly ok: false; readonly error: ToolError };
/**
 * `viewOnly` goes to the tool's interactive view alone, as the result's `_meta`: never in the text or the
 * structured copy a model reads (the draft card's single-use code travels there).
 */
export type ToolOutcome<T = ToolPayload> =
  { readonly ok: true; readonly value: T; readonly viewOnly?: Record<string, unknown> } | ToolFailure;

/** JSON data as `run` may hand it over: core types are readonly, and a readonly array is as good as a mutable one. */
type Frozen<T> = T extends readonly (infer E)[]
  ? readonly Frozen<E>[]
  : T extends object
    ? { readonly [K in keyof T]: Frozen<T[K]> }
    : T;

/** An output schema: a JSON object at the root (the 2025 wire requires it; `z.never()` also fits). */
export type OutputSchema = z.ZodType<ToolPayload, ToolPayload>;

/** What `run` returns on success for an output schema: its input type, so TypeScript checks the payload. */
export type PayloadOf<O extends OutputSchema> = Frozen<z.input<O>>;

export interface ToolDefinition<S extends z.ZodType = z.ZodType, O extends OutputSchema = OutputSchema> {
  readonly name: string;
  /**
   * What the person must have let the calling agent do (decision 0141): `read`, every agent's, or one power. A tool
   * whose power the credential lacks is not listed, and a call to it is refused with `not_allowed`.
   */
  readonly needs: Needs;
  /**
   * The tool changes what every inbox of the account shares — VIPs, the triage profile, the send switch, which inboxes
   * there are (decision 0142): an agent the person let reach only some inboxes is neither shown it nor let call it.
   */
  readonly spansInboxes?: true;
  readonly title: string;
  /** Written for a model: what it does, when to use it, what to ask the person first. */
  readonly description: string;
  readonly input: S;
  /** The success payload (`z.never()` if it cannot succeed yet); published with the error shape as `outputSchema`. */
  readonly output: O;
  readonly annotations: ToolAnnotations;
  /** `['app']` hides the tool from the model; views call it (MCP Apps). Authorised like any other tool. */
  readonly visibility?: readonly ('model' | 'app')[];
  /** The MCP Apps view this tool renders into. */
  readonly resourceUri?: string;
  /** Views call this tool (a button, a refresh): marked for hosts that ask (`openai/widgetAccessible`). */
  readonly calledByViews?: true;
  run(args: z.output<S>, ctx: ToolContext): Promise<ToolOutcome<PayloadOf<O>>>;
}

/** Keeps the argument type of `run` tied to the input schema, and its result to the output schema. */
export function defineTool<S extends z.ZodType, O extends OutputSchema>(
  def: ToolDefinition<S, O>,
): ToolDefinition {
  return def;
}
