/**
 * The three tiers of the Summarizer, each an Effect: `normal` and `aggressive`
 * call the model and fail with why they give up; `fallback` truncates and
 * cannot fail. {@link escalate} chains them with `orElse`, recording each
 * tier's reason as it gives up.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as LogLevel from "effect/LogLevel"
import { withoutNul } from "../ConversationTurn.js"
import * as FactCheck from "../FactCheck.js"
import * as Echo from "./echo.js"
import * as Prompt from "../Prompt.js"
import type { ChatRequest, Service as ProviderService } from "../Provider.js"
import { isPermanent, type ProviderError } from "../ProviderError.js"
import { type Escalation, Summary, type Tier } from "../Summary.js"
import * as SummaryTask from "../SummaryTask.js"
import type { Service as EstimatorService } from "../TokenEstimator.js"

// A reply the tier will not keep, or a provider that threw; it only steers
// escalation and never leaves the Summarizer (but as an `Escalation`).
class Rejected {
  readonly _tag = "Rejected"
  constructor(
    readonly reason: "BlankReply" | "NotShorter" | "EchoedPrompt" | "OverMaxTokens" | "Defect",
    readonly message: string
  ) {}
}

type TierError = ProviderError | Rejected | Cause.TimeoutException

// Provider errors carry readable, secret-free messages by contract.
const describe = (error: TierError): string => error.message

const escalation = (tier: "normal" | "aggressive", error: TierError, timeout: Duration.Duration): Escalation =>
  error instanceof Rejected
    ? { tier, reason: error.reason, message: error.message, permanent: false }
    : Cause.isTimeoutException(error)
    ? { tier, reason: "Timeout", message: `no reply within ${Duration.format(timeout)}`, permanent: false }
    : { tier, reason: error._tag, message: error.message, permanent: isPermanent(error) }

/** What the tiers need: the model, the estimator and the checked options. */
export interface Env {
  readonly provider: ProviderService
  readonly estimator: EstimatorService
  readonly timeout: Duration.Duration
  readonly maxTokens: number
  readonly normalTemperature: number
  readonly aggressiveTemperature: number
}

/**
 * The fallback text: `material` truncated to `targetTokens` (at least 1),
 * trailing white space removed, then a newline and the truncation marker.
 */
export const fallbackText = (estimator: EstimatorService, material: string, targetTokens: number): string =>
  `${estimator.truncate(withoutNul(material), Math.max(1, targetTokens)).trimEnd()}\n${Prompt.truncationMarker}`

/** The debug log of one call (and the timing it reports), around `call`. */
const logged = (env: Env, tier: Tier, call: Effect.Effect<{ readonly text: string }, TierError>) =>
  call.pipe(
    Effect.either,
    Effect.timed,
    Effect.flatMap(([elapsed, result]) =>
      Effect.zipRight(
        Effect.logDebug(result._tag === "Right" ? "precis: LLM call replied" : "precis: LLM call failed").pipe(
          Effect.annotateLogs(
            result._tag === "Right"
              ? { tier, provider: env.provider.name, elapsedMs: Duration.toMillis(elapsed) }
              : { tier, provider: env.provider.name, elapsedMs: Duration.toMillis(elapsed), error: describe(result.left) }
          )
        ),
        result
      )
    )
  )

/**
 * One LLM call under the tier deadline, its reply trimmed. Defects (a provider
 * that throws) become failures here, because `orElse` would let them through;
 * interruption from outside is not a defect and still interrupts. The debug
 * log is built only when debug logs are enabled: annotating a log costs more
 * than the rest of the bookkeeping.
 */
const callModel = (env: Env, tier: Tier, request: ChatRequest): Effect.Effect<string, TierError> => {
  const call = Effect.suspend(() => env.provider.chat(request)).pipe(
    Effect.timeout(env.timeout),
    Effect.catchAllDefect((defect) => Effect.fail(new Rejected("Defect", `defect: ${String(defect)}`)))
  )
  return FiberRef.get(FiberRef.currentMinimumLogLevel).pipe(
    Effect.flatMap((minimum) => LogLevel.lessThan(LogLevel.Debug, minimum) ? call : logged(env, tier, call)),
    // NUL is no text any store keeps (PostgreSQL refuses it): it never reaches a summary.
    Effect.map((response) => withoutNul(response.text).trim())
  )
}

