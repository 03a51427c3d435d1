/**
 * A deterministic `@effect/ai` `LanguageModel` for tests: each request (a
 * `generateText`, `generateObject` or `streamText`) takes the next scripted
 * turn (text, tool calls, a typed `AiError`, a defect, a delay on the Effect
 * clock, a model that never answers) and is recorded, so an agent's own tests
 * run offline with no model. Tool calls go through `@effect/ai` as a real
 * model's would: with a toolkit, `LanguageModel` runs their handlers and adds
 * the results to the response.
 *
 * @example
 * ```ts
 * import { LanguageModel } from "@effect/ai"
 * import { ScriptedLanguageModel } from "@precis/testing"
 * import { Effect } from "effect"
 * const reply = LanguageModel.generateText({ prompt: "hi" }).pipe(
 *   Effect.provide(ScriptedLanguageModel.layer([ScriptedLanguageModel.text("hello")]))
 * ) // response.text === "hello"
 * ```
 * @since 0.1.0
 */
import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import { TokenEstimator } from "@precis/core"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"

/**
 * One tool call a scripted turn makes: the tool's `name`, its `params` (as the
 * tool's parameter Schema encodes them) and, optionally, its call `id` (by
 * default `call_N`, numbered from 1 over the model's whole life).
 *
 * @since 0.1.0
 */
export interface ToolCall {
  readonly name: string
  readonly params: unknown
  readonly id?: string | undefined
}

/**
 * What one request does.
 *
 * @since 0.1.0
 */
export type Turn = Data.TaggedEnum<{
  /** Answers with `text` (possibly empty) followed by `calls`. */
  Reply: { readonly text: string; readonly calls: ReadonlyArray<ToolCall> }
  /** Plays `turn` after `delay` on the Effect clock (so `TestClock` drives it). */
  Delayed: { readonly delay: Duration.Duration; readonly turn: Turn }
  /** Fails with a typed `AiError`. */
  Fail: { readonly error: AiError.AiError }
  /** Dies with a defect, as a buggy provider that throws would. */
  Die: { readonly defect: unknown }
  /** Never answers (until interrupted). */
  Hang: {}
}>

const Turn = Data.taggedEnum<Turn>()

/**
 * A reply of `text` alone.
 *
 * @since 0.1.0
 */
export const text = (text: string): Turn => Turn.Reply({ text, calls: [] })

/**
 * A reply that calls tools (in order), after an optional `text`.
 *
 * @example
 * ```ts
 * import { ScriptedLanguageModel } from "@precis/testing"
 * ScriptedLanguageModel.toolCalls([{ name: "read_file", params: { path: "src/a.ts" } }], "Reading it.")
 * ```
 * @since 0.1.0
 */
export const toolCalls = (calls: ReadonlyArray<ToolCall>, text = ""): Turn => Turn.Reply({ text, calls })

/**
 * `turn` played after `delay` on the Effect clock.
 *
 * @since 0.1.0
 */
export const delayed = (delay: Duration.DurationInput, turn: Turn): Turn => Turn.Delayed({ delay: Duration.decode(delay), turn })

/**
 * A typed failure of the request.
 *
 * @since 0.1.0
 */
export const fail = (error: AiError.AiError): Turn => Turn.Fail({ error })

/**
 * A defect.
 *
 * @since 0.1.0
 */
export const die = (defect: unknown = new Error("scripted defect")): Turn => Turn.Die({ defect })

/**
 * A request that never answers.
 *
 * @since 0.1.0
 */
export const hang: Turn = Turn.Hang()

/**
 * A generic typed failure (`AiError.UnknownError`), handy as a `fail(...)` argument.
 *
 * @since 0.1.0
 */
export const unknownError = (description = "scripted failure"): AiError.AiError =>
  new AiError.UnknownError({ module: "ScriptedLanguageModel", method: "generateText", description })

/**
 * A request as the model received it: the prompt, the names of the tools
 * offered, the tool choice and the response format's type.
 *
 * @since 0.1.0
 */
export interface Request {
  readonly prompt: Prompt.Prompt
  readonly tools: ReadonlyArray<string>
  readonly toolChoice: LanguageModel.ProviderOptions["toolChoice"]
  readonly responseFormat: "text" | "json"
}

/**
 * The recorder of a scripted model, to read its requests in assertions.
 *
 * @since 0.1.0
 */
export interface Service {
  /** Every request received so far, in order. */
  readonly requests: Effect.Effect<ReadonlyArray<Request>>
  /** How many scripted turns are left. */
  readonly remaining: Effect.Effect<number>
}

/**
 * The recorder's tag.
 *
 * @since 0.1.0
 */
export class ScriptedLanguageModel
  extends Context.Tag("@precis/testing/ScriptedLanguageModel")<ScriptedLanguageModel, Service>()
{}

/**
 * Options of {@link make}.
 *
 * @since 0.1.0
 */
export interface Options {
  /** What a request does once the script is used up: a turn, or one computed from the request. Default: a failure saying so. */
  readonly whenExhausted?: Turn | ((request: Request) => Turn) | undefined
}

const exhausted: Turn = fail(
  new AiError.UnknownError({
    module: "ScriptedLanguageModel",
    method: "generateText",
    description: "the script has no more turns"
  })
)

// The text of a prompt, for the usage's input tokens.
const promptText = (prompt: Prompt.Prompt): string =>
  prompt.content.map((message) =>
    typeof message.content === "string"
      ? message.content
      : message.content.map((part) => ("text" in part ? part.text : JSON.stringify(part))).join("\n")
  ).join("\n")

