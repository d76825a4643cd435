import ArgumentParser
import Foundation
import GatherCoordinator
import GatherPresenters
import GatherSecurity
import GatherStore
import Logging

/// `gather organisers list | remove NAME | make-owner NAME | reset-password NAME`: whoever holds
/// the laptop can always recover the group. With the server running the request goes through
/// its admin socket (`<data-dir>/admin.sock`), so it takes effect at once (a removed organiser's
/// phones become spectators); with it stopped, the same rules run on the database directly, under
/// the data folder's lock. A server that runs but does not answer on its socket is never gone
/// round: the CLI refuses and changes nothing.
struct OrganisersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "organisers",
        abstract: "List the organisers, remove one, make one the owner, or reset a password (server running or not).",
        subcommands: [List.self, Remove.self, MakeOwner.self, ResetPassword.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Who organises: owner, last seen, online, sessions.")
        @OptionGroup var data: DataOptions

        func run() throws {
            try OrganisersCommand.perform(.list, data: data)
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an organiser: their sessions end at once and they can no longer log in.")
        @Argument(help: "The organiser's username.") var username: String
        @OptionGroup var data: DataOptions

        func validate() throws {
            try OrganisersCommand.checkUsername(username)
        }

        func run() throws {
            try OrganisersCommand.perform(.remove(username), data: data)
        }
    }

    struct MakeOwner: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "make-owner",
                                                        abstract: "Make an organiser the owner of the group.")
        @Argument(help: "The organiser's username.") var username: String
        @OptionGroup var data: DataOptions

        func validate() throws {
            try OrganisersCommand.checkUsername(username)
        }

        func run() throws {
            try OrganisersCommand.perform(.makeOwner(username), data: data)
        }
    }

    struct ResetPassword: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-password",
            abstract: "Give an organiser a new random password (printed once); every session of theirs ends.")
        @Argument(help: "The organiser's username.") var username: String
        @OptionGroup var data: DataOptions

        func validate() throws {
            try OrganisersCommand.checkUsername(username)
        }

        func run() throws {
            // Made here and hashed by whoever writes it (the running server, or this process when
            // it holds the folder); never logged by either.
            let password = SecureRandom.inviteCode(length: 16)
            try OrganisersCommand.perform(.resetPassword(username, newPassword: password), data: data) { _ in
                print("New password for \(username): \(password)")
                print("It is shown only this once; give it to them, and they can change it in the console.")
            }
        }
    }

    // MARK: - Running server or stopped

    static func perform(_ request: AdminCall, data: DataOptions, onSuccess: (String) -> Void = { print($0) }) throws {
        let reply: AdminReply
        do {
            reply = try send(request, dataFolder: data.dataDirectory)
        } catch {
            FileHandle.standardError.write(Data("gather: \(error)\n".utf8))
            throw ExitCode(1)
        }
        switch reply {
        case .failed(let message):
            FileHandle.standardError.write(Data("gather: \(message)\n".utf8))
            throw ExitCode(1)
        case .done(let message):
            onSuccess(message)
        case .organisers(let list):
            print(table(list))
        }
    }

    private static func send(_ request: AdminCall, dataFolder: String) throws -> AdminReply {
        let socketPath = AdminSocketServer.path(inDataFolder: dataFolder)
        if let connection = try UnixSocket.connect(to: socketPath) {
            defer { close(connection) }
            try AdminSocketPeer.requireServer(listeningOn: connection, socketPath: socketPath, dataFolder: dataFolder)
            guard UnixSocket.writeAll(connection, AdminWire.encode(request)),
                  let line = UnixSocket.readLine(connection, limit: 1 << 20), let reply = AdminWire.decodeReply(line)
            else { throw AdminFailure("the running server did not answer on \(socketPath)") }
            return reply
        }
        guard FileManager.default.fileExists(atPath: dataFolder + "/" + SQLiteStore.fileName) else {
            throw AdminFailure("there is no database at \(dataFolder)/\(SQLiteStore.fileName)")
        }
        // No server answers: the database is this process's only while it holds the folder.
        let lock: DataFolderLock
        switch DataFolderLock.take(dataFolder: dataFolder) {
        case .success(let taken): lock = taken
        case .failure(.held(let pid)):
            throw AdminFailure("the data folder \(dataFolder) is served by PID \(pid.map(String.init) ?? "unknown"), "
                + "but its admin socket \(socketPath) is missing or not answering; nothing was changed. "
                + "Restart that server (it makes the socket again), or stop it to change the database directly.")
        case .failure(let refusal): throw AdminFailure(refusal.sentence(dataFolder: dataFolder))
        }
        // Held until the process ends (releasing it would also drop SQLite's locks on the file).
        defer { withExtendedLifetime(lock) {} }
        // The server is stopped: the same rules, straight on the database.
        let store = try SQLiteStore(directory: dataFolder)
        let core = try CoordinatorCore(store: store, environment: offlineEnvironment(store: store),
                                       logger: Logger(label: "gather.organisers", factory: { _ in SwiftLogNoOpLogHandler() }))
        return core.handleAdmin(request.request(hashing: { PasswordHasher().hash($0) })).0
    }

    /// Names the CLI can be given: the account rule of docs/PROTOCOL.md (3–32 bytes of
    /// `A-Za-z0-9_.-`), checked before anything is sent, so a name no organiser can have is refused
    /// with the rule rather than with whatever the channel makes of it.
    static func checkUsername(_ name: String) throws {
        let allowed = name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
        }
        guard AdminCall.usernameLengths.contains(name.utf8.count), allowed else {
            let length = name.utf8.count > AdminCall.usernameLengths.upperBound ? " (this one has \(name.utf8.count))" : ""
            throw ValidationError("""
                No organiser can be called that: usernames are \(AdminCall.usernameLengths.lowerBound)–\
                \(AdminCall.usernameLengths.upperBound) characters\(length), letters, digits, '_', '.' or '-'. Nothing was sent.
                """)
        }
    }

    private static func offlineEnvironment(store: SQLiteStore) throws -> CoordinatorEnvironment {
        CoordinatorEnvironment(
            now: { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) },
            newGatherID: { SecureRandom.uuidString() }, newToken: { SecureRandom.token() },
            hashToken: { Digest.sha256Hex($0) },
            inviteCode: nil,
            decoyPasswordHash: "", newInviteCode: { SecureRandom.inviteCode() })
    }

    static func table(_ list: [OrganiserSummary]) -> String {
        guard !list.isEmpty else { return "No organisers yet: the first to register with the invite code owns the group." }
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        let rows = list.map { organiser -> [String] in
            [organiser.username, organiser.owner ? "owner" : "organiser",
             organiser.online ? "online now" : organiser.lastSeenAt.map {
                 formatter.string(from: Date(timeIntervalSince1970: Double($0) / 1000))
             } ?? "never",
             "\(organiser.sessions)"]
        }
        let header = ["USERNAME", "ROLE", "LAST SEEN", "SESSIONS"]
        let widths = (0..<header.count).map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { row in
            row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }
}
