/**
 * OpenTelemetry export of the spans and metrics precis emits (the Summarizer's
 * `Summarizer.summarizeTurns` with `precis.tier`, the compaction passes, the
 * store's searches, ...), switched on by the standard variables: with
 * `OTEL_EXPORTER_OTLP_ENDPOINT` set (and `OTEL_SDK_DISABLED` not `true`),
 * traces go to `ENDPOINT/v1/traces` and metrics to `ENDPOINT/v1/metrics` over
 * OTLP/HTTP (JSON), through `@effect/opentelemetry`'s own exporters (no
 * OpenTelemetry SDK needed). `OTEL_EXPORTER_OTLP_HEADERS` (`k=v,k2=v2`),
 * `OTEL_SERVICE_NAME` (default `precis`) and `OTEL_RESOURCE_ATTRIBUTES` are
 * honoured. Without the endpoint, nothing is exported and nothing is loaded.
 *
 * @internal
 */
import * as OtlpMetrics from "@effect/opentelemetry/OtlpMetrics"
import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/** `k=v,k2=v2` (values percent-encoded, as the OpenTelemetry spec has it) as a record. */
export const parsePairs = (text: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const pair of text.split(",")) {
    const at = pair.indexOf("=")
    if (at <= 0) continue
    const key = pair.slice(0, at).trim()
    const value = pair.slice(at + 1).trim()
    try {
      out[key] = decodeURIComponent(value)
    } catch {
      out[key] = value
    }
  }
  return out
}

/** The export settings read from the `OTEL_*` variables; `None` when export is off. */
export const config = Config.all({
  endpoint: Config.option(Config.nonEmptyString("OTEL_EXPORTER_OTLP_ENDPOINT")),
  disabled: Config.boolean("OTEL_SDK_DISABLED").pipe(Config.withDefault(false)),
  headers: Config.string("OTEL_EXPORTER_OTLP_HEADERS").pipe(Config.withDefault(""), Config.map(parsePairs)),
  serviceName: Config.nonEmptyString("OTEL_SERVICE_NAME").pipe(Config.withDefault("precis")),
  attributes: Config.string("OTEL_RESOURCE_ATTRIBUTES").pipe(Config.withDefault(""), Config.map(parsePairs))
}).pipe(
  Config.map((settings) =>
    Option.filterMap(settings.endpoint, (endpoint) =>
      settings.disabled ? Option.none() : Option.some({ ...settings, endpoint: endpoint.replace(/\/+$/, "") }))
  )
)

/**
 * The OTLP exporters when the `OTEL_*` variables ask for them, else nothing.
 * Spans still buffered are sent when the layer's scope closes.
 */
export const layer: Layer.Layer<never, ConfigError.ConfigError> = Layer.unwrapEffect(
  Effect.map(config, Option.match({
    onNone: () => Layer.empty,
    onSome: (settings) => {
      const resource = { serviceName: settings.serviceName, attributes: settings.attributes }
      return Layer.mergeAll(
        OtlpTracer.layer({ url: `${settings.endpoint}/v1/traces`, resource, headers: settings.headers }),
        OtlpMetrics.layer({ url: `${settings.endpoint}/v1/metrics`, resource, headers: settings.headers })
      ).pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(NodeHttpClient.layerUndici))
    }
  }))
)
