/**
 * The store as `--db` names it, shown only redacted.
 *
 * @internal
 */
import { Redact } from "@precis/core"
import { PgStore } from "@precis/store-pg"

/**
 * The store `--db` names: `path`, what the drivers open (a SQLite file, or a
 * PostgreSQL URL, its password included), and `shown`, what every message and
 * output shows of it (`Redact.url`: no password, no secret query value).
 * Printed, interpolated or written as JSON, it is `shown`, so no message can
 * show the password by mistake.
 */
export class Db {
  constructor(readonly path: string) {}

  /**
   * Whether `name` names a store that would be thrown away: empty, SQLite's
   * `:memory:`, or a `file:` URI of an in-memory database (`file::memory:`,
   * `?mode=memory`), however it is spelled.
   */
  static throwaway(name: string): boolean {
    const trimmed = name.trim()
    return trimmed.length === 0 || trimmed.toLowerCase() === ":memory:" ||
      (/^file:/i.test(trimmed) && /:memory:|[?&]mode=memory(?:&|$)/i.test(trimmed))
  }

  /** True for a PostgreSQL URL, false for a SQLite file. */
  get isUrl(): boolean {
    return PgStore.isUrl(this.path)
  }

  /** What is shown of the store. */
  get shown(): string {
    return Redact.url(this.path)
  }

  toString(): string {
    return this.shown
  }

  toJSON(): string {
    return this.shown
  }
}
