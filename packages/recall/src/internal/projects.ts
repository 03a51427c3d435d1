/**
 * The recall tools' view of projects: `recent` (a project's sessions, the
 * most recent first, each with its outcome line) and `search` within the
 * sessions of one project.
 *
 * @internal
 */
import { ProjectDigest } from "@precis/context"
import { SearchIndex, type StoreError, TurnStore } from "@precis/store"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { RecallError } from "./recallError.js"

/** A session of {@link RecentPage}. */
export const RecentSession = Schema.Struct({
  id: Schema.String,
  startedAt: Schema.optional(Schema.String),
  endedAt: Schema.optional(Schema.String),
  turns: Schema.Int,
  agent: Schema.optional(Schema.String),
  request: Schema.optional(Schema.String),
  outcome: Schema.String
})

/** The result of `recent`: a page of a project's sessions, the most recent first, and how many it holds. */
export const RecentPage = Schema.Struct({
  project: Schema.String,
  total: Schema.Int,
  offset: Schema.Int,
  sessions: Schema.Array(RecentSession)
})

const recallError = (error: StoreError.StoreError) => new RecallError({ message: error.message })

// Optional fields as the Schema has them: absent, never `undefined`.
const defined = <A extends object>(value: A): A =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as A

/** The ids of the sessions of the project at `project`, or a `RecallError` when it has none. */
const projectIds = (project: string) =>
  Effect.flatMap(TurnStore.TurnStore, (store) => store.projectSessions(ProjectDigest.normalize(project))).pipe(
    Effect.mapError(recallError),
    Effect.flatMap((sessions) =>
      sessions.length === 0
        ? Effect.fail(new RecallError({ message: `no session held in ${JSON.stringify(project)} (a project is the folder a session ran in)` }))
        : Effect.succeed(sessions.map((s) => s.id))
    )
  )

/** `recent`: a page of the sessions of `project`. */
export const recent = (project: string, limit: number, offset: number) =>
  Effect.gen(function*() {
    yield* projectIds(project)
    const page = yield* ProjectDigest.recent(project, { limit, offset }).pipe(Effect.mapError(recallError))
    return { project: page.directory, total: page.total, offset, sessions: page.sessions.map(defined) }
  })

/**
 * `search` within the sessions of `project`: each session searched, the hits
 * merged in rank order (lower is better, as the store ranks them), at most `limit`.
 */
export const searchProject = (project: string, query: string, limit: number) =>
  Effect.gen(function*() {
    const index = yield* SearchIndex.SearchIndex
    const ids = yield* projectIds(project)
    const hits = yield* Effect.forEach(ids, (id) => index.search(id, query, { limit })).pipe(Effect.mapError(recallError))
    return hits.flat()
      .sort((a, b) => a.rank - b.rank || (a.kind === b.kind ? 0 : a.kind === "turn" ? -1 : 1) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, limit)
  })
