import { ProjectDigest } from "@precis/context"
import { SqliteStore } from "@precis/store-sqlite"
import { Effect } from "effect"
Effect.runPromise(ProjectDigest.make(process.argv[2]!).pipe(Effect.provide(SqliteStore.layer({ filename: "/tmp/proj/b.db", readonly: true })))).then((d) => {
  console.log(d.text); console.log(d.text.length)
})
