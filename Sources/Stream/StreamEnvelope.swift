import GatherPresenters
import GatherSecurity

/// One message as NATS receives it from the venue: subject, headers, body, and whether it goes
/// into JetStream (state) or core NATS (ticks). Made by a pure function, so what the venue
/// publishes (the signature, the rollup, the message id) is tested without a broker, and the
/// publisher's libnats side only copies it out.
public struct StreamEnvelope: Equatable, Sendable {
    public var subject: String
    /// In the order they are set; names as NATS carries them.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// JetStream (acknowledged, stored) rather than core NATS.
    public var stored: Bool
    /// The state version it publishes, if any.
    public var version: Int?

    public static func == (lhs: StreamEnvelope, rhs: StreamEnvelope) -> Bool {
        lhs.subject == rhs.subject && lhs.body == rhs.body && lhs.stored == rhs.stored && lhs.version == rhs.version
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    public func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }

    /// The signed envelope of one publication; throws only when OpenSSL cannot sign (then nothing
    /// is published: a relay would drop an unsigned message anyway).
    /// `seq` numbers a message of the ticks subject (1 per epoch, +1 per message, inside the
    /// signed body): a relay acts only on a higher one, so a replayed tick or heartbeat changes
    /// nothing. State publications ignore it.
    public static func make(_ publication: PublishQueue.Publication, venue: VenueName, epoch: StreamEpoch,
                            key: Ed25519PrivateKey, seq: Int = 0) throws -> StreamEnvelope {
        switch publication {
        case .tick(let bytes):
            return try signed(numbered(bytes, seq: seq), subject: venue.ticksSubject, epoch: epoch, key: key, stored: false,
                              version: nil)
        case .snapshot(let version, let bytes):
            var envelope = try signed(bytes, subject: venue.stateSubject, epoch: epoch, key: key, stored: true, version: version)
            envelope.headers.append(("Nats-Rollup", "sub"))
            return envelope
        case .patch(let version, let bytes):
            var envelope = try signed(bytes, subject: venue.stateSubject, epoch: epoch, key: key, stored: true, version: version)
            envelope.headers.append(("Nats-Msg-Id", "\(venue).\(epoch.id).\(version)"))
            return envelope
        }
    }

    /// The heartbeat, signed, for the ticks subject: `at` is the venue's clock (ms), `seq` its
    /// number among this epoch's ticks-subject messages.
    public static func heartbeat(version: Int?, venue: VenueName, epoch: StreamEpoch, key: Ed25519PrivateKey, at: Int64,
                                 seq: Int) throws -> StreamEnvelope {
        try signed(VenuePublisher.heartbeat(version: version, epoch: epoch, at: at, seq: seq), subject: venue.ticksSubject,
                   epoch: epoch, key: key, stored: false, version: nil)
    }

    /// A gather.v2 message (a JSON object, as the Coordinator rendered it) with `"seq":N` added as
    /// its first member; the bytes after the `{` are kept as they are. Anything that is not a
    /// non-empty object is returned unchanged (a relay then drops it: no `seq`).
    public static func numbered(_ bytes: [UInt8], seq: Int) -> [UInt8] {
        guard bytes.count > 2, bytes.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 24)
        out.append(contentsOf: Array("{\"seq\":\(seq),".utf8))
        out.append(contentsOf: bytes.dropFirst())
        return out
    }

    private static func signed(_ bytes: [UInt8], subject: String, epoch: StreamEpoch, key: Ed25519PrivateKey, stored: Bool,
                               version: Int?) throws -> StreamEnvelope {
        StreamEnvelope(subject: subject, headers: [(StreamSignature.header, try StreamSignature.sign(bytes, epoch: epoch.id, key: key))],
                       body: bytes, stored: stored, version: version)
    }
}
