// Filled in by the Transport work.
