/**
 * The Assembler: the context an agent sends for a session, within a budget,
 * laid out so that a provider's prompt cache keeps its prefix (`Layout`).
 *
 * **A frame per session.** The assembler keeps, for each session, what its
 * last *rebuild* decided: the pinned first request, the summaries (expanded
 * from the DAG then, frozen), the session-state header (when it is placed in
 * the frame) and the turns, each in the form it took when it entered
 * (verbatim, or cut in its middle past `turnShare` of the budget). An
 * assembly reads the turns appended since and adds them at the end: while
 * that fits the budget, the rendered text is the previous one with text
 * added at its end (the header placed at the `end` excepted, the only part
 * refreshed at every assembly).
 *
 * **Hysteresis.** When the turns would pass the high mark (`highWater` of
 * the budget, 0.5 by default: measured against the OpenHands condenser, a
 * third cheaper than 0.8 for one to three probe facts of forty; see
 * BENCHMARKS.md), the context is rebuilt once, down to `lowWater` of the
 * budget (0.25): the session compacted (all but its fresh tail),
 * the active context with old tool output masked, then the expansion from
 * the DAG up to the low-water mark (see `internal/rebuild.ts`). So its start
 * changes once per `(highWater - lowWater) x budget` tokens of new turns,
 * with each compaction, not every turn. A compaction Sleep Mode prepared in
 * idle time is *adopted* at that rebuild, without waiting for a model; never
 * earlier (a frame that still fits keeps its text) and never in the middle of
 * an assembly. A new assembler (a new process) starts with no frame: its
 * first assembly is a rebuild, which compacts only when the masked context is
 * over the low-water mark.
 *
 * **What is sent holds the budget**: `tokens` is the estimate of
 * `Layout.render` of the result, separators, labels and header included.
 * `sharedTokens` says how much of it repeats the previous assembly of the
 * session, and `breakpoint` which block is the last one unchanged until the
 * next rebuild (where a prompt cache can stop: `AiPrompt.toPrompt` marks it).
 *
 * - {@link layer} works with a `CompactionManager`: it may compact the session
 *   (unless its config says `compact: false`) and saves the session state it
 *   carried forward.
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
 *   Effect.provide(Assembler.layerReadOnly().pipe(Layer.provide(SqliteStore.layer({ filename: "precis.db", readonly: true }))))
 * )
 * ```
 * @since 0.1.0
 */
import { ActiveContext, CompactionManager, CompactionOptions } from "@precis/compaction"
import { OptionSchema, SessionState, TokenEstimator } from "@precis/core"
import { type DagStore, type StoreError, TurnStore } from "@precis/store"
import type * as EffectConfig from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as AssemblerConfig from "./AssemblerConfig.js"
import * as Condenser from "./Condenser.js"
import { InvalidContextOptionsError } from "./ContextError.js"
import * as DagStage from "./internal/dagStage.js"
import * as Frame from "./internal/frame.js"
import * as Rebuild from "./internal/rebuild.js"
import * as Layout from "./Layout.js"
import type { Assembled } from "./internal/assembled.js"

/**
 * What varies from one assembly to the next: the budget, in tokens (an
 * integer >= 1). Without one the active context is given whole: no stage
 * runs, no frame is kept. Everything else is the assembler's config
 * (`AssemblerConfig`), decoded when its layer is built.
 *
 * @since 0.1.0
 */
export interface AssembleOptions {
  readonly budget?: number | undefined
}

export type {
  /**
   * What `assemble` returns: the context as sent and what a prompt cache can
   * use of it (see `internal/assembled.ts` for each field).
   *
   * @since 0.1.0
   */
  Assembled
} from "./internal/assembled.js"

/**
 * @since 0.1.0
 */
export interface Service {
  /**
   * What an agent sends to its model for `sessionId`, within `options.budget`
   * (see the module notes). A budget that makes no sense (0, 1.5), or one
   * the config's `system` text does not fit in, fails with an
   * `InvalidContextOptionsError` before anything is read.
   */
  readonly assemble: (
    sessionId: string,
    options?: AssembleOptions
  ) => Effect.Effect<Assembled, StoreError.StoreError | InvalidContextOptionsError>
}

