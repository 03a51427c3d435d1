import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "provider-ai",
    include: ["test/**/*.test.ts"]
  }
})
