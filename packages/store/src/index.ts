/**
 * @precis/store: the store port of precis, split by concern (`TurnStore`,
 * `DagStore`, `SearchIndex`, `WorkQueue`; `Store` is all four), its models
 * and errors, and its SQL implementation over `@effect/sql` (`SqlStore`: the
 * queries written once for SQLite and PostgreSQL, and the migrations). No
 * driver: `@precis/store-sqlite` and `@precis/store-pg` open the connections.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as StoreError from "./StoreError.js"
/** @since 0.1.0 */
export * as TurnStore from "./TurnStore.js"
/** @since 0.1.0 */
export * as DagStore from "./DagStore.js"
/** @since 0.1.0 */
export * as SearchIndex from "./SearchIndex.js"
/** @since 0.1.0 */
export * as WorkQueue from "./WorkQueue.js"
/** @since 0.1.0 */
export * as Store from "./Store.js"
/** @since 0.1.0 */
export * as FollowedFiles from "./FollowedFiles.js"
/** @since 0.1.0 */
export * as SqlStore from "./SqlStore.js"
/** @since 0.1.0 */
export * as Tables from "./Tables.js"
