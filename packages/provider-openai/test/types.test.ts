import type * as HttpClient from "@effect/platform/HttpClient"
import { describe, expectTypeOf, it } from "@effect/vitest"
import type { Provider, ProviderError } from "@precis/core"
import type * as ConfigError from "effect/ConfigError"
import type * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as OpenAiProvider from "../src/OpenAiProvider.js"

// Checked by `tsc -b` (and `vitest --typecheck`): the layers fail only where they should.
describe("OpenAiProvider types", () => {
  it("layer fails only on options that make no sense, and needs only an HttpClient", () => {
    expectTypeOf(OpenAiProvider.layer).returns.toEqualTypeOf<
      Layer.Layer<Provider.Provider, OpenAiProvider.InvalidOpenAiOptionsError, HttpClient.HttpClient>
    >()
    expectTypeOf(OpenAiProvider.layerConfig).returns.toEqualTypeOf<
      Layer.Layer<
        Provider.Provider,
        ConfigError.ConfigError | OpenAiProvider.InvalidOpenAiOptionsError,
        HttpClient.HttpClient
      >
    >()
  })

  it("chat fails only with ProviderError", () => {
    expectTypeOf<ReturnType<Provider.Service["chat"]>>().toEqualTypeOf<
      Effect.Effect<Provider.ChatResponse, ProviderError.ProviderError>
    >()
    expectTypeOf(OpenAiProvider.make).returns.toEqualTypeOf<
      Effect.Effect<Provider.Service, OpenAiProvider.InvalidOpenAiOptionsError, HttpClient.HttpClient>
    >()
  })
})
