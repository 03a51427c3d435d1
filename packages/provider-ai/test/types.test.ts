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
  it("AiProvider.layer needs only a LanguageModel, and fails only on options that make no sense", () => {
    expectTypeOf(AiProvider.layer()).toEqualTypeOf<Layer.Layer<Provider.Provider, never, LanguageModel.LanguageModel>>()
    expectTypeOf(AiProvider.layer({ timeout: "30 seconds" })).toEqualTypeOf<
      Layer.Layer<Provider.Provider, AiProvider.InvalidAiProviderOptionsError, LanguageModel.LanguageModel>
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
