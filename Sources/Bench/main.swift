// Top-level code is @MainActor in Swift 6: one call into nonisolated code, nothing else.
runGatherBench()
