/// A referee link (docs/PROTOCOL.md §20): one pitch's scoring handed to whoever opens its code,
/// until it expires or an organiser revokes it. The code itself is never kept, only its hash
/// (the Store's `referee_links`), so this value carries what may be shown to organisers.
public struct RefereeLink: Equatable, Sendable {
    public typealias ID = Int

    public var id: ID
    public var pitch: Pitch.ID
    /// Where an organiser's name stands in the activity and on events (`by`).
    public var label: String
    /// Epoch ms; the link and its sessions end then.
    public var expiresAt: Int64
    public var createdAt: Int64
    /// The organiser who made it.
    public var createdBy: String

    public init(id: ID, pitch: Pitch.ID, label: String, expiresAt: Int64, createdAt: Int64, createdBy: String) {
        self.id = id
        self.pitch = pitch
        self.label = label
        self.expiresAt = expiresAt
        self.createdAt = createdAt
        self.createdBy = createdBy
    }

    /// At most this many links exist at once (`out_of_range` beyond).
    public static let maximumCount = 64
    /// Phones signed in on one link at once (a spare phone, a second referee); a fourth: `in_use`.
    public static let maximumSessions = 3
    public static let labelLength = 1...40
    public static let hoursRange = 1...24
    public static let defaultHours = 12
    /// 128 random bits, base64url without padding.
    public static let codeLength = 22

    /// "PITCH NAME referee", cut so that it stays within `labelLength`.
    public static func defaultLabel(pitchName: String) -> String {
        let suffix = " referee"
        return String(pitchName.prefix(labelLength.upperBound - suffix.count)) + suffix
    }

    /// Whether `text` has the shape of a code (22 base64url characters); anything else is not
    /// worth hashing and is refused the same way as a wrong code.
    public static func looksLikeCode(_ text: String) -> Bool {
        text.utf8.count == codeLength && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    /// The path a phone opens: the organiser page in its one-pitch mode.
    public static func path(code: String) -> String { "/organiser.html#referee=" + code }
}

/// The organisers' two commands about links, sent as `command`s whose `action.kind` is
/// `createRefereeLink` or `revokeRefereeLink` (they change no gather state, so they are not
/// `Action`s and take no `base`).
public enum RefereeLinkRequest: Equatable, Sendable {
    /// `label` nil: the default, made from the pitch's name when it is applied.
    case create(pitch: Pitch.ID, label: String?, hours: Int)
    case revoke(RefereeLink.ID)

    public static let kinds: Set<String> = ["createRefereeLink", "revokeRefereeLink"]

    /// Reads the action's fields; every problem is an `invalid` rejection a person can act on.
    public static func decode(_ json: JSONValue) -> Result<RefereeLinkRequest, Rejection> {
        switch json["kind"]?.stringValue {
        case "createRefereeLink":
            guard let pitch = json["pitch"]?.intValue else {
                return .failure(Rejection(.invalid, .actionUnreadable, "Say which pitch (\"pitch\", a number)."))
            }
            var label: String?
            if let raw = json["label"], !raw.isNull {
                do {
                    label = try ActionDecoder.text(raw, field: "The referee's label", length: RefereeLink.labelLength)
                } catch let rejection as Rejection {
                    return .failure(rejection)
                } catch {
                    return .failure(Rejection(.invalid, .actionUnreadable, "The label could not be read."))
                }
            }
            var hours = RefereeLink.defaultHours
            if let raw = json["hours"], !raw.isNull {
                guard let value = raw.intValue, RefereeLink.hoursRange.contains(value) else {
                    return .failure(Rejection(.invalid, .refereeHoursRule,
                                              ["min": .number(RefereeLink.hoursRange.lowerBound),
                                               "max": .number(RefereeLink.hoursRange.upperBound)],
                                              "\"hours\" is how long the link works: a whole number from 1 to 24."))
                }
                hours = value
            }
            return .success(.create(pitch: pitch, label: label, hours: hours))
        case "revokeRefereeLink":
            guard let id = json["id"]?.intValue else {
                return .failure(Rejection(.invalid, .actionUnreadable, "Say which link (\"id\", a number)."))
            }
            return .success(.revoke(id))
        default:
            return .failure(Rejection(.invalid, .actionUnreadable, "The action could not be read."))
        }
    }
}

/// What a referee may do (docs/PROTOCOL.md §20): on its own pitch only, start that pitch's next
/// tournament match, run the clock, score, restore a goal and end the match. Pure: the
/// Coordinator asks before the command reaches the rules, so a refused command changes nothing.
public enum RefereePermission {
    /// The action as the referee meant it (a gather action without `pitch` is on its own pitch),
    /// or `forbidden` `referee_pitch_only`.
    public static func judge(_ action: Action, pitchGiven: Bool, refereePitch: Pitch.ID,
                             state: GatherState) -> Result<Action, Rejection> {
        switch action {
        case .onPitch(let pitch, let gatherAction):
            let target = pitchGiven ? pitch : refereePitch
            guard target == refereePitch, allowed(gatherAction) else { return .failure(refusal(refereePitch, state)) }
            return .success(.onPitch(target, gatherAction))
        case .tournament(.startMatch(let match, _)):
            guard let next = state.tournament?.unplayedMatches(on: refereePitch).first, next == match else {
                return .failure(refusal(refereePitch, state))
            }
            return .success(action)
        default:
            return .failure(refusal(refereePitch, state))
        }
    }

    static func allowed(_ action: GatherAction) -> Bool {
        switch action {
        case .startTimer, .pauseTimer, .resetTimer, .setTimer, .score, .restoreGoal, .endGather: true
        default: false
        }
    }

    public static func refusal(_ pitch: Pitch.ID, _ state: GatherState) -> Rejection {
        let name = state.pitch(pitch)?.name ?? Pitch.defaultName(for: pitch)
        return Rejection(.forbidden, .refereePitchOnly, ["pitch": .text(name)],
                         "A referee keeps the score of \(name) only: start its next match, run the clock, score and end the match.")
    }
}
