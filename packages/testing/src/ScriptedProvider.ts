/**
 * A deterministic `Provider` for tests: each call takes the next scripted
 * outcome and records its request.
 *
 * @since 0.1.0
 */
import { Provider, ProviderError, SummaryTask } from "@precis/core"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"

/**
 * What one provider call does.
 *
 * @since 0.1.0
 */
export type Outcome = Data.TaggedEnum<{
  /** Replies `text` at once. */
  Reply: { readonly text: string; readonly usage?: Provider.Usage | undefined }
  /** Replies `text` after `delay` (on the Effect clock, so `TestClock` drives it). */
  Delayed: { readonly delay: Duration.Duration; readonly text: string }
  /** Fails with a typed provider error. */
  Fail: { readonly error: ProviderError.ProviderError }
  /** Dies with a defect, as a buggy provider that throws would. */
  Die: { readonly defect: unknown }
  /** Never answers (until interrupted). */
  Hang: {}
}>

const Outcome = Data.taggedEnum<Outcome>()

/**
 * @since 0.1.0
 */
export const reply = (text: string, usage?: Provider.Usage): Outcome => Outcome.Reply({ text, usage })

/**
 * @since 0.1.0
 */
export const delayed = (delay: Duration.DurationInput, text: string): Outcome =>
  Outcome.Delayed({ delay: Duration.decode(delay), text })

/**
 * @since 0.1.0
 */
export const fail = (error: ProviderError.ProviderError): Outcome => Outcome.Fail({ error })

/**
 * @since 0.1.0
 */
export const die = (defect: unknown = new Error("scripted defect")): Outcome => Outcome.Die({ defect })

/**
 * @since 0.1.0
 */
export const hang: Outcome = Outcome.Hang()

/**
 * A transport failure, handy as a generic `fail(...)` argument.
 *
 * @since 0.1.0
 */
export const transportError = (reason = "scripted failure"): ProviderError.ProviderError =>
  new ProviderError.TransportError({ provider: "scripted", reason })

/**
 * Runs one outcome as a provider call would.
 *
 * @since 0.1.0
 */
export const run = (outcome: Outcome): Effect.Effect<Provider.ChatResponse, ProviderError.ProviderError> =>
  Outcome.$match(outcome, {
    Reply: ({ text, usage }) => Effect.succeed(usage === undefined ? { text } : { text, usage }),
    Delayed: ({ delay, text }) => Effect.as(Effect.sleep(delay), { text }),
    Fail: ({ error }) => Effect.fail(error),
    Die: ({ defect }) => Effect.die(defect),
    Hang: () => Effect.never
  })

/**
 * @since 0.1.0
 */
export interface Service {
  /** Every request received so far, in order. */
  readonly requests: Effect.Effect<ReadonlyArray<Provider.ChatRequest>>
  /** How many scripted outcomes are left. */
  readonly remaining: Effect.Effect<number>
}

/**
 * The recorder of a scripted provider, to read its requests in assertions.
 *
 * @since 0.1.0
 */
export class ScriptedProvider extends Context.Tag("@precis/testing/ScriptedProvider")<ScriptedProvider, Service>() {}

/**
 * @since 0.1.0
 */
export interface Options {
  /** What a call does once the script is used up. Default: a `BadResponseError` saying so. */
  readonly whenExhausted?: Outcome | ((request: Provider.ChatRequest) => Outcome) | undefined
}

const exhausted: Outcome = fail(
  new ProviderError.BadResponseError({ provider: "scripted", detail: "the script has no more outcomes" })
)

/**
 * Builds a scripted provider and its recorder.
 *
 * @since 0.1.0
 */
export const make = (
  script: Iterable<Outcome>,
  options: Options = {}
): Effect.Effect<{ readonly provider: Provider.Service; readonly recorder: Service }> =>
  Effect.gen(function*() {
    const queue = yield* Ref.make<ReadonlyArray<Outcome>>(Array.from(script))
    const requests = yield* Ref.make<ReadonlyArray<Provider.ChatRequest>>([])
    const onExhausted = options.whenExhausted ?? exhausted
    const next = (request: Provider.ChatRequest) =>
      Ref.modify(queue, (q): [Outcome, ReadonlyArray<Outcome>] =>
        q.length > 0
          ? [q[0]!, q.slice(1)]
          : [typeof onExhausted === "function" ? onExhausted(request) : onExhausted, q]
      )
    const provider = Provider.Provider.of({
      name: "scripted",
      chat: (request) =>
        Ref.update(requests, (rs) => [...rs, request]).pipe(
          Effect.zipRight(next(request)),
          Effect.flatMap(run)
        )
    })
    return {
      provider,
      recorder: ScriptedProvider.of({ requests: Ref.get(requests), remaining: Effect.map(Ref.get(queue), (q) => q.length) })
    }
  })

/**
 * A layer providing both the scripted `Provider` and its `ScriptedProvider` recorder.
 *
 * @example
 * ```ts
 * import { ScriptedProvider } from "@precis/testing"
 * const ProviderTest = ScriptedProvider.layer([ScriptedProvider.reply("too long ..."), ScriptedProvider.hang])
 * ```
 * @since 0.1.0
 */
export const layer = (
  script: Iterable<Outcome>,
  options?: Options
): Layer.Layer<Provider.Provider | ScriptedProvider> =>
  Layer.effectContext(
    Effect.map(make(script, options), ({ provider, recorder }) =>
      Context.make(Provider.Provider, provider).pipe(Context.add(ScriptedProvider, recorder))
    )
  )

/**
 * A provider whose every call has the same outcome.
 *
 * @since 0.1.0
 */
export const always = (outcome: Outcome): Layer.Layer<Provider.Provider | ScriptedProvider> =>
  layer([], { whenExhausted: outcome })

/**
 * A provider that always replies `text`.
 *
 * @since 0.1.0
 */
export const alwaysReply = (text: string) => always(reply(text))

/**
 * A provider that always fails with `error` (a transport error by default).
 *
 * @since 0.1.0
 */
export const alwaysFail = (error: ProviderError.ProviderError = transportError()) => always(fail(error))

/**
 * A provider whose outcome is computed from each request.
 *
 * @since 0.1.0
 */
export const respond = (
  f: (request: Provider.ChatRequest) => Outcome
): Layer.Layer<Provider.Provider | ScriptedProvider> => layer([], { whenExhausted: f })

/**
 * A provider that loses facts on purpose: it replies with the lines of the
 * request's material (the `task`; the whole last message without one) for
 * which `drop` (given the line and its 0-based index) is false, so the
 * summary lacks whatever the dropped lines held. A deterministic stand-in for a model that
 * forgets details, to test and measure the fact check.
 *
 * @example
 * ```ts
 * import { ScriptedProvider } from "@precis/testing"
 * // forgets every line that names a path
 * const Forgetful = ScriptedProvider.dropping((line) => line.includes("/"))
 * ```
 * @since 0.1.0
 */
export const dropping = (drop: (line: string, index: number) => boolean): Layer.Layer<Provider.Provider | ScriptedProvider> =>
  respond((request) => {
    const material = request.task === undefined ? request.messages.at(-1)?.content ?? "" : SummaryTask.material(request.task)
    return reply(material.split("\n").filter((line, index) => !drop(line, index)).join("\n"))
  })
