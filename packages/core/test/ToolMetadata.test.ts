import { assert, describe, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import * as ToolMetadata from "../src/ToolMetadata.js"

describe("ToolMetadata", () => {
  it("make drops what is undefined and gives what the Schema accepts", () => {
    const metadata = ToolMetadata.make({ toolCallId: "t1", toolName: undefined, isError: true, exitCode: 1 })
    assert.deepStrictEqual(metadata, { toolCallId: "t1", isError: true, exitCode: 1 })
    assert.isTrue(Schema.is(ToolMetadata.ToolMetadata)(metadata))
  })

  it("read decodes each key on its own: a malformed key is absent, the others stay", () => {
    assert.deepStrictEqual(
      ToolMetadata.read({ toolCallId: "t1", exitCode: "1", cwd: 7, gitBranch: "", success: false, toolCalls: "junk" }),
      { toolCallId: "t1", success: false }
    )
    assert.deepStrictEqual(ToolMetadata.read(undefined), {})
  })

  it.prop(
    "read gives what the Schema accepts, whatever the metadata holds",
    [FastCheck.dictionary(
      FastCheck.constantFrom(...Object.keys(ToolMetadata.ToolMetadata.fields), "tool_use_id", "name", "is_error", "isMeta", "x"),
      FastCheck.oneof(
        FastCheck.anything(),
        FastCheck.array(FastCheck.record({ id: FastCheck.string(), name: FastCheck.string(), arguments: FastCheck.anything() }))
      )
    )],
    ([metadata]) => {
      assert.isTrue(Schema.is(ToolMetadata.ToolMetadata)(ToolMetadata.read(metadata)))
    }
  )

  it("read folds the spellings agent frameworks use into one", () => {
    assert.deepStrictEqual(ToolMetadata.read({ tool_use_id: "t2", name: "Bash", is_error: true, isMeta: true }), {
      toolCallId: "t2",
      toolName: "Bash",
      isError: true,
      meta: true
    })
    assert.deepStrictEqual(
      ToolMetadata.read({ toolCalls: [{ id: "a", name: "Read", input: { file_path: "x" } }, { id: "b" }, { name: "", arguments: "{}" }] })
        .toolCalls,
      [{ id: "a", name: "Read", arguments: { file_path: "x" } }]
    )
  })

  it("a call line is written once and told apart from prose", () => {
    const line = ToolMetadata.callLine("Bash", "{\"command\":\"ls\"}")
    assert.strictEqual(line, "[tool_call Bash] {\"command\":\"ls\"}")
    assert.isTrue(ToolMetadata.isCallLine(line))
    assert.isFalse(ToolMetadata.isCallLine("I will call [tool_call Bash] later"))
  })
})
