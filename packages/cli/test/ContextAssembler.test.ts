/**
 * `precis context` is the library's read-only Assembler: the same text, the
 * same report, the same JSON, with and without a budget.
 */
import { assert, describe, it } from "@effect/vitest"
import { Assembler, AssemblerConfig, Layout } from "@precis/context"
import { SqliteStore } from "@precis/store-sqlite"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll } from "vitest"
import { runCli, sessionJsonl, tempDir, write } from "./utils/run.js"

const dir = tempDir()
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

// What the library assembles, read-only, over the same store file.
const assembleReadOnly = (db: string, { budget, ...config }: Assembler.AssembleOptions & AssemblerConfig.Config) =>
  Effect.flatMap(
    Assembler.Assembler,
    (assembler) => assembler.assemble("default", { budget })
  ).pipe(
    Effect.provide(Assembler.layerReadOnly({ ...AssemblerConfig.oneShot, ...config }).pipe(Layer.provide(SqliteStore.layer({ filename: db, readonly: true })))),
    Effect.scoped
  )

describe("precis context and Assembler.assemble", () => {
  const db = path.join(dir, "context.db")
  const file = write(dir, "context.jsonl", sessionJsonl(80, "c"))

  it.live("give the same context, header, tokens and report, and neither writes", () =>
    Effect.gen(function*() {
      const compacted = yield* runCli(["compact", file, "--db", db, "--session", "default", "--leaf-chunk-tokens", "300", "--fresh-tail", "6"])
      assert.strictEqual(compacted.code, 0, compacted.stderr)
      const before = fs.statSync(db).mtimeMs
      for (
        const [flags, options] of [
          [[], {}],
          [["--budget", "2500"], { budget: 2500 }],
          [["--budget", "600", "--no-expand"], { budget: 600, expand: false }],
          [["--budget", "4000", "--no-state"], { budget: 4000, sessionState: false }]
        ] as const
      ) {
        const assembled = yield* assembleReadOnly(db, options)
        assert.isAbove(assembled.summaries.length, 0)
        if (options.budget !== undefined) assert.isTrue(assembled.report.stages.some((stage) => stage.acted))
        const text = yield* runCli(["context", "--db", db, ...flags])
        assert.strictEqual(text.code, 0, text.stderr)
        assert.strictEqual(text.stdout, Layout.render(assembled))
        const json = JSON.parse((yield* runCli(["context", "--db", db, "--json", ...flags])).stdout)
        assert.deepStrictEqual(
          [json.header, json.headerTokens, json.tokens, json.report],
          [assembled.header, assembled.headerTokens, assembled.tokens, options.budget === undefined ? undefined : assembled.report]
        )
        assert.deepStrictEqual(json.summaries.map((s: { id: string }) => s.id), assembled.summaries.map((s) => s.id))
        assert.deepStrictEqual(json.turns.map((t: { content: string }) => t.content), assembled.turns.map((t) => t.content))
      }
      assert.strictEqual(fs.statSync(db).mtimeMs, before)
    }), { timeout: 120_000 })
})
