/** Types of `readme.mjs`, for the test that checks the quotes of the README and the docs. */
/** A random id (UUID) shortened to its first 8 characters, as the README quotes it. */
export declare const shortenIds: (text: string) => string
/** A shortened id as `<id>…`: what differs between two runs, and only that. */
export declare const maskIds: (text: string) => string
/** The quotes: each renders its text (the code block's lines) from real runs. */
export declare const quotes: Readonly<Record<"demo" | "condenser", () => string>>
/** The file (from the repository's root) that holds each quote. */
export declare const files: Readonly<Record<"demo" | "condenser", string>>
/** The text quoted in `readme` under `name` (inside its code fence), or undefined when there is no such quote. */
export declare const quoted: (readme: string, name: string) => string | undefined
/** `readme` with the quote `name` replaced by `text`, in a code fence of `lang`. */
export declare const replace: (readme: string, name: string, text: string, lang: string) => string
