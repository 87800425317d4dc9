// What a tool is: its published description, the input it accepts, and the gates it must pass. The
// gates are checked by gates.ts before `run` is called, for direct calls and execute_tool alike.
import type { z } from 'zod';
import type { Permission } from '@/lib/auth/permissions';
import type { McpScope } from '@/lib/oauth/scopes';
import type { Caller } from '../caller';

export type ToolAnnotations = {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
};

export type ToolResult = {
  /** Shown to the model as text. */
  text: string;
  /** Returned as structuredContent when the tool declares an output schema. */
  structured?: Record<string, unknown>;
};

export type ToolDefinition<Input extends z.ZodType = z.ZodType> = {
  name: string;
  title: string;
  description: string;
  input: Input;
  output?: z.ZodType;
  annotations: ToolAnnotations;
  /** The consent checkbox the connection needs; null only for execute_tool, which defers to its target. */
  scope: McpScope | null;
  /** Beyond tool:execute, which every tool needs. */
  permission: Permission | null;
  run(caller: Caller, input: z.infer<Input>): Promise<ToolResult>;
};

export function defineTool<Input extends z.ZodType>(definition: ToolDefinition<Input>): ToolDefinition<Input> {
  return definition;
}
