import { defineProject } from "vitest/config"
import { ssr } from "../../vitest.shared.js"

export default defineProject({
  ssr,
  test: {
    name: "store-pg",
    include: ["test/**/*.test.ts"]
  }
})
