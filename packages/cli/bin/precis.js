#!/usr/bin/env node
// Runs the compiled entry: `pnpm build` (tsc -b) writes `dist/`.
import "../dist/bin.js"
