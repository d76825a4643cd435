import ArgumentParser
import Foundation
import GatherStore

/// `gather backup PATH`: a consistent copy of the database, safe while the server runs.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the database consistently (SQLite online backup), even while the server runs."
    )

    @Argument(help: "Where to write the copy (a new .sqlite file).")
    var destination: String

    @Option(name: .customLong("data-dir"), help: "Folder of the SQLite database to copy.")
    var dataDirectory = "data"

    func validate() throws {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw ValidationError("\(destination) already exists; choose a new file name.")
        }
        guard FileManager.default.fileExists(atPath: dataDirectory + "/gather.sqlite") else {
            throw ValidationError("There is no database at \(dataDirectory)/gather.sqlite.")
        }
    }

    func run() throws {
        do {
            let store = try SQLiteStore(directory: dataDirectory)
            try store.backup(toPath: destination)
            print("gather: backed up \(dataDirectory)/gather.sqlite to \(destination)")
        } catch {
            FileHandle.standardError.write(Data("gather: backup failed: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
