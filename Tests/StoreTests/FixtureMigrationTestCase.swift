import Foundation
import GRDB
import XCTest

/// The set-up every migration test on a committed fixture shares: an empty `data` folder of its
/// own, into which a test copies a fixture (`Tests/Fixtures/*.sqlite`) and migrates the copy, so
/// the fixture itself is never written.
class FixtureMigrationTestCase: XCTestCase {
    var folder: TemporaryFolder!

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    override func setUpWithError() throws {
        folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.child("data"), withIntermediateDirectories: true)
    }

    override func tearDown() { folder.remove() }

    /// Where the server keeps its database in that folder.
    var database: String { folder.child("data/gather.sqlite") }

    /// Copies the fixture `name` (e.g. `release1.sqlite`) to `database`.
    func copyFixture(_ name: String) throws {
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent(name).path, toPath: database)
    }

    /// Every row of every table, by table, each row a column → value map (SQLite's own values).
    func everyRow(_ db: Database) throws -> [String: [[String: DatabaseValue]]] {
        var tables: [String: [[String: DatabaseValue]]] = [:]
        for table in try String.fetchAll(db, sql: """
            SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations'
            """) {
            tables[table] = try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY rowid").map { row in
                Dictionary(uniqueKeysWithValues: row.columnNames.map { ($0, row[$0] as DatabaseValue) })
            }
        }
        return tables
    }
}
