@testable import GatherCoordinator
import GatherModel
import GatherStore
import XCTest

/// The Arbiter judges any `base` from memory, in time proportional to the command's subjects,
/// and gives exactly the verdict a scan of the whole journal would (issue 20, "Old bases").
final class ArbiterTests: XCTestCase {
    private static let organisers: [String?] = ["ann", "bob", "cat", nil]
    private static let subjects: [Subject] = [.score(1, .A), .score(1, .B), .timer(1), .player(1), .player(2),
                                              .gather(1), .pitch(2), .goal(1, seq: 3)]

    /// The definition, by brute force: the newest change after `base` by someone else that
    /// touched a subject, or tooOld when the journal does not reach back to `base`.
    private func scan(_ journal: [JournalEntry], after base: Int, version: Int, subjects: Set<Subject>,
                      organiser: String) -> Arbiter.Verdict {
        guard base < version else { return .clear }
        let entries = journal.filter { $0.version > base }
        guard entries.first?.version == base + 1 else { return .tooOld }
        for entry in entries.reversed() where entry.organiser != organiser {
            if let subject = entry.subjects.intersection(subjects).sorted(by: { $0.description < $1.description }).first {
                return .conflict(entry, subject)
            }
        }
        return .clear
    }

    func testEveryVerdictMatchesAScanOfTheWholeJournal() {
        var rng = SplitMix64(seed: 0x0A4B_17E4)
        for round in 0..<40 {
            var journal: [JournalEntry] = []
            let start = Int(rng.next() % 3) * 50 + 1  // sometimes the journal no longer starts at 1
            for version in start..<(start + 300) {
                let count = 1 + Int(rng.next() % 3)
                let touched = Set((0..<count).map { _ in Self.subjects[Int(rng.next() % UInt64(Self.subjects.count))] })
                journal.append(JournalEntry(version: version, organiser: Self.organisers[Int(rng.next() % 4)],
                                            commandID: "c\(version)", kind: .score, subjects: touched, at: Int64(version)))
            }
            let version = start + 299
            let arbiter = Arbiter(journal: journal, version: version)
            for _ in 0..<200 {
                let base = Int(rng.next() % UInt64(version + 2))
                let count = 1 + Int(rng.next() % 3)
                let asked = Set((0..<count).map { _ in Self.subjects[Int(rng.next() % UInt64(Self.subjects.count))] })
                let organiser = Self.organisers[Int(rng.next() % 3)]!
                XCTAssertEqual(arbiter.judge(after: base, version: version, subjects: asked, organiser: organiser),
                               scan(journal, after: base, version: version, subjects: asked, organiser: organiser),
                               "round \(round), base \(base), \(organiser), \(asked)")
            }
        }
    }

    func testForgettingMovesTheHorizonAndKeepsWhatIsNewer() {
        let journal = (1...20).map { version in
            JournalEntry(version: version, organiser: version.isMultiple(of: 2) ? "ann" : "bob", commandID: nil,
                         kind: .score, subjects: [.score(1, .A)], at: 0)
        }
        var arbiter = Arbiter(journal: journal, version: 20)
        XCTAssertEqual(arbiter.judge(after: 0, version: 20, subjects: [.score(1, .A)], organiser: "ann"),
                       .conflict(journal[18], .score(1, .A)))
        arbiter.forget(before: 15)
        XCTAssertEqual(arbiter.judge(after: 13, version: 20, subjects: [.score(1, .A)], organiser: "cat"), .tooOld)
        XCTAssertEqual(arbiter.judge(after: 14, version: 20, subjects: [.score(1, .A)], organiser: "cat"),
                       .conflict(journal[19], .score(1, .A)))
        XCTAssertEqual(arbiter.judge(after: 14, version: 20, subjects: [.timer(1)], organiser: "cat"), .clear)
        XCTAssertLessThanOrEqual(arbiter.bySubject.count, 1)
    }

    /// The memory holds one record per subject changed within the kept versions, not one per change.
    func testTheMemoryIsBoundedBySubjectsNotByChanges() {
        var arbiter = Arbiter(journal: [], version: 0)
        for version in 1...50_000 {
            arbiter.remember(JournalEntry(version: version, organiser: version.isMultiple(of: 3) ? "ann" : "bob",
                                          commandID: nil, kind: .score, subjects: [.score(1, version.isMultiple(of: 2) ? .A : .B)],
                                          at: 0))
        }
        XCTAssertEqual(arbiter.bySubject.count, 2)
        XCTAssertEqual(arbiter.judge(after: 0, version: 50_000, subjects: [.score(1, .A)], organiser: "bob").version, 49_998)
    }
}

private extension Arbiter.Verdict {
    var version: Int? {
        if case .conflict(let entry, _) = self { return entry.version }
        return nil
    }
}
