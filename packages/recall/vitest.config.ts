import { defineProject } from "vitest/config"
import { ssr } from "../../vitest.shared.js"

export default defineProject({
  ssr,
  test: {
    name: "recall",
    include: ["test/**/*.test.ts"]
  }
})