/** A task of the Summarizer: a leaf or a condensation. */
export type Task =
  | SummaryTask.TurnsTask & { readonly kind: "leaf" }
  | SummaryTask.SummariesTask & { readonly kind: "condense" }

/**
 * The escalation: normal, else aggressive, else fallback. No tier keeps a
 * reply that is not shorter than its input or repeats the prompt's
 * instructions; the aggressive tier also refuses one over `maxTokens`. Each
 * tier that gives up records why (in order) before `orElse` moves on, and
 * whichever tier wrote the text, the summary carries its fact check.
 */
export const escalate = (env: Env, task: Task): Effect.Effect<Summary> => {
  const { estimator, maxTokens, timeout } = env
  // Rendered once: the estimate, the fallback and a provider that sends text share it.
  const material = SummaryTask.material(task)
  const inputTokens = estimator.estimate(material)
  const data = { material, priorSummary: SummaryTask.priorSummary(task) }
  const escalations: Array<Escalation> = []
  const gaveUp = (tier: "normal" | "aggressive") => (error: TierError) =>
    Effect.sync(() => void escalations.push(escalation(tier, error, timeout)))
  // `outputTokens` when the tier already measured the text.
  const done = (tier: Tier, text: string, outputTokens = estimator.estimate(text)): Summary =>
    new Summary({
      text,
      tier,
      inputTokens,
      outputTokens,
      escalations: [...escalations],
      dropped: FactCheck.checkTask(task, text).dropped
    }, true)
  // What no tier keeps: a reply not shorter than its input (compaction would make the context larger), or
  // one that repeats the prompt's instructions (the model echoed its prompt: no summary, however short).
  // The prompt is the provider's to render; it is rendered here again only to check a reply against it.
  const summaryOf = (prompt: SummaryTask.SummaryTask) => (text: string, outputTokens: number): Rejected | undefined =>
    outputTokens >= inputTokens
      ? new Rejected("NotShorter", "reply not shorter than its input")
      : Echo.repeatsInstructions(text, () => Prompt.forTask(prompt), data)
      ? new Rejected("EchoedPrompt", "reply repeats the prompt's instructions")
      : undefined
  // A tier keeps a non-blank reply that `fits` its own rule and is a summary (else fails with why not).
  const keep = (
    tier: "normal" | "aggressive",
    prompt: SummaryTask.SummaryTask,
    fits: (outputTokens: number) => Rejected | undefined
  ) =>
  (text: string) => {
    if (text.length === 0) return Effect.fail(new Rejected("BlankReply", "blank reply"))
    const outputTokens = estimator.estimate(text)
    const rejected = fits(outputTokens) ?? summaryOf(prompt)(text, outputTokens)
    return rejected === undefined ? Effect.succeed(done(tier, text, outputTokens)) : Effect.fail(rejected)
  }

  const normal = callModel(env, "normal", {
    messages: [],
    temperature: env.normalTemperature,
    maxTokens,
    task
  }).pipe(
    Effect.flatMap(keep("normal", task, () => undefined)),
    Effect.tapError(gaveUp("normal"))
  )

  // Tiers 2 and 3 are built only when the tier before them gave up.
  const aggressive = () => {
    const aggressiveTask: SummaryTask.SummaryTask = { ...task, kind: "aggressive" }
    return callModel(env, "aggressive", {
      messages: [],
      temperature: env.aggressiveTemperature,
      maxTokens,
      task: aggressiveTask
    }).pipe(
      Effect.flatMap(keep("aggressive", aggressiveTask, (outputTokens) =>
        outputTokens > maxTokens
          ? new Rejected("OverMaxTokens", `reply longer than the ${maxTokens} tokens asked for`)
          : undefined)),
      Effect.tapError(gaveUp("aggressive"))
    )
  }

  const fallback = (): Effect.Effect<Summary> =>
    Effect.sync(() => done("fallback", fallbackText(estimator, material, task.targetTokens)))

  // Nothing to summarize: no model is asked, and the prompt's own words never pose as a summary.
  if (material.trim().length === 0) return Effect.sync(() => done("fallback", Prompt.nothingToSummarize))
  return normal.pipe(Effect.orElse(aggressive), Effect.orElse(fallback))
}
