#!/usr/bin/env node
// Runs the bundled, compiled CLI: `pnpm build` writes `dist/bin.js` (tsc) and bundles it into
// `dist/precis.mjs` (scripts/bundle.mjs).
import "../dist/precis.mjs"
