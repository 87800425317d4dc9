import { z } from 'zod';
import { defineTool } from './definition';

/**
 * A naming indirection only (docs/protocol.md §6): dispatch.ts unwraps `{name, arguments}` and runs the named tool
 * through exactly the gates a direct call meets. It has no gate of its own and grants nothing.
 */
export const executeTool = defineTool({
  name: 'execute_tool',
  title: 'Run a tool by name',
  description: 'Runs another tool by name, with its arguments. It is subject to exactly the same checks as calling that tool directly.',
  input: z
    .object({
      name: z.string().min(1).max(256).describe('The tool to run'),
      arguments: z.record(z.string(), z.unknown()).default({}).describe("The tool's arguments"),
    })
    .strict(),
  annotations: { openWorldHint: false },
  scope: null,
  permission: null,
  async run() {
    throw new Error('execute_tool is unwrapped by the dispatcher and never run itself');
  },
});
