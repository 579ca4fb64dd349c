import { flagTool, LABEL_CHANGE } from '../flag-tools.ts';
import { ACT_RESULT } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';

export const removeLabels = defineTool({
  name: 'remove_labels',
  needs: 'tidy',
  title: 'Remove labels',
  description:
    'Removes labels from up to 25 messages. With more than one message id, ask the person first and pass confirmed: true. ' +
    'Returns an undoId.',
  input: LABEL_CHANGE,
  output: ACT_RESULT,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  run: (a, ctx) => flagTool(ctx, 'unlabel', { ...a, labels: a.labelIds }),
});
