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

    @OptionGroup var data: DataOptions

    func validate() throws {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw ValidationError("\(destination) already exists; choose a new file name.")
        }
        guard FileManager.default.fileExists(atPath: data.dataDirectory + "/gather.sqlite") else {
            throw ValidationError("There is no database at \(data.dataDirectory)/gather.sqlite.")
        }
    }

    func run() throws {
        do {
            let store = try SQLiteStore(directory: data.dataDirectory)
            try store.backup(toPath: destination)
            print("gather: backed up \(data.dataDirectory)/gather.sqlite to \(destination)")
        } catch {
            FileHandle.standardError.write(Data("gather: backup failed: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