/**
 * Builds a scripted `LanguageModel` and its recorder. The usage of each reply
 * counts the prompt's text and the reply with the `TokenEstimator` in context
 * (the core approximation by default).
 *
 * @since 0.1.0
 */
export const make = (
  script: Iterable<Turn>,
  options: Options = {}
): Effect.Effect<{ readonly model: LanguageModel.Service; readonly recorder: Service }> =>
  Effect.gen(function*() {
    const estimator = yield* TokenEstimator.TokenEstimator
    const queue = yield* Ref.make<ReadonlyArray<Turn>>(Array.from(script))
    const requests = yield* Ref.make<ReadonlyArray<Request>>([])
    const callCount = yield* Ref.make(0)
    const onExhausted = options.whenExhausted ?? exhausted

    const next = (request: Request) =>
      Ref.update(requests, (all) => [...all, request]).pipe(
        Effect.zipRight(Ref.modify(queue, (q): [Turn, ReadonlyArray<Turn>] =>
          q.length > 0
            ? [q[0]!, q.slice(1)]
            : [typeof onExhausted === "function" ? onExhausted(request) : onExhausted, q]))
      )

    const record = (provider: LanguageModel.ProviderOptions): Request => ({
      prompt: provider.prompt,
      tools: provider.tools.map((tool) => tool.name),
      toolChoice: provider.toolChoice,
      responseFormat: provider.responseFormat.type
    })

    // A reply's parts: text, tool calls with their ids, and the finish part with the usage.
    const parts = (prompt: Prompt.Prompt, reply: Extract<Turn, { _tag: "Reply" }>) =>
      Effect.gen(function*() {
        const calls: Array<Response.ToolCallPartEncoded> = []
        for (const call of reply.calls) {
          const n = yield* Ref.updateAndGet(callCount, (k) => k + 1)
          calls.push({ type: "tool-call", id: call.id ?? `call_${n}`, name: call.name, params: call.params })
        }
        const inputTokens = estimator.estimate(promptText(prompt))
        const outputTokens = reply.text.length === 0 ? 0 : estimator.estimate(reply.text)
        const finish: Response.FinishPartEncoded = {
          type: "finish",
          reason: calls.length > 0 ? "tool-calls" : "stop",
          usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens }
        }
        return { text: reply.text, calls, finish }
      })

    const play = (provider: LanguageModel.ProviderOptions, turn: Turn): Effect.Effect<
      { text: string; calls: Array<Response.ToolCallPartEncoded>; finish: Response.FinishPartEncoded },
      AiError.AiError
    > =>
      Turn.$match(turn, {
        Reply: (reply) => parts(provider.prompt, reply),
        Delayed: ({ delay, turn }) => Effect.zipRight(Effect.sleep(delay), play(provider, turn)),
        Fail: ({ error }) => Effect.fail(error),
        Die: ({ defect }) => Effect.die(defect),
        Hang: () => Effect.never
      })

    const answer = (provider: LanguageModel.ProviderOptions) =>
      Effect.flatMap(next(record(provider)), (turn) => play(provider, turn))

    const model = yield* LanguageModel.make({
      generateText: (provider) =>
        Effect.map(answer(provider), ({ calls, finish, text }): Array<Response.PartEncoded> => [
          ...(text.length > 0 ? [{ type: "text" as const, text }] : []),
          ...calls,
          finish
        ]),
      streamText: (provider) =>
        Stream.fromIterableEffect(Effect.map(answer(provider), ({ calls, finish, text }): Array<Response.StreamPartEncoded> => [
          ...(text.length > 0
            ? [
              { type: "text-start" as const, id: "text_0" },
              { type: "text-delta" as const, id: "text_0", delta: text },
              { type: "text-end" as const, id: "text_0" }
            ]
            : []),
          ...calls,
          finish
        ]))
    })
    return {
      model,
      recorder: ScriptedLanguageModel.of({
        requests: Ref.get(requests),
        remaining: Effect.map(Ref.get(queue), (q) => q.length)
      })
    }
  })

/**
 * A layer providing the scripted `LanguageModel` and its
 * {@link ScriptedLanguageModel} recorder.
 *
 * @since 0.1.0
 */
export const layer = (
  script: Iterable<Turn>,
  options?: Options
): Layer.Layer<LanguageModel.LanguageModel | ScriptedLanguageModel> =>
  Layer.effectContext(
    Effect.map(make(script, options), ({ model, recorder }) =>
      Context.make(LanguageModel.LanguageModel, model).pipe(Context.add(ScriptedLanguageModel, recorder))
    )
  )

/**
 * A model whose turn is computed from each request (an agent's policy, say).
 *
 * @example
 * ```ts
 * import { ScriptedLanguageModel } from "@precis/testing"
 * // calls a tool when offered one, then answers
 * const Model = ScriptedLanguageModel.respond((request) =>
 *   request.tools.includes("run_tests") && request.prompt.content.at(-1)?.role === "user"
 *     ? ScriptedLanguageModel.toolCalls([{ name: "run_tests", params: {} }])
 *     : ScriptedLanguageModel.text("done")
 * )
 * ```
 * @since 0.1.0
 */
export const respond = (
  f: (request: Request) => Turn
): Layer.Layer<LanguageModel.LanguageModel | ScriptedLanguageModel> => layer([], { whenExhausted: f })
