import { defineProject } from "vitest/config"
import { setupFiles, ssr } from "../../vitest.shared.js"

export default defineProject({
  // Without the "module" condition of vitest.shared.ts: with it, @opentelemetry/* (the telemetry
  // tests' SDK) resolve to their bundler builds, ESM with extensionless imports that Node cannot load.
  ssr: { resolve: { conditions: ssr.resolve.conditions.filter((c) => c !== "module") } },
  test: {
    name: "cli",
    setupFiles,
    include: ["test/**/*.test.ts"],
    // Bin.test.ts runs the compiled bin: build it first.
    globalSetup: ["test/globalSetup.ts"],
    // Each test runs whole commands (parse, store, compaction), several in a row; on a small,
    // shared CI machine that takes seconds, not milliseconds. Nothing here asserts a duration.
    testTimeout: 60_000,
    // The same for the set-ups (Search.test.ts imports and indexes a store in `beforeAll`).
    hookTimeout: 60_000
  }
})
