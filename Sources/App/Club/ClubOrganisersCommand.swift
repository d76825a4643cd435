import ArgumentParser
import ClubStore
import Foundation
import GatherSecurity
import Logging

/// `gather club organisers`: the club's accounts from the command line, as the venue's
/// `gather organisers`, on the database itself (every instance sees the change at once).
struct ClubOrganisersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "organisers",
        abstract: "List the club's organisers, remove one, make one the owner, or reset a password.",
        subcommands: [List.self, Remove.self, MakeOwner.self, ResetPassword.self],
        defaultSubcommand: List.self
    )

    struct DatabaseOptions: ParsableArguments {
        @Option(name: .customLong("postgres"),
                help: "The club's PostgreSQL URL (the password from PGPASSWORD or PGPASSFILE keeps it out of `ps`).")
        var postgresURL: String

        func validate() throws {
            guard postgresURL.hasPrefix("postgresql://") || postgresURL.hasPrefix("postgres://"), postgresURL.utf8.count <= 1_024 else {
                throw ValidationError("--postgres must be a postgresql:// URL of at most 1,024 characters.")
            }
        }

        /// Runs `body` on the organiser called `username` in one transaction; an invalid or unknown
        /// name changes nothing and says so.
        func change(_ username: String, _ body: (ClubTransaction, ClubOrganiser) throws -> Void) throws {
            try ClubOrganisersCommand.checkUsername(username)
            let store = try open()
            defer { store.close() }
            let found: Bool = try store.change { transaction in
                guard let organiser = try transaction.organiser(username: username) else { return false }
                try body(transaction, organiser)
                return true
            }
            guard found else { throw ValidationError("No organiser is called \(username); nothing was changed.") }
        }

        /// The store, or a clear failure (its migrations run under their lock, as at a server's start).
        func open() throws -> ClubStore {
            do {
                var logger = Logger(label: "gather club organisers")
                logger.logLevel = .warning
                return try ClubStore(url: postgresURL, poolSize: 1, logger: logger)
            } catch {
                throw StartupFailure(description: "cannot open the club's database: \(error)")
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Who organises the club (the owner first).")
        @OptionGroup var database: DatabaseOptions

        func run() throws {
            let store = try database.open()
            defer { store.close() }
            let organisers = try store.read { try $0.organisers() }
            if organisers.isEmpty { print("No organiser yet: the first to register with the invite code owns the club.") }
            for organiser in organisers { print(organiser.owner ? "\(organiser.username) (owner)" : organiser.username) }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an organiser: their sessions end at once.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The organiser's username.") var username: String

        func run() throws {
            try database.change(username) { transaction, organiser in
                guard !organiser.owner else {
                    throw ValidationError("\(username) owns the club: make another organiser the owner first (make-owner).")
                }
                try transaction.deleteOrganiser(id: organiser.id)
            }
            print("\(username) is no longer an organiser; their sessions have ended.")
        }
    }

    struct MakeOwner: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "make-owner", abstract: "Make an organiser the owner of the club.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The organiser's username.") var username: String

        func run() throws {
            try database.change(username) { transaction, organiser in try transaction.makeOwner(id: organiser.id) }
            print("\(username) now owns the club.")
        }
    }

    struct ResetPassword: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-password",
            abstract: "Give an organiser a new random password (printed once); every session of theirs ends.")
        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The organiser's username.") var username: String

        func run() throws {
            try ClubOrganisersCommand.checkUsername(username)
            let password = SecureRandom.token().prefix(16)
            let hash = PasswordHasher().hash(String(password))
            try database.change(username) { transaction, organiser in try transaction.setPassword(id: organiser.id, hash: hash) }
            print("New password for \(username): \(password)\nTheir sessions have ended; give it to them in person.")
        }
    }

    /// The club's usernames: 1–32 letters, digits, '.', '_' or '-' (as registration checks them).
    static func checkUsername(_ name: String) throws {
        guard (1...32).contains(name.utf8.count),
              name.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0) })
        else {
            throw ValidationError("A username is 1–32 letters, digits, '.', '_' or '-' (this one has \(name.count) characters). "
                                  + "Nothing was sent.")
        }
    }
}
