// Top-level code is @MainActor in Swift 6; Dispatch handlers created here would trap, so the
// whole program lives behind one nonisolated call.
runGather()
