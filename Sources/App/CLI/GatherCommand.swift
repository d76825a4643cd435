import ArgumentParser

/// `gather`: the Football Gather Live server and its maintenance commands.
struct GatherCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gather",
        abstract: "Football Gather Live: a LAN match server for amateur football.",
        subcommands: [ServeCommand.self, BackupCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}

nonisolated func runGather() {
    GatherCommand.main()
}
