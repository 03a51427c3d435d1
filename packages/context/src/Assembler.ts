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
 * the budget, 0.8 by default: measured, it costs less than the budget itself
 * and leaves room for what the agent adds around the context), the context
 * is rebuilt once, down to
 * `lowWater` of the budget: the session compacted (all but its fresh tail),
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
import { OptionSchema, SessionState, TokenEstimator } from "@precis/core"
import { type DagStore, type StoreError, TurnStore } from "@precis/store"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Condenser from "./Condenser.js"
import * as Expansion from "./Expansion.js"
import * as DagStage from "./internal/dagStage.js"
import * as Frame from "./internal/frame.js"
import * as Rebuild from "./internal/rebuild.js"
import * as Layout from "./Layout.js"
import type { Assembled } from "./internal/assembled.js"

/**
 * The defaults of the assembly's own options (see {@link AssembleOptions}).
 *
 * @since 0.1.0
 */
export const defaults = {
  lowWater: 0.5,
  highWater: 0.8,
  turnShare: 0.05,
  statePlacement: "frame" as Layout.StatePlacement,
  /** The sessions whose frames an assembler keeps (the least recently assembled is forgotten past it). */
  maxFrames: 256
} as const

/**
 * The low-water mark of a context assembled once (`precis context`): no turn
 * follows it, so it fills what the expansion's default reserve leaves (0.85).
 *
 * @since 0.1.0
 */
export const oneShotLowWater = 1 - Expansion.defaults.reserve

/**
 * The marks of a context assembled once: filled to {@link oneShotLowWater},
 * the high mark the budget itself (the default high mark is below it), and a
 * session whose turns all fit the budget given whole, verbatim (`whole`). Spread
 * it into the options: `assemble(session, { budget, ...Assembler.oneShot })`.
 *
 * @since 0.1.0
 */
export const oneShot = { lowWater: oneShotLowWater, highWater: 1, whole: true } as const

/**
 * The assembly's own options as a Schema, their bounds and defaults:
 *
 * | option | bounds | default |
 * |---|---|---|
 * | `lowWater` | (0, 1], at most `highWater` | 0.5: a rebuild brings the context down to this share of the budget |
 * | `highWater` | (0, 1] | 0.8: past this share of the budget the context is rebuilt |
 * | `turnShare` | (0, 1] | 0.05: a turn that enters takes at most this share of the budget (cut in its middle past it) |
 * | `whole` | a boolean | false: a session whose turns all fit the budget (with the pinned system text, and the header when it fits too) is given whole, verbatim, no summary |
 * | `statePlacement` | `"frame"` or `"end"` | `"frame"`: the header after the summaries, refreshed at rebuilds; `"end"`: last, refreshed every assembly |
 * | `system` | a string | none: system text pinned first (counts against the budget) |
 * | `recallNote` | a boolean | false: the summaries followed by `Layout.recallNote` (counted too) |
 *
 * The defaults are measured: see the "what an agent pays" loops of
 * `pnpm bench loop` and BENCHMARKS.md.
 *
 * @since 0.1.0
 */
export const Settings = Schema.Struct({
  lowWater: Schema.optionalWith(OptionSchema.number({ min: 0, max: 1, exclusiveMin: true }), {
    default: () => defaults.lowWater
  }),
  highWater: Schema.optionalWith(OptionSchema.number({ min: 0, max: 1, exclusiveMin: true }), {
    default: () => defaults.highWater
  }),
  turnShare: Schema.optionalWith(OptionSchema.number({ min: 0, max: 1, exclusiveMin: true }), {
    default: () => defaults.turnShare
  }),
  whole: Schema.optionalWith(OptionSchema.boolean, { default: () => false }),
  statePlacement: Schema.optionalWith(OptionSchema.literal("frame", "end"), { default: () => defaults.statePlacement }),
  system: Schema.optionalWith(Schema.String, { default: () => "" }),
  recallNote: Schema.optionalWith(Schema.Boolean, { default: () => false })
}).pipe(
  Schema.filter((settings) =>
    settings.lowWater <= settings.highWater || {
      path: ["lowWater"],
      message: `must be a number <= highWater (got ${settings.lowWater} > ${settings.highWater})`
    }
  )
)

/**
 * The options of {@link Service.assemble}: the budget and the Condenser's
 * stage options, whether it may compact, the compaction's options, the
 * expansion's, the header's, and the frame's ({@link Settings}).
 *
 * @since 0.1.0
 */
