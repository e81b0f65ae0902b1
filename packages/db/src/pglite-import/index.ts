// `@gateway/db/pglite-upgrade`: what opens a PGlite data dir, apart from the main entry so that
// nothing but the upgrade (and the tests that make such a dir) ever loads PGlite.
export { openPgliteStore } from "./open-pglite.ts";
