import { defineProject } from "vitest/config"
import { ssr } from "../../vitest.shared.js"

export default defineProject({
  ssr,
  test: {
    name: "store",
    include: ["test/**/*.test.ts"]
  }
})
