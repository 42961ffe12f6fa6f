import { z } from "zod";

/** Messages accepted by the /api/chat endpoint. */
const Message = z.object({
  role: z.enum(["system", "user", "assistant"]),
  content: z.string().max(8000),
});

export const ChatRequest = z.object({
  messages: z.array(Message).min(1).max(50),
  temperature: z.number().min(0).max(2).optional(),
});

export type ChatRequest = z.infer<typeof ChatRequest>;

const SERVER_SYSTEM_PROMPT =
  "You are Docs Helper, an assistant that answers questions about the Lumen " +
  "UI component library. Use the provided documentation excerpts. If the " +
  "answer isn't in the excerpts, say you don't know.";

/**
 * Clients are not allowed to set their own system message: drop any that
 * arrive and prepend ours.
 */
export function normaliseMessages(req: ChatRequest) {
  const userTurns = req.messages.filter((m) => m.role !== "system");
  return [{ role: "system" as const, content: SERVER_SYSTEM_PROMPT }, ...userTurns];
}
