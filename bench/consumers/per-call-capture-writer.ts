import { runCaptureWriterProcess } from "@gateway/capture-writer/own-process";

// `pnpm bench:consumers`' capture writer of one object per call, the layout before segments: the
// app's own process with segments of one capture each, written side by side a wave at a time as
// that layout wrote its objects. Only the bench runs it.
await runCaptureWriterProcess({ segmentBytes: 1 });
