/**
 * @precis/importers: agent transcript files read into core `ConversationTurn`s.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Importer from "./Importer.js"

/** @since 0.1.0 */
export * as ImportError from "./ImportError.js"

/** @since 0.1.0 */
export * as SkipReport from "./SkipReport.js"

/** @since 0.1.0 */
export * as LineParser from "./LineParser.js"

/** @since 0.1.0 */
export * as Follower from "./Follower.js"
