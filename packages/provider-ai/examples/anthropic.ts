/**
 * Summarize a conversation with Claude through `@effect/ai-anthropic`.
 *
 *   ANTHROPIC_API_KEY=sk-ant-... pnpm tsx --conditions=@precis/source packages/provider-ai/examples/anthropic.ts
 *
 * The precis request's temperature and token cap reach the model through
 * `AnthropicLanguageModel.withConfigOverride` (Messages API: `temperature`,
 * `max_tokens`).
 */
import { AnthropicClient, AnthropicLanguageModel } from "@effect/ai-anthropic"
import { FetchHttpClient } from "@effect/platform"
import { ConversationTurn, Summarizer } from "@precis/core"
import { AiProvider } from "@precis/provider-ai"
import { Config, Effect, Layer } from "effect"

const Anthropic = AnthropicClient.layerConfig({ apiKey: Config.redacted("ANTHROPIC_API_KEY") }).pipe(
  Layer.provide(FetchHttpClient.layer)
)

/** Summarizer ← Provider (Claude via @effect/ai); the default token estimate applies. */
export const SummarizerLive = Summarizer.layer({ timeout: "60 seconds" }).pipe(
  Layer.provide(
    AiProvider.layer({
      name: "anthropic",
      configure: AiProvider.anthropicConfig(AnthropicLanguageModel.withConfigOverride)
    })
  ),
  Layer.provide(AnthropicLanguageModel.model("claude-3-5-haiku-latest")),
  Layer.provide(Anthropic)
)

const turns = [
  ConversationTurn.make({ role: "user", content: "Deploy failed: ECONNREFUSED 10.0.0.5:5432 during migrations." }),
  ConversationTurn.make({ role: "assistant", content: "The database security group blocked the runner; I opened 5432." }),
  ConversationTurn.make({ role: "user", content: "Migrations ran. Remember to close the port after the release." })
]

const program = Effect.gen(function*() {
  const summarizer = yield* Summarizer.Summarizer
  const summary = yield* summarizer.summarizeTurns(turns, { targetTokens: 200 })
  yield* Effect.log(`[${summary.tier}] ${summary.text}`)
})

if (import.meta.url === `file://${process.argv[1]}`) {
  program.pipe(Effect.provide(SummarizerLive), Effect.runPromise)
}
