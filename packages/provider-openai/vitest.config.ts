import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "provider-openai",
    include: ["test/**/*.test.ts"]
  }
})
