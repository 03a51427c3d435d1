/**
 * @precis/context: the context an agent sends, assembled from the summary DAG
 * of `@precis/compaction`: the Condenser Pipeline (a context within a budget,
 * its stages in one registry), its Expansion (a context that fills its budget
 * from the DAG), the Layout (from the most stable block to the least, as text
 * or chat messages), AiPrompt (the same as an `@effect/ai` Prompt with its
 * cache breakpoint marked) and the Assembler service that does all of it for
 * a session, keeping its prefix between compactions, over the store port of
 * `@precis/store`.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as ContextError from "./ContextError.js"
/** @since 0.1.0 */
export * as AssemblerConfig from "./AssemblerConfig.js"
/** @since 0.1.0 */
export * as Condenser from "./Condenser.js"
/** @since 0.1.0 */
export * as Expansion from "./Expansion.js"
/** @since 0.1.0 */
export * as Layout from "./Layout.js"
/** @since 0.1.0 */
export * as Assembler from "./Assembler.js"
/** @since 0.1.0 */
export * as AiPrompt from "./AiPrompt.js"
/** @since 0.1.0 */
export * as ProjectDigest from "./ProjectDigest.js"
