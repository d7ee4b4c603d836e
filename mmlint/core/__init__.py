"""The plain values everything else is built on: spans, edits and diagnostics,
source decoding and its one line splitter, the atomic writer."""
