/**
 * The overhead baseline: the Summarizer's three tiers written with plain
 * async/await — the same prompt building, estimates, acceptance rules,
 * fallback and fact check, with a `Promise.race` timeout — and none of Effect's machinery
 * (fibers, spans, metrics, logs, Ref).
 */
import {
  type ConversationTurn,
  FactCheck,
  Prompt,
  type Provider,
  ProviderError,
  Summarizer,
  Summary,
  SummaryTask,
  TokenEstimator
} from "@precis/core"

/** A provider with a promise-returning `chat`. */
export interface PlainProvider {
  readonly chat: (request: Provider.ChatRequest) => Promise<Provider.ChatResponse>
}

/** The plain summarizer: `summarizeTurns` and the tier counts. */
export interface PlainSummarizer {
  readonly summarizeTurns: (
    turns: ReadonlyArray<ConversationTurn.ConversationTurn>,
    options?: { readonly priorSummary?: string; readonly targetTokens?: number }
  ) => Promise<Summary.Summary>
  readonly tierCounts: () => Summary.TierCounts
}

class TierTimeout extends Error {}

/** `promise`, or a rejection after `ms` milliseconds, whichever comes first; the timer is cleared either way. */
export const withTimeout = <A>(promise: Promise<A>, ms: number): Promise<A> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TierTimeout("timeout")), ms)
    })
  ]).finally(() => clearTimeout(timer))
}

/** The three tiers over `provider`, each LLM tier under a `timeoutMs` deadline (default 120 s). */
export const make = (
  provider: PlainProvider,
  options: { readonly timeoutMs?: number } = {}
): PlainSummarizer => {
  const estimator = TokenEstimator.approximate
  const timeoutMs = options.timeoutMs ?? 120_000
  let counts: Summary.TierCounts = Summary.emptyTierCounts

  type Tier = "normal" | "aggressive"
  const callModel = async (tier: Tier, request: Provider.ChatRequest): Promise<string | Summary.Escalation> => {
    try {
      const response = await withTimeout(Promise.resolve().then(() => provider.chat(request)), timeoutMs)
      return response.text.trim()
    } catch (error) {
      if (error instanceof TierTimeout) {
        return { tier, reason: "Timeout", message: `no reply within ${timeoutMs} millis`, permanent: false }
      }
      const failure = error as ProviderError.ProviderError
      return typeof failure === "object" && failure !== null && "_tag" in failure
        ? { tier, reason: failure._tag, message: failure.message, permanent: ProviderError.isPermanent(failure) }
        : { tier, reason: "Defect", message: `defect: ${String(error)}`, permanent: false }
    }
  }
  const rejected = (tier: Tier, reason: string, message: string): Summary.Escalation => ({
    tier,
    reason,
    message,
    permanent: false
  })

  return {
    summarizeTurns: async (turns, opts = {}) => {
      const items = SummaryTask.turnsOf(turns)
      const targetTokens = opts.targetTokens === undefined || !Number.isFinite(opts.targetTokens)
        ? Summarizer.defaults.leafTargetTokens
        : Math.max(1, Math.floor(opts.targetTokens))
      const task: SummaryTask.TurnsTask = opts.priorSummary === undefined
        ? { kind: "leaf", turns: items, targetTokens }
        : { kind: "leaf", turns: items, targetTokens, priorSummary: opts.priorSummary }
      const material = SummaryTask.material(task)
      const prompt = Prompt.forTask(task)
      const inputTokens = estimator.estimate(material)
      const escalations: Array<Summary.Escalation> = []
      const done = (tier: Summary.Tier, text: string) => {
        counts = Summary.incrementTier(counts, tier)
        return new Summary.Summary({
          text,
          tier,
          inputTokens,
          outputTokens: estimator.estimate(text),
          escalations,
          dropped: FactCheck.checkTask(task, text).dropped
        }, true)
      }
      const normal = await callModel("normal", {
        messages: [],
        temperature: Summarizer.defaults.normalTemperature,
        maxTokens: Summarizer.defaults.maxTokens,
        task
      })
      if (typeof normal !== "string") escalations.push(normal)
      else if (normal.length === 0) escalations.push(rejected("normal", "BlankReply", "blank reply"))
      else if (estimator.estimate(normal) >= inputTokens) {
        escalations.push(rejected("normal", "NotShorter", "reply not shorter than its input"))
      } else return done("normal", normal)
      const aggressive = await callModel("aggressive", {
        messages: [],
        temperature: Summarizer.defaults.aggressiveTemperature,
        maxTokens: Summarizer.defaults.maxTokens,
        task: { ...task, kind: "aggressive" }
      })
      const maxTokens = Summarizer.defaults.maxTokens
      if (typeof aggressive !== "string") escalations.push(aggressive)
      else if (aggressive.length === 0) escalations.push(rejected("aggressive", "BlankReply", "blank reply"))
      else if (estimator.estimate(aggressive) > maxTokens) {
        escalations.push(
          rejected("aggressive", "OverMaxTokens", `reply longer than the ${maxTokens} tokens asked for`)
        )
      } else return done("aggressive", aggressive)
      return done(
        "fallback",
        Summarizer.fallbackText(estimator, material.length > 0 ? material : prompt, targetTokens)
      )
    },
    tierCounts: () => counts
  }
}
