import { defineProject } from "vitest/config"
import { setupFiles, ssr } from "../../vitest.shared.js"

export default defineProject({
  ssr,
  test: {
    name: "provider-ai",
    setupFiles,
    include: ["test/**/*.test.ts"]
  }
})
