// Guard that strips tool-call markup a model may echo back in plain text
// before we render its reply in the chat UI.
const TOOL_TAG = /<\/?(tool_call|function_call|tool_result)[^>]*>/gi;

export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
}

export function sanitizeForDisplay(msg: ChatMessage): string {
  if (msg.role === "system") {
    // System prompts are configuration, never shown to end users.
    return "";
  }
  return msg.content.replace(TOOL_TAG, "").trim();
}

export function visibleTranscript(messages: ChatMessage[]): ChatMessage[] {
  return messages
    .filter((m) => m.role === "user" || m.role === "assistant")
    .map((m) => ({ ...m, content: sanitizeForDisplay(m) }))
    .filter((m) => m.content.length > 0);
}
