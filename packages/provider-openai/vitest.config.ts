import { defineProject } from "vitest/config"
import { setupFiles, ssr } from "../../vitest.shared.js"

export default defineProject({
  ssr,
  test: {
    name: "provider-openai",
    setupFiles,
    include: ["test/**/*.test.ts"]
  }
})
