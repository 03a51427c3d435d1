import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "provider-extractive",
    include: ["test/**/*.test.ts"]
  }
})
