import type * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Tokenizer from "@effect/ai/Tokenizer"
import * as AnthropicLanguageModel from "@effect/ai-anthropic/AnthropicLanguageModel"
import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
import { describe, expectTypeOf, it } from "@effect/vitest"
import type { Provider, TokenEstimator } from "@precis/core"
import type * as Layer from "effect/Layer"
import * as AiProvider from "../src/AiProvider.js"
import * as AiTokenEstimator from "../src/AiTokenEstimator.js"

// Checked by `tsc -b` (and `vitest --typecheck`).
describe("provider-ai types", () => {
  it("AiProvider.layer cannot fail and needs only a LanguageModel", () => {
    expectTypeOf(AiProvider.layer).returns.toEqualTypeOf<
      Layer.Layer<Provider.Provider, never, LanguageModel.LanguageModel>
    >()
  })

  it("the config helpers accept the provider packages' withConfigOverride", () => {
    expectTypeOf(AiProvider.openAiConfig(OpenAiLanguageModel.withConfigOverride)).toEqualTypeOf<AiProvider.Configure>()
    expectTypeOf(AiProvider.anthropicConfig(AnthropicLanguageModel.withConfigOverride)).toEqualTypeOf<
      AiProvider.Configure
    >()
  })

  it("AiTokenEstimator.layer fails only when the tokenizer is unusable", () => {
    expectTypeOf(AiTokenEstimator.layer).toEqualTypeOf<
      Layer.Layer<TokenEstimator.TokenEstimator, AiTokenEstimator.UnusableTokenizerError, Tokenizer.Tokenizer>
    >()
  })
})
