/**
 * @precis/chat: the memory of an `@effect/ai` `Chat` over the precis store:
 * `PrecisChat` (`Chat.Persistence` and `Chat.Chat` layers that record every
 * message as turns and send the assembled context) and `ChatTurns` (a
 * conversation's messages as turns with the importers' `ToolMetadata`, and
 * back).
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as ChatTurns from "./ChatTurns.js"
/** @since 0.1.0 */
export * as PrecisChat from "./PrecisChat.js"
