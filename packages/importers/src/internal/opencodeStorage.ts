/**
 * opencode's storage folder (`~/.local/share/opencode/storage`, opencode's
 * `storage.ts`): a session is `session/<project id>/<session id>.json` (its
 * info: `id`, `projectID`, `directory`, `title`, `time`), its messages
 * `message/<session id>/<message id>.json` (each message's info) and their
 * parts `part/<message id>/<part id>.json`. Importing the session's file
 * gathers them, messages and parts in the order of their ids (opencode's ids
 * grow with time), into the shape of an export, read as `opencode` reads one.
 * The line of a turn is its message's position (line 2 is the first message).
 *
 * @internal
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as path from "node:path"
import { isRecord, LineFailure, type Sink } from "./common.js"
import type { Format } from "./format.js"
import { parseJson } from "./json.js"
import * as Opencode from "./opencode.js"

// The JSON files of a folder, in the order of their names (none when the folder is missing).
const jsonFiles = (fs: FileSystem.FileSystem, dir: string) =>
  fs.readDirectory(dir).pipe(
    Effect.map((names) => names.filter((n) => n.endsWith(".json")).sort().map((n) => path.join(dir, n))),
    Effect.catchAll(() => Effect.succeed<ReadonlyArray<string>>([]))
  )

const readJson = (fs: FileSystem.FileSystem, file: string) =>
  fs.readFileString(file).pipe(
    Effect.mapError((e) => `cannot read ${file}: ${e.message}`),
    Effect.flatMap((text) =>
      Effect.try({ try: (): unknown => JSON.parse(text), catch: () => `${file} is not JSON` })
    )
  )

/** The export-shaped text of the session whose info file is `file`, one message per line. */
export const gather = (file: string): Effect.Effect<string, string, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const info = yield* readJson(fs, file)
    if (!isRecord(info) || typeof info.id !== "string") return yield* Effect.fail(`${file}: expected an opencode session { id, ... }`)
    const storage = path.dirname(path.dirname(path.dirname(file)))
    const messages = yield* Effect.forEach(yield* jsonFiles(fs, path.join(storage, "message", info.id)), (messageFile) =>
      Effect.gen(function*() {
        const message = yield* readJson(fs, messageFile)
        const id = isRecord(message) && typeof message.id === "string" ? message.id : path.basename(messageFile, ".json")
        const parts = yield* Effect.forEach(yield* jsonFiles(fs, path.join(storage, "part", id)), (partFile) => readJson(fs, partFile))
        return JSON.stringify({ info: message, parts })
      }))
    return `{"info": ${JSON.stringify(info)}, "messages": [\n${messages.join(",\n")}\n]}`
  })

/**
 * The files of the session whose info file is `file`: the file itself, its
 * messages' files, and their parts' files (as `gather` reads them).
 */
export const sources = (file: string): Effect.Effect<ReadonlyArray<string>, never, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const storage = path.dirname(path.dirname(path.dirname(file)))
    const messages = yield* jsonFiles(fs, path.join(storage, "message", path.basename(file, ".json")))
    const parts = yield* Effect.forEach(messages, (message) => jsonFiles(fs, path.join(storage, "part", path.basename(message, ".json"))))
    return [file, ...messages, ...parts.flat()]
  })

/** Reads a gathered session (an export's shape); a session file alone says where its messages are. */
export const read = (text: string, out: Sink): void => {
  const value = parseJson(text)
  if (isRecord(value) && !Array.isArray(value.messages)) {
    throw new LineFailure(1, "an opencode session file holds no messages: import it from its storage folder (storage/session/<project>/<id>.json), where its messages are")
  }
  Opencode.read(text, out)
}

// A session's info: an `ses_` id beside a `projectID`, no messages.
const SESSION = /^\{\s*"id"\s*:\s*"ses_[^"]*"/

/** opencode session files: `{"id": "ses_...", ..., "projectID": ...}` without messages. */
export const format = {
  name: "opencode-storage",
  title: "opencode storage session JSON",
  lineBased: false,
  reader: read,
  gather,
  sources,
  // A session's info file, `storage/session/<project>/ses_*.json`; the folders of its messages and
  // parts (one per session, one per message: thousands) are read through it, never listed.
  watch: {
    follows: (file) => /[\\/]session[\\/][^\\/]+[\\/]ses_[^\\/]*\.json$/.test(file),
    skips: (dir, siblings) => /[\\/](message|part)$/.test(dir) && siblings.includes("session"),
    folders: (file) => [path.join(path.dirname(path.dirname(path.dirname(file))), "message", path.basename(file, ".json"))]
  },
  detect: {
    claims: (probe) =>
      probe._tag === "Object"
        ? typeof probe.value.id === "string" && probe.value.id.startsWith("ses_") && typeof probe.value.projectID === "string" &&
          !("messages" in probe.value)
        : probe._tag === "ObjectText" && SESSION.test(probe.text) && /"projectID"\s*:/.test(probe.text) && !/"messages"\s*:/.test(probe.text)
  }
} as const satisfies Format<"opencode-storage">
