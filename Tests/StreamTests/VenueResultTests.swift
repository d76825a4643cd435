import GatherModel
import GatherPresenters
import GatherSecurity
import XCTest

@testable import GatherStream

/// A finished gather as the venue publishes it on its results subject, read back as a club does:
/// only what the venue's key signed, of that venue, with an entry, is believed; who played is
/// every `memberId` on Team A or B.
final class VenueResultTests: XCTestCase {
    private let key = try! Ed25519PrivateKey.generate()
    private let venue = VenueName("riverside")!
    private let epoch = StreamEpoch(id: "Ab-_0123456789xyz", startedAt: 1_795_000_000_000)!
    private var publicKey: Ed25519PublicKey { Ed25519PublicKey(rawBytes: try! key.publicKeyBytes())! }

    private func entry(id: String = "g-1", endedAt: Int64 = 1_795_000_600_000) -> HistoryEntry {
        HistoryEntry(id: id, endedAt: endedAt,
                     teamA: .init(name: "Team A", players: [.init(id: 1, name: "Ana"), .init(id: 2, name: "Bo")]),
                     teamB: .init(name: "Team B", players: [.init(id: 3, name: "Cy")]),
                     score: Score(A: 2, B: 1))
    }

    /// The body the venue would sign for `entry`, with `clubDate` and `memberId`s set in the
    /// entry's JSON (the fields the list-to-laptop work adds to the history entry).
    private func signedBody(entry: JSONValue, venueName: String = "riverside", epoch: StreamEpoch? = nil,
                            signWith: Ed25519PrivateKey? = nil) throws -> (body: [UInt8], signature: String) {
        let epoch = epoch ?? self.epoch
        let body = JSONWriter.bytes(["type": "result", "venue": .string(venueName), "epoch": .string(epoch.id),
                                     "epochStartedAt": .int(Int(epoch.startedAt)), "entry": entry])
        return (body, try StreamSignature.sign(body, epoch: epoch.id, key: signWith ?? key))
    }

    private func clubEntry(members: [String?] = ["m-1", nil], teamB: [String?] = ["m-3"], clubDate: JSONValue = "d-42") -> JSONValue {
        func players(_ ids: [String?], from first: Int) -> JSONValue {
            .array(ids.enumerated().map { index, member in
                var player: [String: JSONValue] = ["id": .int(first + index), "name": .string("P\(first + index)")]
                if let member { player["memberId"] = .string(member) }
                return .object(player)
            })
        }
        guard case .object(var fields) = StatePresenter.json(entry()) else { fatalError("an entry is an object") }
        fields["clubDate"] = clubDate
        fields["teams"] = ["A": ["name": "Team A", "players": players(members, from: 1)],
                           "B": ["name": "Team B", "players": players(teamB, from: 10)]]
        return .object(fields)
    }

    func testTheVenuesEnvelopeIsSignedStoredOnTheResultsSubjectAndReadsBack() throws {
        let envelope = try VenueResult.envelope(entry(), venue: venue, epoch: epoch, key: key)
        XCTAssertEqual(envelope.subject, "gather.riverside.results")
        XCTAssertTrue(envelope.stored)
        XCTAssertNil(envelope.header("Nats-Rollup"), "results are never rolled up")
        XCTAssertEqual(envelope.header("Nats-Msg-Id"), "riverside.result.g-1")
        let reading = VenueResult.read(envelope.body, signature: envelope.header(StreamSignature.header), venue: venue,
                                       key: publicKey)
        XCTAssertEqual(reading, .result(VenueResult(id: "g-1", endedAt: 1_795_000_600_000, clubDate: nil, memberIds: [],
                                                    epoch: epoch)))
    }

    func testAClubDatesResultNamesEveryMemberOnEitherTeam() throws {
        let (body, signature) = try signedBody(entry: clubEntry(members: ["m-2", nil, "m-1"], teamB: ["m-3", "m-1"]))
        guard case .result(let result) = VenueResult.read(body, signature: signature, venue: venue, key: publicKey) else {
            return XCTFail("a signed result must be read")
        }
        XCTAssertEqual(result.clubDate, "d-42")
        XCTAssertEqual(result.memberIds, ["m-1", "m-2", "m-3"], "sorted, each once, guests (no memberId) left out")
    }

    func testWhatTheVenueDidNotSignOrDidNotSayIsDropped() throws {
        let (body, signature) = try signedBody(entry: clubEntry())
        let stranger = try Ed25519PrivateKey.generate()
        let forged = try signedBody(entry: clubEntry(), signWith: stranger)
        let otherEpoch = StreamEpoch(id: "Zz-_0123456789xyz", startedAt: 1_795_000_000_001)!
        let cases: [(String, [UInt8], String?)] = [
            ("no signature", body, nil),
            ("another key", forged.body, forged.signature),
            ("signed in another epoch", body, try StreamSignature.sign(body, epoch: otherEpoch.id, key: key)),
            ("a byte changed", Array(String(decoding: body, as: UTF8.self).replacingOccurrences(of: "m-3", with: "m-4").utf8),
             signature),
            ("another venue", try signedBody(entry: clubEntry(), venueName: "elsewhere").body,
             try signedBody(entry: clubEntry(), venueName: "elsewhere").signature),
            ("not JSON", Array("{".utf8), signature),
            ("too big", [UInt8](repeating: 0x20, count: VenueResult.maximumBytes + 1), signature),
        ]
        for (what, bytes, signature) in cases {
            guard case .dropped = VenueResult.read(bytes, signature: signature, venue: venue, key: publicKey) else {
                return XCTFail("\(what): must be dropped")
            }
        }
    }

    func testASignedMessageThatIsNotAResultIsDropped() throws {
        let shapes: [(String, JSONValue)] = [
            ("no id", { guard case .object(var f) = clubEntry() else { return .null }; f["id"] = nil; return .object(f) }()),
            ("a clubDate that is a number", clubEntry(clubDate: .int(42))),
            ("a memberId that is too long", clubEntry(members: [String(repeating: "m", count: 65)])),
            ("no Team B", { guard case .object(var f) = clubEntry() else { return .null }; f["teams"] = ["A": ["players": []]]; return .object(f) }()),
        ]
        for (what, entry) in shapes {
            let (body, signature) = try signedBody(entry: entry)
            guard case .dropped = VenueResult.read(body, signature: signature, venue: venue, key: publicKey) else {
                return XCTFail("\(what): must be dropped")
            }
        }
    }
}
