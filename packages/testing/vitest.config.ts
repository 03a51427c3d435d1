import { defineProject } from "vitest/config"
import { setupFiles, ssr } from "../../vitest.shared.js"

export default defineProject({
  ssr,
  test: {
    name: "testing",
    setupFiles,
    include: ["test/**/*.test.ts"]
  }
})
