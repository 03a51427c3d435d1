import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "compaction",
    include: ["test/**/*.test.ts"]
  }
})
