/// Catching up by patches: a gather.v2 client that reconnects with `/live?epoch=E&version=V`
/// (the state it holds) is sent the patches after `V` instead of a whole snapshot, when the
/// Transport still holds every one of them. Pure, so every case of the contract is tested
/// without sockets; the Outbox acts on the decision when the connection is greeted.

/// Where a reconnecting client says it is.
struct ResumePoint: Equatable {
    var epoch: String
    var version: Int
}

/// What a greeted gather.v2 connection is sent before it follows live.
enum CatchUp: Equatable {
    /// The newest snapshot, as to any new connection.
    case snapshot
    /// Nothing: it holds the current version of the current epoch.
    case upToDate(version: Int)
    /// The patches after `version`, in order, up to `through` (the current version); no snapshot.
    case patches(after: Int, through: Int)

    /// The decision for a client at `point` when the Transport holds `state` and `window`.
    /// A nil `point` (no query, or a malformed one) or an epoch the Transport does not hold (a nil
    /// epoch never matches) gets the snapshot.
    static func decide(_ point: ResumePoint?, state: SharedState?, window: PatchWindow) -> CatchUp {
        guard let point, let state, let epoch = state.epoch, point.epoch == epoch else { return .snapshot }
        if point.version == state.version { return .upToDate(version: state.version) }
        guard point.version < state.version, window.epoch == epoch,
              window.holdsEveryPatch(after: point.version, through: state.version)
        else { return .snapshot }
        return .patches(after: point.version, through: state.version)
    }
}

/// The query of `/live`, read without trusting it: anything but exactly one `epoch` and one
/// `version`, well formed, is no resume point at all (the client gets a snapshot, as without a
/// query). Other parameters are ignored.
enum ResumeQuery {
    /// A longer query is not read: a valid one is at most 8 + 64 + 9 + 19 bytes.
    static let maximumBytes = 256
    static let epochLengths = 8...64
    /// `Int.max` has 19 digits.
    static let maximumVersionDigits = 18

    /// At most this many parameters are looked at (beyond: no resume point).
    static let maximumParameters = 8

    /// A query string as sent (`epoch=E&version=V`).
    static func parse(_ query: String?) -> ResumePoint? {
        guard let query, query.utf8.count <= maximumBytes else { return nil }
        return parse(parameters: query.split(separator: "&", omittingEmptySubsequences: true).map(String.init))
    }

    /// The query's parameters one by one (`name=value`, as lws keeps each, already URL-decoded).
    static func parse(parameters: [String]) -> ResumePoint? {
        guard !parameters.isEmpty, parameters.count <= maximumParameters,
              parameters.reduce(0, { $0 + $1.utf8.count + 1 }) <= maximumBytes + 1
        else { return nil }
        var epoch: Substring?
        var version: Substring?
        for parameter in parameters {
            let parts = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count == 2 ? parts[1] : ""
            switch parts[0] {
            case "epoch":
                guard epoch == nil else { return nil }
                epoch = value
            case "version":
                guard version == nil else { return nil }
                version = value
            default:
                continue
            }
        }
        guard let epoch, isEpoch(epoch), let version, let number = versionNumber(version) else { return nil }
        return ResumePoint(epoch: String(epoch), version: number)
    }

    /// 8–64 of `A-Za-z0-9-_`.
    static func isEpoch(_ text: Substring) -> Bool {
        epochLengths.contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"): true
            default: false
            }
        }
    }

    /// A decimal integer ≥ 0: digits only (no sign, no spaces), at most 18 of them.
    static func versionNumber(_ text: Substring) -> Int? {
        guard (1...maximumVersionDigits).contains(text.utf8.count),
              text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Int(text)
    }
}
