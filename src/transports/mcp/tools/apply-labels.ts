import { flagTool, LABEL_CHANGE } from '../flag-tools.ts';
import { ACT_RESULT } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';

export const applyLabels = defineTool({
  name: 'apply_labels',
  needs: 'tidy',
  title: 'Add labels',
  description:
    'Adds labels (ids from list_labels; IMAP keywords on icloud/imap) to up to 25 messages. With more than one message id, ask the ' +
    'person first and pass confirmed: true. Returns an undoId.',
  input: LABEL_CHANGE,
  output: ACT_RESULT,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  run: (a, ctx) => flagTool(ctx, 'label', { ...a, labels: a.labelIds }),
});
