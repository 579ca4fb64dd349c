import { nulAt } from '../../lib/nul.ts';
import * as z from 'zod';
import { callEntry, type AuditLog } from '../../core/audit/audit-log.ts';
import { InboxGoneError, inboxError } from '../../core/inboxes/inbox-errors.ts';
import { parseInboxId } from '../../core/inboxes/inbox.ts';
import { noMetrics, type Metrics } from '../../lib/metrics.ts';
import {
  allows,
  neededPowers,
  OF_THE_PERSON,
  POWER_WORDS,
  storedPowers,
  TO_THE_PERSON,
  type Addressed,
  type Needs,
} from '../../core/auth/agent-powers.ts';
import type { Allowed } from '../../core/auth/allowed.ts';
import { TOOL_ERROR } from './output-shapes.ts';
import { errorResult, successResult, type CallToolResultWire } from './tool-result.ts';
import { mark, markPlan, newMarker, notice, unwrapArguments, type MarkPlan } from './untrusted-marks.ts';
import type { ToolContext, ToolDefinition } from './tool-definition.ts';
import type { ToolError } from './tool-error.ts';
import { fromInboxError } from './tool-helpers.ts';
import { failureWords } from '../../lib/out-of-space.ts';

/** A tool as `tools/list` shows it; built once at startup. */
export type ListedTool = {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; [k: string]: unknown };
  outputSchema: { type: 'object'; [k: string]: unknown };
  annotations: Record<string, unknown>;
  _meta?: Record<string, unknown>;
};

/** The tools one credential sees (`ToolRegistry.listedFor`), and the same as JSON for the fast path's `tools/list`. */
export interface ToolList {
  readonly tools: readonly ListedTool[];
  readonly json: string;
}

/**
 * Composes one file per tool. Definitions, JSON Schemas and the `tools/list` payload are built once; a call
 * validates its arguments, runs the tool, shapes the result, and records the audit entry. It never throws: an
 * unexpected failure becomes an `internal_error` tool result (details go to the log only).
 */
export class ToolRegistry {
  readonly listed: readonly ListedTool[];
  private readonly byName: ReadonlyMap<string, ToolDefinition>;
  /**
   * Each list by the powers held and whether every inbox is reached, built the first time a credential holding them
   * asks (at most 2^5 × 2 of them).
   */
  private readonly lists = new Map<string, ToolList>();
  /** Where each tool's results hold sender-written text, read from its output schema once. */
  private readonly marks: ReadonlyMap<string, MarkPlan>;
  private readonly audit: AuditLog;
  private readonly metrics: Metrics;
  private readonly maxResultChars: number;

