/**
 * Summarize a conversation with OpenAI through `@effect/ai-openai`.
 *
 *   OPENAI_API_KEY=sk-... pnpm tsx --conditions=@precis/source packages/provider-ai/examples/openai.ts
 *
 * The precis request's temperature and token cap reach the model through
 * `OpenAiLanguageModel.withConfigOverride` (Responses API: `temperature`,
 * `max_output_tokens`), and OpenAI's tokenizer replaces the default estimate.
 */
import { OpenAiClient, OpenAiLanguageModel, OpenAiTokenizer } from "@effect/ai-openai"
import { FetchHttpClient } from "@effect/platform"
import { ConversationTurn, Summarizer } from "@precis/core"
import { AiProvider, AiTokenEstimator } from "@precis/provider-ai"
import { Config, Effect, Layer } from "effect"

const model = "gpt-4o-mini"

const OpenAi = OpenAiClient.layerConfig({ apiKey: Config.redacted("OPENAI_API_KEY") }).pipe(
  Layer.provide(FetchHttpClient.layer)
)

const ProviderLive = AiProvider.layer({
  name: "openai",
  configure: AiProvider.openAiConfig(OpenAiLanguageModel.withConfigOverride)
}).pipe(
  Layer.provide(OpenAiLanguageModel.model(model)),
  Layer.provide(OpenAi)
)

const EstimatorLive = AiTokenEstimator.layer.pipe(Layer.provide(OpenAiTokenizer.layer({ model })))

/** Summarizer ← Provider (OpenAI via @effect/ai) + TokenEstimator (OpenAI's tokenizer). */
export const SummarizerLive = Summarizer.layer({ timeout: "60 seconds" }).pipe(
  Layer.provide(Layer.merge(ProviderLive, EstimatorLive))
)

const turns = [
  ConversationTurn.make({ role: "user", content: "The CI build fails on packages/core: cannot find module './Prompt.js'." }),
  ConversationTurn.make({ role: "assistant", content: "The file was renamed to prompt.ts; I restored the PascalCase name." }),
  ConversationTurn.make({ role: "user", content: "Great, CI is green now. Next: add a changelog entry." })
]

const program = Effect.gen(function*() {
  const summarizer = yield* Summarizer.Summarizer
  const summary = yield* summarizer.summarizeTurns(turns, { targetTokens: 200 })
  yield* Effect.log(`[${summary.tier}] ${summary.text}`)
})

if (import.meta.url === `file://${process.argv[1]}`) {
  program.pipe(Effect.provide(SummarizerLive), Effect.runPromise)
}
