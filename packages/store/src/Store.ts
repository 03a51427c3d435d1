/**
 * The whole store port: the four parts a driver provides together
 * ({@link Store}), and one implementation of them all ({@link Service}) turned
 * into the four services ({@link context}, {@link layer}). Code asks only for
 * the parts it uses: the compaction engine for `TurnStore | DagStore |
 * WorkQueue`, recall's search tool for `SearchIndex`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as DagStore from "./DagStore.js"
import * as SearchIndex from "./SearchIndex.js"
import * as TurnStore from "./TurnStore.js"
import * as WorkQueue from "./WorkQueue.js"

/**
 * The services of the store port: what a driver layer
 * (`SqliteStore.layer`, `PgStore.layer`) provides.
 *
 * @since 0.1.0
 */
export type Store = TurnStore.TurnStore | DagStore.DagStore | SearchIndex.SearchIndex | WorkQueue.WorkQueue

/**
 * One implementation of every part of the port.
 *
 * @since 0.1.0
 */
export interface Service extends TurnStore.Service, DagStore.Service, SearchIndex.Service, WorkQueue.Service {}

/**
 * The four services of the port, each backed by `service`.
 *
 * @since 0.1.0
 */
export const context = (service: Service): Context.Context<Store> =>
  Context.make(TurnStore.TurnStore, service).pipe(
    Context.add(DagStore.DagStore, service),
    Context.add(SearchIndex.SearchIndex, service),
    Context.add(WorkQueue.WorkQueue, service)
  )

/**
 * The four parts of the port in context as one object, for code that uses
 * all of them (a test, say); code that needs less asks for its parts.
 *
 * @since 0.1.0
 */
export const all: Effect.Effect<Service, never, Store> = Effect.map(
  Effect.all([TurnStore.TurnStore, DagStore.DagStore, SearchIndex.SearchIndex, WorkQueue.WorkQueue]),
  // Each part's methods, whatever they are: a method added to a part is in `all` with nothing to list.
  ([turns, dag, search, work]): Service => ({ ...turns, ...dag, ...search, ...work })
)

/**
 * The four services of the port from an effect that builds one
 * implementation: a custom store, or a driver's `make` over a `SqlClient` the
 * caller provides.
 *
 * @example
 * ```ts
 * import { Store } from "@precis/store"
 * import { SqliteStore } from "@precis/store-sqlite"
 * // Layer<Store.Store, StoreError, SqlClient>: over a client shared with other code
 * const StoreOverClient = Store.layer(SqliteStore.make())
 * ```
 * @since 0.1.0
 */
export const layer = <E, R>(make: Effect.Effect<Service, E, R>): Layer.Layer<Store, E, R> =>
  Layer.effectContext(Effect.map(make, context))
