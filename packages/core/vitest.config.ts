import { defineProject } from "vitest/config"
import { ssr } from "../../vitest.shared.js"

export default defineProject({
  ssr,
  test: {
    name: "core",
    include: ["test/**/*.test.ts"]
  }
})
