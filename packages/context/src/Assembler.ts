/**
 * The Assembler: the context an agent sends for a session, within a budget.
 * It loads the active context (`ActiveContext.load`), puts the session-state
 * header first within its share of the budget (`Layout.header`), runs the
 * Condenser's standard stages with the summary DAG as their summarize stage
 * (`Condenser.stages`: mask, forget, then a compaction only while the context
 * is still over `threshold * budget`, then window), then fills what the
 * budget leaves from the DAG (`Expansion`). The result is never over the
 * budget, header included; `Layout.render` / `Layout.toMessages` turn it into
 * text or chat messages.
 *
 * - {@link layer} works with a `CompactionManager`: it may compact the session
 *   (unless `compact: false`) and saves the session state it carried forward.
 * - {@link layerReadOnly} needs only the store's `TurnStore` and `DagStore`
 *   (read-only is enough): it never writes (no compaction; the session state
 *   is carried forward, not saved). `precis context` is this assembler.
 *
 * @example
 * ```ts
 * import { Assembler, Layout } from "@precis/context"
 * import { SqliteStore } from "@precis/store-sqlite"
 * import { Effect, Layer } from "effect"
 * const text = Effect.flatMap(Assembler.Assembler, (assembler) => assembler.assemble("session-1", { budget: 16_000 })).pipe(
 *   Effect.map((assembled) => Layout.render(assembled)),
 *   Effect.provide(Assembler.layerReadOnly.pipe(Layer.provide(SqliteStore.layer({ filename: "precis.db", readonly: true }))))
 * )
 * ```
 * @since 0.1.0
 */
import { ActiveContext, CompactionManager, CompactionOptions } from "@precis/compaction"
import { TokenEstimator } from "@precis/core"
import type { DagStore, StoreError, TurnStore } from "@precis/store"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Condenser from "./Condenser.js"
import * as Expansion from "./Expansion.js"
import * as DagStage from "./internal/dagStage.js"
import * as Layout from "./Layout.js"

/**
 * The options of {@link Service.assemble}: the budget and the Condenser's
 * stage options, whether it may compact, the compaction's options, the
 * expansion's, and the header's.
 *
 * @since 0.1.0
 */
export interface AssembleOptions extends Omit<Condenser.Options, "budget"> {
  /**
   * The budget, in tokens (an integer >= 1). Without one the active context
   * is given whole, header first: no stage runs.
   */
  readonly budget?: number | undefined
  /** Whether the summarize stage may compact the session (write summaries). Default true; never when read-only. */
  readonly compact?: boolean | undefined
  /**
   * Whether (and how) a context under the budget is filled from the summary
   * DAG (see `Expansion`): `false` turns it off, an object sets its
   * `reserve`, `turns` and `maskMinTokens`. Default on, with
   * `Expansion.defaults`. Nothing stored changes.
   */
  readonly expand?: boolean | Omit<Expansion.Options, "budget"> | undefined
  /** Overrides of the manager's compaction options (the `budget` is this call's). */
  readonly compaction?: CompactionOptions.Options | undefined
  /** Whether the session-state header (`SessionState`) goes first. Default true. */
  readonly sessionState?: boolean | undefined
  /**
   * The share of the budget the header may take, `0 <= stateShare < 1`
   * (default `Layout.defaultStateShare`, 0.15); the rest is the summaries' and turns'.
   */
  readonly stateShare?: number | undefined
}

/**
 * An assembled context: the session, its session-state header and the
 * header's tokens, its summaries and turns, their tokens (the header's
 * included; never over the budget) and the per-stage report (of the
 * summaries and turns).
 *
 * @since 0.1.0
 */
export interface Assembled extends Condenser.Condensed {
  readonly sessionId: string
  /** The session-state header, first in the context (`""` when off or empty). */
  readonly header: string
  readonly headerTokens: number
}

/**
 * @since 0.1.0
 */
export interface Service {
  /**
   * What an agent sends to its model for `sessionId`, within `options.budget`
   * (see the module notes). Options that make no sense (a budget of 0, a
   * stage, compaction or expansion option out of its bounds, a `stateShare`
   * of 1) fail with an `InvalidOptionsError` before anything is read.
   */
  readonly assemble: (
    sessionId: string,
    options?: AssembleOptions
  ) => Effect.Effect<Assembled, StoreError.StoreError | CompactionOptions.InvalidOptionsError>
}

/**
 * The Assembler service tag.
 *
 * @since 0.1.0
 */
export class Assembler extends Context.Tag("@precis/context/Assembler")<Assembler, Service>() {}

const invalid = (option: string, message: string) =>
  new CompactionOptions.InvalidOptionsError({ problems: [{ option, message }] })