  constructor(
    tools: readonly ToolDefinition[],
    opts: { audit: AuditLog; maxResultChars: number; metrics?: Metrics },
  ) {
    const names = new Set<string>();
    for (const t of tools) {
      if (names.has(t.name)) throw new Error(`duplicate tool ${t.name}`);
      names.add(t.name);
    }
    this.byName = new Map(tools.map((t) => [t.name, t]));
    this.listed = tools.map(listTool);
    this.marks = new Map(
      this.listed.flatMap((t) => {
        const plan = markPlan(t.outputSchema);
        return plan === undefined ? [] : [[t.name, plan] as const];
      }),
    );
    this.audit = opts.audit;
    this.metrics = opts.metrics ?? noMetrics;
    this.maxResultChars = opts.maxResultChars;
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** The tools a credential allowed this may call, and only those (decisions 0141, 0142). */
  listedFor(allowed: Allowed): ToolList {
    const key = `${storedPowers(allowed.powers) ?? '*'}|${allowed.inboxes === null ? 'every' : 'some'}`;
    let list = this.lists.get(key);
    if (list === undefined) {
      const tools = this.listed.filter((t) => {
        const def = this.byName.get(t.name);
        return def !== undefined && refusal(allowed, def) === undefined;
      });
      list = { tools, json: JSON.stringify(tools) };
      this.lists.set(key, list);
    }
    return list;
  }

  /** `undefined` for an unknown tool: that is a protocol error, answered by the MCP layer. */
  async call(name: string, rawArgs: unknown, ctx: ToolContext): Promise<CallToolResultWire | undefined> {
    const tool = this.byName.get(name);
    if (tool === undefined) return undefined;
    const started = performance.now();
    const ran = await this.run(tool, rawArgs, ctx);
    this.metrics.toolCall(name, ran.outcome, (performance.now() - started) / 1000);
    const args = rawArgs as { inboxId?: unknown } | undefined;
    const inboxId = typeof args?.inboxId === 'string' ? (parseInboxId(args.inboxId) ?? null) : null;
    const unrecorded = await this.audit
      .record(
        callEntry(ctx.principal, {
          at: ctx.clock.now(),
          tool: name,
          inboxId,
          outcome: ran.outcome,
          undoId: ran.undoId,
          durationMs: Math.round(performance.now() - started),
        }),
      )
      .then(
        () => null,
        (e: unknown) => {
          ctx.log.error({ err: e, tool: name }, 'audit write failed');
          return { error: e };
        },
      );
    // The person's activity log holds every read of their mail: a read that cannot be written there is not
    // answered (decision 0056). A change has happened by now, so its answer (and its undo handle) still goes out.
    if (unrecorded !== null && ran.outcome === 'ok' && tool.annotations.readOnlyHint)
      return errorResult({
        error: 'internal_error',
        message: failureWords(
          unrecorded.error,
          'The answer could not be written to the activity log, so it is withheld. Try again later; if it keeps failing, tell the person.',
        ),
      });
    return ran.result;
  }

  /** Validates, runs and shapes one call; never throws. */
  private async run(
    tool: ToolDefinition,
    rawArgs: unknown,
    ctx: ToolContext,
  ): Promise<{ result: CallToolResultWire; outcome: string; undoId: string | null }> {
    // Kept outside the try: a change whose answer then fails to build still has its undo handle in the audit row.
    let undoId: string | null = null;
    const refused = refusal(ctx.principal, tool);
    if (refused !== undefined) return { result: errorResult(refused), outcome: 'not_allowed', undoId: null };
    try {
      const parsed = tool.input.safeParse(unwrapArguments(rawArgs ?? {}));
      if (!parsed.success)
        return {
          result: errorResult(invalidArguments(parsed.error)),
          outcome: 'invalid_arguments',
          undoId: null,
        };
      // Refused before the tool runs, on both databases alike (decision 0060).
      const nul = nulAt(parsed.data);
      if (nul !== undefined)
        return { result: errorResult(nulArgument(nul)), outcome: 'invalid_arguments', undoId: null };
      const marker = newMarker();
      const result = await tool.run(parsed.data, { ...ctx, marker });
      if (!result.ok) {
        // A failure may quote the sender too (a VIP's address, an unsubscribe fallback), marked by the tool.
        return {
          result: errorResult(marker.used ? { ...result.error, untrusted: notice(marker) } : result.error),
          outcome: result.error.error,
          undoId: null,
        };
      }
      undoId = typeof result.value['undoId'] === 'string' ? result.value['undoId'] : null;
      const plan = this.marks.get(tool.name);
      const marked = (plan === undefined ? result.value : mark(result.value, plan, marker)) as Record<
        string,
        unknown
      >;
      return {
        result: successResult(
          marker.used ? { ...marked, untrusted: notice(marker) } : marked,
          this.maxResultChars,
          result.viewOnly,
        ),
        outcome: 'ok',
        undoId,
      };
    } catch (e) {
      if (e instanceof InboxGoneError)
        return {
          result: errorResult(
            fromInboxError(inboxError('inbox_not_found', e.message, 'pick_listed_inbox')).error,
          ),
          outcome: 'inbox_not_found',
          undoId,
        };
      ctx.log.error({ err: e, tool: tool.name }, 'tool failed');
      return {
        result: errorResult({
          error: 'internal_error',
          message: failureWords(
            e,
            'The tool failed on the server. Try again later; if it keeps failing, tell the person.',
          ),
        }),
        outcome: 'internal_error',
        undoId,
      };
    }
  }
}

function listTool(t: ToolDefinition): ListedTool {
  const inputSchema = z.toJSONSchema(t.input, {
    target: 'draft-2020-12',
    io: 'input',
  }) as ListedTool['inputSchema'];
  if ((inputSchema as { type?: unknown }).type !== 'object')
    throw new Error(`tool ${t.name}: input must be an object schema`);
  const meta: Record<string, unknown> = {};
  if (t.resourceUri !== undefined || t.visibility !== undefined) {
    meta['ui'] = {
      ...(t.resourceUri !== undefined && { resourceUri: t.resourceUri }),
      ...(t.visibility !== undefined && { visibility: t.visibility }),
    };
    // Older MCP Apps hosts read the flat key.
    if (t.resourceUri !== undefined) meta['ui/resourceUri'] = t.resourceUri;
  }
  // The Apps SDK's older names for the same ideas (ChatGPT): a view may call it; the model must not see it.
  if (t.calledByViews === true || t.visibility?.includes('app') === true)
    meta['openai/widgetAccessible'] = true;
  if (t.visibility !== undefined && !t.visibility.includes('model')) meta['openai/visibility'] = 'private';
  return {
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema,
    outputSchema: outputSchema(t),
    annotations: { title: t.title, ...t.annotations },
    ...(Object.keys(meta).length > 0 && { _meta: meta }),
  };
}

/**
 * The success shapes and the error shape, as one schema: a client may check the `structuredContent` of an `isError`
 * result too (the v1 SDK client does, decision 0015). The root says `type: object`, or the SDK would wrap the
 * schema and the results under `result` for 2025-era clients.
 */
function outputSchema(t: ToolDefinition): ListedTool['outputSchema'] {
  const out = t.output;
  const successes = out instanceof z.ZodNever ? [] : out instanceof z.ZodUnion ? [...out.options] : [out];
  const { $schema, ...rest } = z.toJSONSchema(z.union([...successes, TOOL_ERROR]), {
    target: 'draft-2020-12',
    io: 'output',
  });
  return { $schema, ...rest, type: 'object' };
}

/**
 * Flags that stand for the person's agreement. When one of them is the only thing missing, the answer says to ask
 * the person first, under its own code, instead of a generic schema error.
 */
const AGREEMENT_FLAGS: Readonly<Record<string, 'confirmation_required' | 'human_approval_required'>> = {
  confirmed: 'confirmation_required',
  humanConfirmedInChat: 'confirmation_required',
  humanApprovedInChat: 'human_approval_required',
};

/** Why a credential allowed this may not call the tool (`not_allowed`), or undefined when it may. */
function refusal(
  allowed: Allowed,
  tool: Pick<ToolDefinition, 'needs' | 'spansInboxes'>,
): ToolError | undefined {
  if (!allows(allowed.powers, tool.needs)) return notAllowed(tool.needs);
  if (tool.spansInboxes === true && allowed.inboxes !== null) return notEveryInbox();
  return undefined;
}

function notEveryInbox(): ToolError {
  return {
    error: 'not_allowed',
    message:
      'The person has let this agent reach only some of their inboxes, so it may not change what every inbox shares (VIPs, the send switch, which inboxes there are). Do not try another way round it. If they want you to, they can let this agent reach every inbox in the console: Settings → Advanced for an API key, Settings → Connected agents for a signed-in agent.',
    sayToHuman:
      'You have let this agent reach only some of your inboxes, so it may not change what they all share (VIPs, sending, adding inboxes). To let it, choose every inbox for it under Settings → Advanced (an API key) or Settings → Connected agents.',
    details: { needs: 'every_inbox' },
  };
}

function notAllowed(needs: Needs): ToolError {
  const powers = neededPowers(needs);
  const phrase = (a: Addressed) =>
    powers.length === 0 ? 'use this tool' : powers.map((p) => POWER_WORDS[p].what(a)).join(', nor to ');
  return {
    error: 'not_allowed',
    message: `The person has not allowed this agent to ${phrase(OF_THE_PERSON)}. Do not try another way round it. If they want you to, they can allow it in the console: Settings → Advanced for an API key, Settings → Connected agents for a signed-in agent.`,
    // What a view shows the person, and what the agent shows them (the server's instructions).
    sayToHuman: `You have not allowed this agent to ${phrase(TO_THE_PERSON)}. To let it, change what it may do under Settings → Advanced (an API key) or Settings → Connected agents.`,
    details: { needs: powers },
  };
}

function nulArgument(path: string): ToolError {
  const where = path === '' ? '(arguments)' : path;
  const message = 'holds a NUL character (U+0000), which no argument accepts';
  return {
    error: 'invalid_arguments',
    message: `The arguments do not match this tool's input schema: ${where}: ${message}`,
    details: { issues: [{ path: where, message }] },
  };
}

function invalidArguments(error: z.ZodError): ToolError {
  const flags = new Set(error.issues.map((i) => (i.path.length === 1 ? String(i.path[0]) : '')));
  const [flag] = flags;
  const code = flags.size === 1 && flag !== undefined ? AGREEMENT_FLAGS[flag] : undefined;
  if (code !== undefined && flag !== undefined) {
    return {
      error: code,
      message: `${flag}: true is required. Ask the person in chat first, and call again with ${flag}: true only after they clearly agree.`,
    };
  }
  const issues = error.issues
    .slice(0, 10)
    .map((i) => ({ path: i.path.join('.') || '(arguments)', message: i.message }));
  const summary = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
  return {
    error: 'invalid_arguments',
    message: `The arguments do not match this tool's input schema: ${summary}`,
    details: { issues },
  };
}
