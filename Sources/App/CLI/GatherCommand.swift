import ArgumentParser
import Foundation
import Logging

/// `gather`: the Football Gather Live server and its maintenance commands. The executable's entry
/// point calls `GatherCommand.start()`; everything else lives in this library so `AppTests` reach it.
struct GatherCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gather",
        abstract: "Football Gather Live: a LAN match server for amateur football.",
        subcommands: [ServeCommand.self, RelayCommand.self, BackupCommand.self, CACommand.self, OrganisersCommand.self,
                      NATSCommand.self, ClubCommand.self],
        defaultSubcommand: ServeCommand.self
    )

    /// Before any command writes: the database, its `-wal`/`-shm` (made later by SQLite), backups and
    /// keys hold password hashes and every result, so nothing this process creates is for other users.
    /// Files meant to be public (the CA certificate) set their mode explicitly.
    static func start() {
        umask(0o077)
        main(nil)
    }
}

/// What the `gather` executable runs: the command line, parsed and run, exiting as it says.
public enum GatherEntry {
    public static func main() { GatherCommand.start() }
}

/// Where the database lives, shared by every command that opens it.
struct DataOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Folder of the SQLite database (gather.sqlite).")
    var dataDirectory = "data"
}

/// Where the local CA and the server certificate live, shared by `serve` and `ca renew`.
struct CertificateOptions: ParsableArguments {
    @Option(name: .customLong("cert-dir"), help: "Folder of the generated local CA and server certificate.")
    var certificateDirectory = "Certificates"
}

/// `--log-level trace|debug|info|notice|warning|error|critical`, parsed once into swift-log's level.
extension Logger.Level: @retroactive ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}
