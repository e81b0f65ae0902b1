// What the capture writer needs to run as a process of its own (the bench's writer of one object
// per call starts it so), apart from the package's index: the all-in-one process imports the
// index, and must not load the split deployment's engine drivers (import-closure.test.ts).
export { captureWriterDeps } from "./deps.ts";
export { parseCaptureWriterEnv } from "./env.ts";
