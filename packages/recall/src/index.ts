/**
 * @precis/recall: the recall toolkit of `@effect/ai` agents over the precis
 * store (`search`, `expand`, `describe`).
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as PrecisToolkit from "./PrecisToolkit.js"

/** @since 0.1.0 */
export * as ContextTool from "./ContextTool.js"

/** @since 0.1.0 */
export * as McpTools from "./McpTools.js"

/** @since 0.1.0 */
export * as McpStdio from "./McpStdio.js"
