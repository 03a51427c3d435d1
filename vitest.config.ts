import { defineConfig } from "vitest/config"
import projects from "./vitest.workspace.js"

export default defineConfig({
  test: {
    projects,
    // CI machines are small (2 cores): keep parallel test files modest.
    maxWorkers: 2,
    minWorkers: 1
  }
})
