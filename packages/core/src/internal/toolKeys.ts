/**
 * The metadata keys under which importers and agent frameworks record the id
 * of the tool call a result answers, the most common first.
 *
 * @internal
 */
export const TOOL_CALL_ID_KEYS = ["toolCallId", "tool_call_id", "tool_use_id", "toolUseId"] as const
