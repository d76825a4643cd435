import GatherModel
import GatherModelTestSupport
import GatherStore
import XCTest

/// The reply memory and the journal: a resent id gets its first answer back, after a restart too,
/// and arbitration can read every change after any base.
final class ExactlyOnceTests: XCTestCase {
    private var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder.remove() }

    private func reopen() throws -> SQLiteStore { try SQLiteStore(directory: folder.child("data")) }

    // MARK: - Replies

    func testAnAppliedCommandIsRememberedAsItsAckAcrossARestart() throws {
        let writer = try Writer(store: reopen())
        try writer.addPlayer("Ann")
        try writer.apply(.addPlayer(PlayerChanges(name: "Bob")), by: "bob", id: "phone-7")

        let store = try reopen()
        XCTAssertEqual(try store.reply(organiser: "bob", commandID: "phone-7"), .ack(version: 2))
        XCTAssertEqual(try store.reply(organiser: "ann", commandID: "cmd-1"), .ack(version: 1))
        XCTAssertNil(try store.reply(organiser: "ann", commandID: "phone-7"), "ids belong to their organiser")
        XCTAssertNil(try store.reply(organiser: "bob", commandID: "phone-8"))
    }

    func testAFinalRejectionIsRememberedAndTheFirstAnswerStands() throws {
        let store = try reopen()
        let conflict = StoredReply.rejected(code: .conflict, message: "Ann changed Team A's score 3 s ago.", version: 12)
        try store.recordReply(conflict, organiser: "bob", commandID: "x1")
        try store.recordReply(.rejected(code: .invalid, message: "later", version: 13), organiser: "bob", commandID: "x1")
        XCTAssertEqual(try reopen().reply(organiser: "bob", commandID: "x1"), conflict)
    }

    func testEveryRejectionCodeRoundTrips() throws {
        let store = try SQLiteStore.inMemory()
        let codes: [RejectionCode] = [.invalid, .notFound, .wrongPhase, .outOfRange, .inUse, .conflict, .forbidden,
                                      .rateLimited]
        for (index, code) in codes.enumerated() {
            try store.recordReply(.rejected(code: code, message: "m\(index)", version: index), organiser: "o",
                                  commandID: "\(index)")
            XCTAssertEqual(try store.reply(organiser: "o", commandID: "\(index)"),
                           .rejected(code: code, message: "m\(index)", version: index))
        }
    }

    func testACommitForAnAlreadyAnsweredIDIsRefusedWhole() throws {
        let store = try reopen()
        let writer = try Writer(store: store)
        try writer.apply(.addPlayer(PlayerChanges(name: "Ann")), id: "same")
        XCTAssertThrowsError(try writer.apply(.addPlayer(PlayerChanges(name: "Ann again")), id: "same"))
        let loaded = try reopen().load()
        XCTAssertEqual(loaded.version, 1)
        XCTAssertEqual(loaded.state.players.map(\.name), ["Ann"], "nothing of the refused change was applied")
        XCTAssertEqual(try store.reply(organiser: "ann", commandID: "same"), .ack(version: 1))
    }

    func testAServerChangeIsJournalledWithoutAReply() throws {
        let store = try reopen()
        let entry = JournalEntry(version: 1, organiser: nil, commandID: nil, kind: .timerExpired, subjects: [.timer(1)],
                                 at: 42)
        try store.commit(before: GatherState(), after: GatherState(), entry: entry)
        XCTAssertEqual(try reopen().journal(after: 0), [entry])
        XCTAssertEqual(try reopen().load().version, 1)
    }

    /// The journal stores `ActionKind`'s raw values and reads every one of them back.
    func testEveryKindOfChangeIsJournalledAndReadBack() throws {
        let store = try reopen()
        var entries: [JournalEntry] = []
        for (index, kind) in ActionKind.allCases.enumerated() {
            let entry = JournalEntry(version: index + 1, organiser: kind == .timerExpired ? nil : "ann",
                                     commandID: kind == .timerExpired ? nil : "c\(index)", kind: kind,
                                     subjects: [.timer(1)], at: 42)
            try store.commit(before: GatherState(), after: GatherState(), entry: entry)
            entries.append(entry)
        }
        XCTAssertEqual(try reopen().journal(after: 0).map(\.kind), ActionKind.allCases)
        XCTAssertEqual(try reopen().journal(after: 0), entries)
    }

    // MARK: - Journal

    func testJournalAfterAVersionListsLaterChangesOldestFirstWithTheirSubjects() throws {
        let writer = try Writer(store: reopen())
        let ann = try writer.addPlayer("Ann")
        let bob = try writer.addPlayer("Bob")
        try writer.apply(.createGather(playerIDs: [ann, bob]), by: "cat", id: "c-create")
        try writer.apply(.renameTeam(.B, name: "Blues"), by: "dan", id: "d-1")

        let entries = try reopen().journal(after: 2)
        XCTAssertEqual(entries.map(\.version), [3, 4])
        XCTAssertEqual(entries[0].organiser, "cat")
        XCTAssertEqual(entries[0].commandID, "c-create")
        XCTAssertEqual(entries[0].kind, .createGather)
        XCTAssertEqual(entries[0].subjects, [.gather(1), .timer(1), .score(1, .A), .score(1, .B), .teamName(1, .A), .teamName(1, .B),
                                             .player(ann), .player(bob)])
        XCTAssertEqual(entries[1], JournalEntry(version: 4, organiser: "dan", commandID: "d-1", kind: .renameTeam,
                                                subjects: [.teamName(1, .B)], at: writer.now))
        XCTAssertEqual(try reopen().journal(after: 4), [])
        XCTAssertEqual(try reopen().journal(after: 0).map(\.version), [1, 2, 3, 4])
    }

    func testTheJournalAfterAVersionHandsBackEveryLaterEntryOldestFirst() throws {
        let store = try SQLiteStore.inMemory()
        let total = SQLiteStore.recentJournalLimit + 6
        for version in 1...total {
            let entry = JournalEntry(version: version, organiser: "ann", commandID: "c\(version)", kind: .score,
                                     subjects: [.score(1, version.isMultiple(of: 2) ? .A : .B)], at: Int64(version))
            try store.commit(before: GatherState(), after: GatherState(), entry: entry)
        }
        let loaded = try store.load()
        XCTAssertEqual(loaded.version, total)
        let recent = try store.recentJournal()
        XCTAssertEqual(recent.count, SQLiteStore.recentJournalLimit)
        XCTAssertEqual(recent.first?.version, 7)
        XCTAssertEqual(recent.last?.version, total)
        XCTAssertEqual(recent.last?.subjects, [.score(1, .A)])
        XCTAssertEqual(try store.journal(after: 0).count, total, "the table keeps everything for old bases")
    }
}
