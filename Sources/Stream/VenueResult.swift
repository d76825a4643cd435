import GatherModel
import GatherPresenters
import GatherSecurity

/// One finished gather as the venue publishes it on `gather.VENUE.results` (captured by its stream
/// `GATHER_VENUE`, never rolled up), and as a club reads it back through the hub's mirror.
///
/// Body: `{"type":"result","venue":V,"epoch":E,"epochStartedAt":T,"entry":HISTORY_ENTRY}`, the
/// entry in the state's own shape (`StatePresenter.json`). Signed as the state is
/// (`StreamSignature`, over the epoch the body names, a newline, then the body), so the club needs
/// only the venue's public key, as a relay does. `Nats-Msg-Id: VENUE.result.ID` lets JetStream
/// drop a result published again within its duplicate window; a club applies each `id` once anyway.
public struct VenueResult: Equatable, Sendable {
    /// The history entry's id (the gather's id): what a club applies once.
    public var id: String
    public var endedAt: Int64
    /// The club's date the gather was made from (`selectFromClubDate`), when it was.
    public var clubDate: String?
    /// The members who played: each `memberId` of a player in Team A or Team B at the end, sorted.
    public var memberIds: [String]
    /// The run of the venue that signed it.
    public var epoch: StreamEpoch

    public init(id: String, endedAt: Int64, clubDate: String?, memberIds: [String], epoch: StreamEpoch) {
        self.id = id
        self.endedAt = endedAt
        self.clubDate = clubDate
        self.memberIds = memberIds
        self.epoch = epoch
    }

    /// A result message over this is not read (a history entry of 60 players and 200 goals is
    /// about 25 KB).
    public static let maximumBytes = 64 << 10
    /// Players per team believed; a longer list is not a result the venue makes.
    static let maximumPlayersPerTeam = 200
    /// Ids (entry, club date, member) are the venue's and the club's own: short strings.
    static let maximumIDBytes = 64

    public enum Reading: Equatable, Sendable {
        case result(VenueResult)
        /// Not acted on: not the venue's signature, not a result, not understood, too big.
        case dropped(reason: String)
    }

    // MARK: - The venue's side

    /// The signed envelope of one history entry, for the venue's stream.
    public static func envelope(_ entry: HistoryEntry, venue: VenueName, epoch: StreamEpoch,
                                key: Ed25519PrivateKey) throws -> StreamEnvelope {
        let body = JSONWriter.bytes([
            "type": "result", "venue": .string(venue.rawValue), "epoch": .string(epoch.id),
            "epochStartedAt": .int(Int(epoch.startedAt)), "entry": StatePresenter.json(entry),
        ])
        return StreamEnvelope(subject: venue.resultsSubject,
                              headers: [(StreamSignature.header, try StreamSignature.sign(body, epoch: epoch.id, key: key)),
                                        ("Nats-Msg-Id", "\(venue).result.\(entry.id)")],
                              body: body, stored: true, version: nil)
    }

    // MARK: - The reader's side (a club, or the venue reading its own last result)

    /// Believes only a result of `venue` signed by `key` in the epoch it names, with a history
    /// entry that has an id and an end; everything else is `dropped` with the reason.
    public static func read(_ bytes: [UInt8], signature: String?, venue: VenueName, key: Ed25519PublicKey) -> Reading {
        guard bytes.count <= maximumBytes else { return .dropped(reason: "a result over \(maximumBytes) bytes") }
        let value: JSONValue
        switch JSONValue.parse(bytes) {
        case .success(let parsed): value = parsed
        case .failure(let failure): return .dropped(reason: "not JSON: \(failure.reason)")
        }
        guard value["type"]?.stringValue == "result" else { return .dropped(reason: "not a result") }
        guard let id = value["epoch"]?.stringValue, let startedAt = value["epochStartedAt"]?.intValue,
              let epoch = StreamEpoch(id: id, startedAt: Int64(startedAt))
        else { return .dropped(reason: "a result without its epoch") }
        guard StreamSignature.verify(bytes, epoch: epoch.id, signature: signature, key: key) else {
            return .dropped(reason: "a result the venue did not sign")
        }
        guard value["venue"]?.stringValue == venue.rawValue else { return .dropped(reason: "a result of another venue") }
        guard let entry = value["entry"], let entryId = shortID(entry["id"]), let endedAt = entry["endedAt"]?.intValue else {
            return .dropped(reason: "a result without a history entry's id and end")
        }
        var clubDate: String?
        if let field = entry["clubDate"], field != .null {
            guard let date = shortID(field) else { return .dropped(reason: "a result whose clubDate is not a date id") }
            clubDate = date
        }
        var members: Set<String> = []
        for side in ["A", "B"] {
            guard case .array(let players)? = entry["teams"]?[side]?["players"], players.count <= maximumPlayersPerTeam else {
                return .dropped(reason: "a result without Team \(side)'s players")
            }
            for player in players {
                guard let field = player["memberId"], field != .null else { continue }
                guard let member = shortID(field) else { return .dropped(reason: "a player whose memberId is not a member id") }
                members.insert(member)
            }
        }
        return .result(VenueResult(id: entryId, endedAt: Int64(endedAt), clubDate: clubDate, memberIds: members.sorted(),
                                   epoch: epoch))
    }

    /// A non-empty string of at most `maximumIDBytes` without control characters.
    private static func shortID(_ value: JSONValue?) -> String? {
        guard let text = value?.stringValue, (1...maximumIDBytes).contains(text.utf8.count),
              text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
        else { return nil }
        return text
    }
}
