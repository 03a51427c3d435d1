/**
 * The fields of an options Schema, for decoding it and for reading it from
 * `Config`.
 *
 * @internal
 */
import * as Schema from "effect/Schema"

export const fieldsOf = (schema: { readonly fields: Schema.Struct.Fields } | { readonly from: unknown }) =>
  "fields" in schema ? schema.fields : (schema.from as { readonly fields: Schema.Struct.Fields }).fields

// The Schema of a field's value: the field itself, or what an `optional`/`optionalWith` wraps.
export const valueOf = (field: Schema.Struct.Field): Schema.Schema.Any =>
  Schema.isSchema(field) ? field : (field as unknown as { readonly from: Schema.Schema.Any }).from

// Every problem found; properties the Schema does not know (`onProgress`, `sessions`) are not options.
export const OPTIONS = { errors: "all", onExcessProperty: "ignore" } as const
