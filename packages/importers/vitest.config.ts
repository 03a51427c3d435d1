import { defineProject } from "vitest/config"
import { setupFiles, ssr } from "../../vitest.shared.js"

export default defineProject({
  ssr,
  test: {
    name: "importers",
    setupFiles,
    include: ["test/**/*.test.ts"],
    // The property tests parse hundreds of generated files; on a busy 2-core machine that passes
    // vitest's 5 s default. Nothing here asserts a duration.
    testTimeout: 30_000
  }
})