const build = (manager: CompactionManager.Service | undefined) =>
  Effect.gen(function*() {
    const stores = yield* Effect.context<TurnStore.TurnStore | DagStore.DagStore>()
    const estimator = yield* TokenEstimator.TokenEstimator

    // Checks every option before anything is read; returns the header's share.
    const check = (options: AssembleOptions) =>
      Effect.gen(function*() {
        const { budget, compaction, expand, stateShare = Layout.defaultStateShare } = options
        if (!(Number.isFinite(stateShare) && stateShare >= 0 && stateShare < 1)) {
          return yield* invalid("stateShare", `must be a number >= 0 and < 1 (got ${stateShare})`)
        }
        if (budget === undefined) return stateShare
        yield* Condenser.decodeOptions({ ...options, budget })
        if (typeof expand === "object") yield* Expansion.decodeOptions({ ...expand, budget })
        const overrides = { ...compaction, budget }
        yield* manager === undefined
          ? CompactionOptions.resolveOptions(overrides, budget)
          : manager.resolveOptions(overrides, budget)
        return stateShare
      })

    const assemble: Service["assemble"] = (sessionId, options = {}) =>
      Effect.gen(function*() {
        const share = yield* check(options)
        const { budget, compact, compaction, expand, sessionState } = options
        const active = yield* ActiveContext.load(sessionId)
        // The state folds the uncovered turns just read, not a second read of them; read-only, it is not saved.
        const header = sessionState === false ? "" : Layout.header(
          estimator,
          (yield* (manager === undefined ? ActiveContext.loadState : ActiveContext.refreshState)(sessionId, active.turns))
            .state,
          budget,
          share
        )
        const headerTokens = header.length === 0 ? 0 : estimator.estimate(header)
        if (budget === undefined) {
          const report = { tokensBefore: active.tokens, tokensAfter: active.tokens, stages: [] }
          const { summaries, tokens, turns } = active
          return { sessionId, header, headerTokens, summaries, turns, tokens: tokens + headerTokens, report }
        }
        // The header counts against the budget: the summaries and turns get the rest.
        // Less a token for the separator after the header (and the rounding of two estimates of one text).
        const condenser = { ...options, budget: Math.max(1, budget - headerTokens - (header.length === 0 ? 0 : 1)) }
        const fitting = manager === undefined || compact === false
          ? Condenser.fitStages(condenser)
          : Condenser.stages(
            condenser,
            DagStage.stage(manager, sessionId, condenser.budget, { ...compaction, budget: condenser.budget })
          )
        const expanding = expand === false
          ? []
          : [Expansion.stage({ ...(expand === true ? {} : expand), budget: condenser.budget })]
        const condensed = yield* Condenser.pipeline([...fitting, ...expanding])(active)
        return { sessionId, header, headerTokens, ...condensed, tokens: condensed.tokens + headerTokens }
      }).pipe(
        Effect.provide(stores),
        Effect.provideService(TokenEstimator.TokenEstimator, estimator),
        Effect.withSpan("Assembler.assemble", { attributes: { "precis.session_id": sessionId } })
      )

    return Assembler.of({ assemble })
  })

/**
 * Builds the assembler over the `CompactionManager` and the store's
 * `TurnStore` and `DagStore` in context; the `TokenEstimator` defaults to the
 * core approximation.
 *
 * @since 0.1.0
 */
export const make: Effect.Effect<
  Service,
  never,
  CompactionManager.CompactionManager | TurnStore.TurnStore | DagStore.DagStore
> = Effect.flatMap(CompactionManager.CompactionManager, build)

/**
 * Builds an assembler that never writes, over the store's `TurnStore` and
 * `DagStore` alone (a read-only store is enough): no compaction, whatever
 * `compact` says, and the session state carried forward, not saved.
 *
 * @since 0.1.0
 */
export const makeReadOnly: Effect.Effect<Service, never, TurnStore.TurnStore | DagStore.DagStore> = build(undefined)

/**
 * The assembler layer, over the `CompactionManager` and the store.
 *
 * @example
 * ```ts
 * import { CompactionManager } from "@precis/compaction"
 * import { Assembler } from "@precis/context"
 * import { Summarizer } from "@precis/core"
 * import { ExtractiveProvider } from "@precis/provider-extractive"
 * import { SqliteStore } from "@precis/store-sqlite"
 * import { Layer } from "effect"
 * const Live = Assembler.layer.pipe(
 *   Layer.provideMerge(CompactionManager.layer()),
 *   Layer.provideMerge(SqliteStore.layer({ filename: "agent.db" })),
 *   Layer.provide(Summarizer.layer()),
 *   Layer.provide(ExtractiveProvider.layer())
 * )
 * ```
 * @since 0.1.0
 */
export const layer: Layer.Layer<
  Assembler,
  never,
  CompactionManager.CompactionManager | TurnStore.TurnStore | DagStore.DagStore
> = Layer.effect(Assembler, make)

/**
 * The read-only assembler layer ({@link makeReadOnly}): what `precis context` uses.
 *
 * @since 0.1.0
 */
export const layerReadOnly: Layer.Layer<Assembler, never, TurnStore.TurnStore | DagStore.DagStore> = Layer.effect(
  Assembler,
  makeReadOnly
)
