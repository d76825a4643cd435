import ArgumentParser
import Foundation
import Logging

/// `gather serve`: start the server with the options of the README.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the pages and the live WebSocket over TLS on one port."
    )

    @Option(help: "Address to listen on (0.0.0.0 for every IPv4 interface, :: for IPv6 too).")
    var host = "0.0.0.0"

    @Option(help: "TLS port for the pages and wss://HOST:PORT/live (0 picks a free port).")
    var port = 8443

    @OptionGroup var data: DataOptions

    @Option(name: .customLong("cert-dir"), help: "Folder of the generated local CA and server certificate.")
    var certificateDirectory = "Certificates"

    @Option(name: .customLong("cert"), help: "Your own server certificate (PEM); needs --key.")
    var certificatePath: String?

    @Option(name: .customLong("key"), help: "The private key of --cert (PEM).")
    var privateKeyPath: String?

    @Option(name: .customLong("public"), help: "Folder of the static pages.")
    var publicDirectory = "Public"

    @Option(name: .customLong("invite-code"), help: "Code organisers need to register (default: a new random one).")
    var inviteCode: String?

    @Option(name: .customLong("max-connections"), help: "Most WebSocket connections at once.")
    var maximumConnections = 20_000

    @Option(name: .customLong("ping-interval"),
            help: "Seconds of silence before a connection is pinged; it is closed if it stays silent as long again.")
    var pingIntervalSeconds = 30

    @Option(name: .customLong("stall-timeout"),
            help: "Seconds a connection may leave its messages unread before it is closed.")
    var stallTimeoutSeconds = 30

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be from 0 to 65535.") }
        guard (certificatePath == nil) == (privateKeyPath == nil) else {
            throw ValidationError("--cert and --key go together: give both, or neither to use the local CA.")
        }
        if let inviteCode {
            guard (4...64).contains(inviteCode.count),
                  inviteCode.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
            else { throw ValidationError("--invite-code must be 4–64 letters, digits, '-' or '_'.") }
        }
        guard (1...1_000_000).contains(maximumConnections) else {
            throw ValidationError("--max-connections must be from 1 to 1000000.")
        }
        guard (1...3_600).contains(stallTimeoutSeconds) else {
            throw ValidationError("--stall-timeout must be from 1 to 3600 seconds.")
        }
        guard (1...3_600).contains(pingIntervalSeconds) else {
            throw ValidationError("--ping-interval must be from 1 to 3600 seconds.")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: publicDirectory, isDirectory: &isDirectory), isDirectory.boolValue,
              FileManager.default.isReadableFile(atPath: publicDirectory)
        else { throw ValidationError("--public \(publicDirectory) is not a readable folder.") }
        guard host.utf8.count <= 255, !host.isEmpty else { throw ValidationError("--host must be an address.") }
    }

    func run() throws {
        do {
            try Server.run(options: self)
        } catch let failure as StartupFailure {
            FileHandle.standardError.write(Data("gather: \(failure.description)\n".utf8))
            throw ExitCode(failure.exitCode)
        }
    }
}
