/// Why a change was refused: the API's error codes (raw values are the wire's).
public enum RefusalCode: String, CaseIterable, Hashable, Sendable {
    case invalid
    case unauthorized
    case forbidden
    case notFound = "not_found"
    case conflict
    case closed
    case notOpenYet = "not_open_yet"
    case full
    case noRoomForGuests = "no_room_for_guests"
    case noOffer = "no_offer"
    case rateLimited = "rate_limited"

    /// Precision 1: 400, 401, 403, 404, 429, and 409 for every other code.
    public var httpStatus: Int {
        switch self {
        case .invalid: 400
        case .unauthorized: 401
        case .forbidden: 403
        case .notFound: 404
        case .rateLimited: 429
        case .conflict, .closed, .notOpenYet, .full, .noRoomForGuests, .noOffer: 409
        }
    }
}

/// A refused change: the code and the parameters its message names (e.g. `["field": "capacity"]`).
/// Every rule that refuses changes nothing.
public struct Refusal: Error, Equatable, Hashable, Sendable {
    public var code: RefusalCode
    public var params: [String: String]

    public init(_ code: RefusalCode, _ params: [String: String] = [:]) {
        self.code = code
        self.params = params
    }

    /// `invalid` naming the field (and why, when it helps).
    public static func invalid(_ field: String, _ reason: String? = nil) -> Refusal {
        var params = ["field": field]
        if let reason { params["reason"] = reason }
        return Refusal(.invalid, params)
    }
}
