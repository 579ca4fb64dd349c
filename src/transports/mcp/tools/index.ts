import type { ToolDefinition } from '../tool-definition.ts';
import { listInboxes } from './list-inboxes.ts';

/** Every MCP tool, one file each. */
export const ALL_TOOLS: readonly ToolDefinition[] = [listInboxes];
