import { defineProject } from "vitest/config"
import { ssr } from "../../vitest.shared.js"

export default defineProject({
  ssr,
  test: {
    name: "cli",
    include: ["test/**/*.test.ts"],
    // Bin.test.ts runs the compiled bin: build it first.
    globalSetup: ["test/globalSetup.ts"]
  }
})
