/**
 * @precis/compaction: the summary DAG (CompactionManager) and its SQLite store (MemoryStore).
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as MemoryStore from "./MemoryStore.js"
/** @since 0.1.0 */
export * as CompactionManager from "./CompactionManager.js"
