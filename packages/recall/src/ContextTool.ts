/**
 * The `context` tool: a session's assembled context (the session-state
 * header, the summaries in time order, the turns since), fitted into a token
 * budget, as an agent of that session would send it. With the tools of
 * {@link PrecisToolkit} it makes {@link WithContext}, what `precis mcp` serves.
 * Nothing is written (see {@link assemble}).
 *
 * @example
 * ```ts
 * import { McpServer } from "@effect/ai"
 * import { ContextTool } from "@precis/recall"
 * // Served over MCP with the handlers of `ContextTool.layer`:
 * const tools = McpServer.toolkit(ContextTool.WithContext)
 * ```
 * @since 0.1.0
 */
import * as Tool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import { Assembler, AssemblerConfig, Layout } from "@precis/context"
import type { DagStore, SearchIndex, TurnStore } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { findSession } from "./internal/lookup.js"
import { RecallError } from "./internal/recallError.js"
import * as RecallTool from "./internal/recallTool.js"
import * as PrecisToolkit from "./PrecisToolkit.js"

/** The budget of `context` without `budget`. */
const DEFAULT_BUDGET = 16_000

/**
 * The result of `context`: the rendered context (`text`) and what it holds.
 *
 * @since 0.1.0
 */
export const Assembled = Schema.Struct({
  sessionId: Schema.String,
  budget: Schema.Int,
  tokens: Schema.Int,
  summaries: Schema.Int,
  turns: Schema.Int,
  text: Schema.String
})

/**
 * `context`: a session's assembled context within a budget.
 *
 * @since 0.1.0
 */
export const Context = RecallTool.make("context", {
  description: "A session's context as its agent would send it, within budget tokens: the session-state header " +
    "(task, working directory and branch, files touched, last test/lint/build results, open errors, plan; each " +
    "entry citing its turn id), the summaries in time order, then the turns not yet summarized. It ends with the " +
    "summary ids to open with expand.",
  parameters: {
    session: Schema.String.annotations({ description: "the session id" }),
    budget: Schema.optional(
      Schema.Int.pipe(Schema.between(1000, 200_000)).annotations({
        description: `the context's token budget (default ${DEFAULT_BUDGET})`
      })
    )
  },
  success: Assembled,
})

/**
 * The recall tools (`search`, `expand`, `describe`) and `context`.
 *
 * @since 0.1.0
 */
export const WithContext = Toolkit.merge(PrecisToolkit.PrecisToolkit, Toolkit.make(Context))

/**
 * The config of the read-only Assembler `context` assembles with
 * (`Assembler.layerReadOnly`: nothing compacted, the session state carried
 * forward, never saved): asked once, so filled to the one-shot mark, and the
 * recall note after the summaries, counted within the budget.
 *
 * @since 0.1.0
 */
export const assemblerConfig: AssemblerConfig.Config = { ...AssemblerConfig.oneShot, compact: false, recallNote: true }

/** The handler of `context` over the store and the manager in context. */
const contextLayer = Toolkit.make(Context).toLayer(Effect.gen(function*() {
  const context = yield* Effect.context<TurnStore.TurnStore | Assembler.Assembler>()
  const assembler = yield* Assembler.Assembler
  return {
    context: ({ budget, session }) =>
      Effect.gen(function*() {
        yield* findSession(session)
        const assembled = yield* assembler.assemble(session, { budget: budget ?? DEFAULT_BUDGET })
        return {
          sessionId: session,
          budget: budget ?? DEFAULT_BUDGET,
          tokens: assembled.tokens,
          summaries: assembled.summaries.length,
          turns: assembled.turns.length,
          text: Layout.render(assembled)
        }
      }).pipe(
        Effect.catchTags({
          StoreError: (e) => Effect.fail(new RecallError({ message: e.message })),
          InvalidContextOptionsError: (e) => Effect.fail(new RecallError({ message: e.message }))
        }),
        Effect.provide(context)
      )
  }
}))

/**
 * The handlers of {@link WithContext}: those of `PrecisToolkit.layer` and
 * `context`'s, over the store in context and the read-only Assembler over it
 * (`Assembler.layerReadOnly`): it only reads.
 *
 * @since 0.1.0
 */
export const layer: Layer.Layer<
  Tool.HandlersFor<typeof WithContext.tools>,
  never,
  TurnStore.TurnStore | DagStore.DagStore | SearchIndex.SearchIndex
> = Layer.merge(
  PrecisToolkit.layer,
  // A constant config, checked by the tests: it cannot fail to decode.
  contextLayer.pipe(Layer.provide(Layer.orDie(Assembler.layerReadOnly(assemblerConfig))))
)
