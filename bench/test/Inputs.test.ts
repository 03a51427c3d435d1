import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as Inputs from "../src/Inputs.js"

describe("Inputs", () => {
  it("takes sessions and trajectories, not Claude Code's compaction references nor notes", () => {
    expect(Inputs.isSession("claude-code-spotter-258c7280.jsonl")).toBe(true)
    expect(Inputs.isSession("openhands-vue-todo-app.json")).toBe(true)
    expect(Inputs.isSession("swe-agent-pydicom-1458.traj")).toBe(true)
    expect(Inputs.isSession("claude-code-spotter-258c7280.compact-reference.jsonl")).toBe(false)
    expect(Inputs.isSession("SOURCES.md")).toBe(false)
    expect(Inputs.isSession("LICENSES")).toBe(false)
  })

  it("lists no compaction reference among the files to measure", () => {
    const files = Inputs.files()
    expect(files.some((file) => file.endsWith(".compact-reference.jsonl"))).toBe(false)
    if (fs.existsSync(Inputs.exampleSession)) expect(files[0]).toBe(Inputs.exampleSession)
  })
})
