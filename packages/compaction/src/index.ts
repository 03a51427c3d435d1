/**
 * @precis/compaction: the summary DAG (CompactionManager), its options and
 * active context, Sleep Mode (compaction in idle time), the Condenser Pipeline (a context within a
 * budget) and its Expansion (a context that fills its budget from the DAG), over the store port of
 * `@precis/store` (no driver: `@precis/store-sqlite` or `@precis/store-pg` provides it).
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as CompactionOptions from "./CompactionOptions.js"
/** @since 0.3.0 */
export * as FreshTail from "./FreshTail.js"
/** @since 0.1.0 */
export * as ActiveContext from "./ActiveContext.js"
/** @since 0.1.0 */
export * as Condenser from "./Condenser.js"
/** @since 0.3.0 */
export * as Expansion from "./Expansion.js"
/** @since 0.1.0 */
export * as CompactionManager from "./CompactionManager.js"
/** @since 0.3.0 */
export * as SleepMode from "./SleepMode.js"