export interface AssembleOptions extends Omit<Condenser.Options, "budget">, Schema.Schema.Encoded<typeof Settings> {
  /**
   * The budget, in tokens (an integer >= 1). Without one the active context
   * is given whole: no stage runs, no frame is kept.
   */
  readonly budget?: number | undefined
  /** Whether a rebuild may compact the session (write summaries). Default true; never when read-only. */
  readonly compact?: boolean | undefined
  /**
   * Whether (and how) a rebuilt context is filled from the summary DAG up to
   * the low-water mark (see `Expansion`): `false` turns it off, an object sets
   * its `turns`, `maskMinTokens` and `reserve` (the share of the low-water
   * mark left unfilled, default 0 here). Default on. Nothing stored changes.
   */
  readonly expand?: boolean | Omit<Expansion.Options, "budget"> | undefined
  /** Overrides of the manager's compaction options (the `budget` and `lowWater` are the rebuild's). */
  readonly compaction?: CompactionOptions.Options | undefined
  /** Whether the session-state header (`SessionState`) is in the context. Default true. */
  readonly sessionState?: boolean | undefined
  /**
   * The share of the budget the header may take, `0 <= stateShare < 1`
   * (default `Layout.defaultStateShare`, 0.15).
   */
  readonly stateShare?: number | undefined
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
   * (see the module notes). Options that make no sense (a budget of 0, a
   * stage, compaction or expansion option out of its bounds, a `stateShare`
   * of 1, a `system` text the budget cannot hold) fail with an
   * `InvalidOptionsError` before anything is read.
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

const decodeSettings = OptionSchema.decode(
  Settings,
  (problems) => new CompactionOptions.InvalidOptionsError({ problems })
)

// What makes a frame: options that differ rebuild it.
const keyOf = (options: AssembleOptions): string => {
  const { compaction, ...rest } = options
  const { onProgress: _, ...compactionOptions } = compaction ?? {}
  return JSON.stringify({ ...rest, compaction: compactionOptions })
}

const build = (manager: CompactionManager.Service | undefined) =>
  Effect.gen(function*() {
    const stores = yield* Effect.context<TurnStore.TurnStore | DagStore.DagStore>()
    const estimator = yield* TokenEstimator.TokenEstimator
    const frames = yield* Ref.make<ReadonlyMap<string, Frame.Entry>>(new Map())

    // Checks every option before anything is read; returns the frame's settings.
    const check = (options: AssembleOptions) =>
      Effect.gen(function*() {
        const { budget, compaction, expand, stateShare = Layout.defaultStateShare } = options
        if (!(Number.isFinite(stateShare) && stateShare >= 0 && stateShare < 1)) {
          return yield* invalid("stateShare", `must be a number >= 0 and < 1 (got ${stateShare})`)
        }
        const settings = yield* decodeSettings(options)
        const frame: Frame.Settings = {
          ...settings,
          budget: budget ?? 1,
          stateShare,
          sessionState: options.sessionState !== false
        }
        if (budget === undefined) return frame
        yield* Condenser.decodeOptions({ ...options, budget })
        if (typeof expand === "object") yield* Expansion.decodeOptions({ ...expand, budget })
        const overrides = { ...compaction, budget }
        yield* manager === undefined
          ? CompactionOptions.resolveOptions(overrides, budget)
          : manager.resolveOptions(overrides, budget)
        const systemTokens = settings.system.length === 0 ? 0 : estimator.estimate(settings.system)
        if (systemTokens >= budget) {
          return yield* invalid("system", `takes ${systemTokens} tokens, and the budget is ${budget}`)
        }
        return frame
      })

    const loadState = manager === undefined ? ActiveContext.loadState : ActiveContext.refreshState

    const plan = (
      sessionId: string,
      options: AssembleOptions,
      settings: Frame.Settings,
      overflow: Frame.Frame | undefined
    ): Rebuild.Plan => ({
      sessionId,
      key: keyOf(options),
      overflow,
      settings,
      condenser: options,
      expand: options.expand === false ? false : options.expand === true || options.expand === undefined ? {} : options.expand,
      compaction: manager === undefined || options.compact === false
        ? undefined
        : (trigger, lowWater) =>
          DagStage.stage(manager, sessionId, trigger, { ...options.compaction, budget: settings.budget, lowWater }),
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

    const assemble: Service["assemble"] = (sessionId, options = {}) =>
      Effect.gen(function*() {
        const settings = yield* check(options)
        if (options.budget === undefined) return yield* whole(sessionId, settings)
        const entry = (yield* Ref.get(frames)).get(sessionId)
        const kept = entry !== undefined && entry.frame.key === keyOf(options) ? entry.frame : undefined
        const appended = kept === undefined
          ? undefined
          : yield* Frame.append(sessionId, kept, settings, manager === undefined ? undefined : ActiveContext.saveState)
        const frame = appended ?? (yield* Rebuild.rebuild(plan(sessionId, options, settings, kept)))
        const assembled = Frame.toAssembled(estimator, sessionId, frame, entry?.text, appended === undefined)
        yield* Ref.update(frames, (all) => Frame.remember(all, sessionId, { frame, text: Layout.render(frame) }, defaults.maxFrames))
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
 * `TurnStore` and `DagStore` in context; the `TokenEstimator` defaults to the
 * core approximation. Its frames live as long as the service.
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