/**
 * The Assembler service tag.
 *
 * @since 0.1.0
 */
export class Assembler extends Context.Tag("@precis/context/Assembler")<Assembler, Service>() {}

const decodeBudget = OptionSchema.decode(
  Schema.Struct({ budget: CompactionOptions.Budget }),
  (problems) => new InvalidContextOptionsError({ problems })
)

const build = (manager: CompactionManager.Service | undefined, config: AssemblerConfig.Resolved) =>
  Effect.gen(function*() {
    const stores = yield* Effect.context<TurnStore.TurnStore | DagStore.DagStore>()
    const estimator = yield* TokenEstimator.TokenEstimator
    const frames = yield* Ref.make<ReadonlyMap<string, Frame.Entry>>(new Map())
    const systemTokens = config.system.length === 0 ? 0 : estimator.estimate(config.system)
    const { expand } = config
    const condenser: Omit<Condenser.Options, "budget"> = config
    const compacts = manager !== undefined && config.compact

    // Checks the budget before anything is read; returns the frame's settings.
    const check = (budget: number | undefined) =>
      Effect.gen(function*() {
        const frame: Frame.Settings = { ...config, budget: budget ?? 1 }
        if (budget === undefined) return frame
        yield* decodeBudget({ budget })
        if (systemTokens >= budget) {
          return yield* new InvalidContextOptionsError({
            problems: [{ option: "system", message: `takes ${systemTokens} tokens, and the budget is ${budget}` }]
          })
        }
        return frame
      })

    const loadState = manager === undefined ? ActiveContext.loadState : ActiveContext.refreshState

    const plan = (sessionId: string, settings: Frame.Settings, overflow: Frame.Frame | undefined): Rebuild.Plan => ({
      sessionId,
      overflow,
      settings,
      condenser,
      expand: expand === false ? false : expand === true ? {} : expand,
      compaction: manager === undefined || !compacts
        ? undefined
        : (trigger, lowWater) => DagStage.stage(manager, sessionId, trigger, { budget: settings.budget, lowWater }),
      loadState
    })

    // Without a budget: the active context whole, no frame kept.
    const whole = (sessionId: string, settings: Frame.Settings) =>
      Effect.gen(function*() {
        const active = yield* ActiveContext.load(sessionId)
        const state = settings.sessionState ? (yield* loadState(sessionId, active.turns)).state : SessionState.empty
        const report = { tokensBefore: active.tokens, tokensAfter: active.tokens, stages: [] }
        const header = settings.sessionState ? Layout.header(estimator, state) : ""
        const { summaries, turns } = active
        return Frame.toAssembled(estimator, sessionId, { ...settings, header, summaries, turns, report }, undefined, true)
      })

    const assemble: Service["assemble"] = (sessionId, { budget } = {}) =>
      Effect.gen(function*() {
        const settings = yield* check(budget)
        if (budget === undefined) return yield* whole(sessionId, settings)
        const entry = (yield* Ref.get(frames)).get(sessionId)
        // The config is the service's: a frame is kept for the budget it was built for.
        const kept = entry !== undefined && entry.frame.budget === budget ? entry.frame : undefined
        const appended = kept === undefined
          ? undefined
          : yield* Frame.append(sessionId, kept, settings, manager === undefined ? undefined : ActiveContext.saveState)
        const frame = appended ?? (yield* Rebuild.rebuild(plan(sessionId, settings, kept)))
        const assembled = Frame.toAssembled(estimator, sessionId, frame, entry?.text, appended === undefined)
        yield* Ref.update(frames, (all) =>
          Frame.remember(all, sessionId, { frame, text: Layout.render(frame) }, AssemblerConfig.defaults.maxFrames))
        yield* Effect.annotateCurrentSpan({ "precis.rebuilt": assembled.rebuilt, "precis.tokens": assembled.tokens })
        return assembled
      }).pipe(
        Effect.provide(stores),
        Effect.provideService(TokenEstimator.TokenEstimator, estimator),
        Effect.withSpan("Assembler.assemble", { attributes: { "precis.session_id": sessionId } })
      )

    return Assembler.of({ assemble })
  })

