/**
 * @precis/core: domain schemas, ports and the never-failing Summarizer.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as AlsoLine from "./AlsoLine.js"
/** @since 0.1.0 */
export * as Chunked from "./Chunked.js"
/** @since 0.1.0 */
export * as ConversationTurn from "./ConversationTurn.js"
/** @since 0.1.0 */
export * as Escape from "./Escape.js"
/** @since 0.1.0 */
export * as FactCheck from "./FactCheck.js"
/** @since 0.1.0 */
export * as LeafDigest from "./LeafDigest.js"
/** @since 0.1.0 */
export * as Material from "./Material.js"
/** @since 0.1.0 */
export * as OutputDigest from "./OutputDigest.js"
/** @since 0.1.0 */
export * as OptionConfig from "./OptionConfig.js"
/** @since 0.1.0 */
export * as OptionError from "./OptionError.js"
/** @since 0.1.0 */
export * as OptionSchema from "./OptionSchema.js"
/** @since 0.1.0 */
export * as Prompt from "./Prompt.js"
/** @since 0.1.0 */
export * as Provider from "./Provider.js"
/** @since 0.1.0 */
export * as ProviderError from "./ProviderError.js"
/** @since 0.1.0 */
export * as Redact from "./Redact.js"
/** @since 0.1.0 */
export * as SchemaIssue from "./SchemaIssue.js"

/** @since 0.1.0 */
export * as SessionState from "./SessionState.js"
/** @since 0.1.0 */
export * as Summarizer from "./Summarizer.js"
/** @since 0.1.0 */
export * as Summary from "./Summary.js"
/** @since 0.1.0 */
export * as SummaryRecord from "./SummaryRecord.js"
/** @since 0.1.0 */
export * as SummaryTask from "./SummaryTask.js"
/** @since 0.1.0 */
export * as TokenEstimator from "./TokenEstimator.js"
/** @since 0.1.0 */
export * as Transcript from "./Transcript.js"
/** @since 0.1.0 */
export * as ToolKind from "./ToolKind.js"
/** @since 0.1.0 */
export * as ToolMetadata from "./ToolMetadata.js"
/** @since 0.1.0 */
export * as ToolUse from "./ToolUse.js"
