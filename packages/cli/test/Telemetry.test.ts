/**
 * Traces: the spans precis emits reach OpenTelemetry. Through the OpenTelemetry
 * SDK with an in-memory span exporter (as `examples/otel.ts` wires it), and
 * through the CLI's own switch (`OTEL_EXPORTER_OTLP_ENDPOINT`) to a loopback
 * OTLP/HTTP receiver.
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { assert, describe, expect, it } from "@effect/vitest"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll } from "vitest"
import { parsePairs } from "../src/internal/telemetry.js"
import { runCli, sessionJsonl, tempDir, write } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))
const file = write(dir, "traced.jsonl", sessionJsonl(10, "s"))

/** A loopback OTLP/HTTP receiver recording every request, closed with the scope. */
const receiver = Effect.gen(function*() {
  const received: Array<{ url: string; headers: IncomingMessage["headers"]; body: string }> = []
  const server = createServer((request, response) => {
    let body = ""
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")))
    request.on("end", () => {
      received.push({ url: request.url ?? "", headers: request.headers, body })
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  yield* Effect.acquireRelease(
    Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
    () => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
  )
  return { port: (server.address() as AddressInfo).port, received }
})

describe("traces", () => {
  it.live("an in-memory span exporter sees Summarizer.summarizeTurns with its precis.tier", () =>
    Effect.gen(function*() {
      const exporter = new InMemorySpanExporter()
      // Built in this scope: the exporter forgets its spans when the SDK shuts down.
      const sdk = yield* Layer.build(NodeSdk.layer(() => ({
        resource: { serviceName: "precis-test" },
        spanProcessor: new SimpleSpanProcessor(exporter)
      })))
      const result = yield* runCli(["summarize", file, "--json"]).pipe(Effect.provide(sdk))
      assert.strictEqual(result.code, 0, result.stderr)
      const spans = exporter.getFinishedSpans()
      const summarize = spans.find((span) => span.name === "Summarizer.summarizeTurns")
      assert.isDefined(summarize, spans.map((s) => s.name).join(", "))
      assert.strictEqual(summarize!.attributes["precis.tier"], JSON.parse(result.stdout).tier)
      assert.strictEqual(summarize!.resource.attributes["service.name"], "precis-test")
    }).pipe(Effect.scoped))

  it.live("OTEL_EXPORTER_OTLP_ENDPOINT sends the spans over OTLP/HTTP with the OTEL_* settings", () =>
    Effect.gen(function*() {
      const { port, received } = yield* receiver
      const result = yield* runCli(["summarize", file, "--json"], {
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}/`,
          OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=secret%20key",
          OTEL_SERVICE_NAME: "precis-cli-test",
          OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test"
        }
      })
      assert.strictEqual(result.code, 0, result.stderr)
      const traces = received.filter((r) => r.url === "/v1/traces")
      assert.isAbove(traces.length, 0, received.map((r) => r.url).join(", "))
      assert.strictEqual(traces[0]!.headers["x-api-key"], "secret key")
      interface KeyValue { readonly key: string; readonly value: { readonly stringValue?: string } }
      const payloads = traces.map((t) => JSON.parse(t.body) as {
        resourceSpans: Array<{
          resource: { attributes: Array<KeyValue> }
          scopeSpans: Array<{ spans: Array<{ name: string; attributes: Array<KeyValue> }> }>
        }>
      })
      const resourceSpans = payloads.flatMap((p) => p.resourceSpans)
      const resource = resourceSpans[0]!.resource.attributes
      expect(resource).toContainEqual({ key: "service.name", value: { stringValue: "precis-cli-test" } })
      expect(resource).toContainEqual({ key: "deployment.environment", value: { stringValue: "test" } })
      const spans = resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))
      const summarize = spans.find((s) => s.name === "Summarizer.summarizeTurns")
      assert.isDefined(summarize, spans.map((s) => s.name).join(", "))
      expect(summarize!.attributes).toContainEqual({
        key: "precis.tier",
        value: { stringValue: JSON.parse(result.stdout).tier }
      })
    }).pipe(Effect.scoped))

  it.live("nothing is sent with OTEL_SDK_DISABLED=true", () =>
    Effect.gen(function*() {
      const { port, received } = yield* receiver
      const result = yield* runCli(["summarize", file, "--json"], {
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_SDK_DISABLED: "true" }
      })
      assert.strictEqual(result.code, 0, result.stderr)
      assert.deepStrictEqual(received, [])
    }).pipe(Effect.scoped))

  it("reads k=v pairs, percent-decoded, skipping malformed ones", () => {
    assert.deepStrictEqual(parsePairs("a=1, b = two%2Cthree ,bad,=x,c=%E0%A4%A"), { a: "1", b: "two,three", c: "%E0%A4%A" })
    assert.deepStrictEqual(parsePairs(""), {})
  })
})
