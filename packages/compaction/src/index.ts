/**
 * @precis/compaction: the summary DAG (CompactionManager), its options and
 * active context, Sleep Mode (compaction in idle time), the Condenser Pipeline (a context within a
 * budget) and its Expansion (a context that fills its budget from the DAG), the MemoryStore port and its SQLite and PostgreSQL drivers.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as MemoryStore from "./MemoryStore.js"
/** @since 0.1.0 */
export * as SqliteMemoryStore from "./SqliteMemoryStore.js"
/** @since 0.3.0 */
export * as PgMemoryStore from "./PgMemoryStore.js"
/** @since 0.1.0 */
export * as CompactionOptions from "./CompactionOptions.js"
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
