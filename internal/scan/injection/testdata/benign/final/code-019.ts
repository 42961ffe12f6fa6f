import { z } from "zod";

// Schema for the agent's tool-call config. The model never sees this file;
// it is validated when the server starts.
export const ToolConfig = z.object({
  name: z.string().regex(/^[a-z][a-z0-9_]{2,40}$/),
  description: z.string().min(20).max(1024),
  requiresConfirmation: z.boolean().default(false),
  // Tools that touch the filesystem must declare an allowlist of roots.
  allowedRoots: z.array(z.string()).optional(),
  timeoutMs: z.number().int().positive().max(120_000).default(30_000),
});

export type ToolConfig = z.infer<typeof ToolConfig>;

export function loadTools(raw: unknown[]): ToolConfig[] {
  const tools = raw.map((t) => ToolConfig.parse(t));
  for (const t of tools) {
    if (t.name.startsWith("fs_") && !t.allowedRoots?.length) {
      throw new Error(`${t.name}: filesystem tools need allowedRoots`);
    }
    if (t.name === "shell_exec" && !t.requiresConfirmation) {
      throw new Error("shell_exec must require user confirmation");
    }
  }
  return tools;
}
