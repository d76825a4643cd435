/// The whole program, outside the main actor (see main.swift).
nonisolated func runGatherBench() {
    BenchCommand.main()
}