/**
 * Builds the assembler over the `CompactionManager` and the store's
 * `TurnStore` and `DagStore` in context, with `config` (decoded here, once:
 * an `InvalidContextOptionsError` when it makes no sense); the
 * `TokenEstimator` defaults to the core approximation. Its frames live as
 * long as the service.
 *
 * @since 0.1.0
 */
export const make = (config: AssemblerConfig.Config = {}): Effect.Effect<
  Service,
  InvalidContextOptionsError,
  CompactionManager.CompactionManager | TurnStore.TurnStore | DagStore.DagStore
> =>
  Effect.flatMap(
    AssemblerConfig.decode(config),
    (resolved) => Effect.flatMap(CompactionManager.CompactionManager, (manager) => build(manager, resolved))
  )

/**
 * Builds an assembler that never writes, over the store's `TurnStore` and
 * `DagStore` alone (a read-only store is enough): no compaction, whatever
 * `compact` says, and the session state carried forward, not saved.
 *
 * @since 0.1.0
 */
export const makeReadOnly = (config: AssemblerConfig.Config = {}): Effect.Effect<
  Service,
  InvalidContextOptionsError,
  TurnStore.TurnStore | DagStore.DagStore
> => Effect.flatMap(AssemblerConfig.decode(config), (resolved) => build(undefined, resolved))

/**
 * The assembler layer, over the `CompactionManager` and the store, with
 * `config` decoded when it is built. Without a config it cannot fail.
 *
 * @example
 * ```ts
 * import { CompactionManager } from "@precis/compaction"
 * import { Assembler } from "@precis/context"
 * import { Summarizer } from "@precis/core"
 * import { ExtractiveProvider } from "@precis/provider-extractive"
 * import { SqliteStore } from "@precis/store-sqlite"
 * import { Layer } from "effect"
 * const Live = Assembler.layer({ system: "You are a careful engineer." }).pipe(
 *   Layer.provideMerge(CompactionManager.layer()),
 *   Layer.provideMerge(SqliteStore.layer({ filename: "agent.db" })),
 *   Layer.provide(Summarizer.layer()),
 *   Layer.provide(ExtractiveProvider.layer())
 * )
 * ```
 * @since 0.1.0
 */
export function layer(): Layer.Layer<
  Assembler,
  never,
  CompactionManager.CompactionManager | TurnStore.TurnStore | DagStore.DagStore
>
export function layer(
  config: AssemblerConfig.Config
): Layer.Layer<
  Assembler,
  InvalidContextOptionsError,
  CompactionManager.CompactionManager | TurnStore.TurnStore | DagStore.DagStore
>
export function layer(config?: AssemblerConfig.Config) {
  return Layer.effect(Assembler, make(config))
}

/**
 * The assembler layer with its config read from `AssemblerConfig.config`
 * (the `PRECIS_ASSEMBLER_*` variables), or the given `Config`.
 *
 * @since 0.1.0
 */
export const layerConfig = (
  config: EffectConfig.Config<AssemblerConfig.Config> = AssemblerConfig.config
): Layer.Layer<
  Assembler,
  ConfigError.ConfigError | InvalidContextOptionsError,
  CompactionManager.CompactionManager | TurnStore.TurnStore | DagStore.DagStore
> => Layer.effect(Assembler, Effect.flatMap(config, make))

/**
 * The read-only assembler layer ({@link makeReadOnly}): what `precis context` uses.
 *
 * @since 0.1.0
 */
export function layerReadOnly(): Layer.Layer<Assembler, never, TurnStore.TurnStore | DagStore.DagStore>
export function layerReadOnly(
  config: AssemblerConfig.Config
): Layer.Layer<Assembler, InvalidContextOptionsError, TurnStore.TurnStore | DagStore.DagStore>
export function layerReadOnly(config?: AssemblerConfig.Config) {
  return Layer.effect(Assembler, makeReadOnly(config))
}
