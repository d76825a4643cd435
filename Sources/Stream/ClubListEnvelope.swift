import GatherModel
import GatherSecurity

/// A club date's list as NATS carries it (docs/PROTOCOL.md §21): subject `club.NAME.dates.DID`,
/// `Nats-Rollup: sub` (the subject holds one message, the newest list) and `Gather-Signature`,
/// the club's Ed25519 signature of NAME, a newline, then the body, so a list signed for one club
/// never verifies as another's. Pure, so what is published is tested without a broker.
public enum ClubListEnvelope {
    public static func make(_ list: ClubDateList, club: ClubName, key: Ed25519PrivateKey) throws -> StreamEnvelope {
        let body = try list.encoded()
        return StreamEnvelope(subject: club.dateSubject(list.date),
                              headers: [(StreamSignature.header, try StreamSignature.sign(body, epoch: club.rawValue, key: key)),
                                        ("Nats-Rollup", "sub")],
                              body: body, stored: true, version: nil)
    }
}

/// What the venue does with one message of the club's stream: a pure judgement of its subject,
/// signature and body against the lists it holds, so every refusal is tested without NATS.
public enum ClubListVerdict: Equatable, Sendable {
    /// A verified list with a higher `seq` than the one held: keep it.
    case accept(ClubDateList)
    /// Verified, but not newer than the one held (a replay): nothing to do, not counted.
    case older
    /// Not acted on, and counted in `/healthz` `clubDropped`.
    case drop(Reason)

    public enum Reason: String, Sendable {
        case badSignature = "bad signature"
        case unreadable = "unreadable body"
        case otherClub = "another club's list"
        case wrongSubject = "subject and date differ"
    }
}

public enum ClubListVerifier {
    /// `heldSeq`: the `seq` of the list held for the subject's date, if any.
    public static func judge(subject: String, body: [UInt8], signature: String?, club: ClubName, key: Ed25519PublicKey,
                             heldSeq: (String) -> Int64?) -> ClubListVerdict {
        guard let subjectDate = club.dateId(ofSubject: subject) else { return .drop(.wrongSubject) }
        guard StreamSignature.verify(body, epoch: club.rawValue, signature: signature, key: key) else {
            return .drop(.badSignature)
        }
        guard let list = ClubDateList.decode(body) else { return .drop(.unreadable) }
        guard list.club == club.rawValue else { return .drop(.otherClub) }
        guard list.date == subjectDate else { return .drop(.wrongSubject) }
        if let held = heldSeq(list.date), list.seq <= held { return .older }
        return .accept(list)
    }
}
