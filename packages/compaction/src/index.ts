/**
 * @precis/compaction: the summary DAG (CompactionManager), its options, the
 * fresh tail's rules, the active context and the stored session state, and
 * Sleep Mode (compaction in idle time), over the store port of
 * `@precis/store` (no driver: `@precis/store-sqlite` or `@precis/store-pg`
 * provides it). The context an agent sends within a budget is assembled by
 * `@precis/context`.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as CompactionOptions from "./CompactionOptions.js"
/** @since 0.1.0 */
export * as CompactionProgress from "./CompactionProgress.js"
/** @since 0.1.0 */
export * as FreshTail from "./FreshTail.js"
/** @since 0.1.0 */
export * as ActiveContext from "./ActiveContext.js"
/** @since 0.1.0 */
export * as CompactionManager from "./CompactionManager.js"
/** @since 0.1.0 */
export * as CompactionError from "./CompactionError.js"
/** @since 0.1.0 */
export * as SleepMode from "./SleepMode.js"
