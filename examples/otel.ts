/**
 * Exporting the spans and metrics precis emits with `@effect/opentelemetry`:
 * every summary is a `Summarizer.summarizeTurns` span carrying `precis.tier`,
 * `precis.input_tokens` and the like, inside the spans of the compaction passes.
 *
 * - {@link layer} is the OpenTelemetry SDK (`NodeSdk`) with the span processor
 *   you give it: a `BatchSpanProcessor` over your exporter in production, a
 *   `SimpleSpanProcessor` over an `InMemorySpanExporter` in tests.
 * - With `OTEL_EXPORTER_OTLP_ENDPOINT` set, {@link main} sends everything over
 *   OTLP/HTTP with `@effect/opentelemetry`'s own exporter instead (no SDK
 *   needed), as `precis` itself does; `OTEL_SERVICE_NAME` names the service.
 *   Without it, the spans are printed on the console.
 *
 * Run with `pnpm tsx --conditions=@precis/source examples/otel.ts`
 * (or `OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 pnpm tsx ...`).
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import * as Otlp from "@effect/opentelemetry/Otlp"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { ConsoleSpanExporter, SimpleSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Summarizer } from "@precis/core"
import { ExtractiveProvider } from "@precis/provider-extractive"
import { Fixtures } from "@precis/testing"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { pathToFileURL } from "node:url"

/** The OpenTelemetry SDK as the tracer of the effects it is provided to, exporting through `processor`. */
export const layer = (processor: SpanProcessor) =>
  NodeSdk.layer(() => ({ resource: { serviceName: "precis-example" }, spanProcessor: processor }))

/** OTLP/HTTP export when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, else the SDK printing spans on the console. */
export const fromEnvironment = Layer.unwrapEffect(
  Effect.map(Config.option(Config.nonEmptyString("OTEL_EXPORTER_OTLP_ENDPOINT")), Option.match({
    onNone: () => layer(new SimpleSpanProcessor(new ConsoleSpanExporter())),
    onSome: (baseUrl) =>
      Otlp.layerJson({ baseUrl, resource: { serviceName: "precis-example" } }).pipe(Layer.provide(FetchHttpClient.layer))
  }))
)

/** Summarizes a short conversation: one traced `Summarizer.summarizeTurns`. */
export const main = Effect.gen(function*() {
  const summarizer = yield* Summarizer.Summarizer
  const summary = yield* summarizer.summarizeTurns(Fixtures.conversation(12))
  yield* Console.log(`summary (${summary.tier}): ${summary.text.length} chars`)
}).pipe(Effect.provide(Summarizer.layer().pipe(Layer.provide(ExtractiveProvider.layer()))))

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  Effect.runPromise(main.pipe(Effect.provide(fromEnvironment)))
}
