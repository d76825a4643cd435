import ClubModel
import ClubStore
import Foundation
import GatherModel

/// A request as the club's scope sees it: what the Transport copied out of the connection.
public struct ClubRequest: Sendable {
    public var method: String
    public var path: String
    public var query: String?
    /// Lowercase names.
    public var headers: [String: String]
    public var body: [UInt8]
    public var remoteAddress: String

    public init(method: String, path: String, query: String? = nil, headers: [String: String] = [:], body: [UInt8] = [],
                remoteAddress: String = "") {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The bearer token of `Authorization`, if any.
    var bearerToken: String? {
        guard let value = headers["authorization"], value.hasPrefix("Bearer ") else { return nil }
        let token = String(value.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        return token.isEmpty || token.utf8.count > 128 ? nil : token
    }

    var language: Language { Language.pick(acceptLanguage: headers["accept-language"]) }
}

/// What the scope answers; the App turns it into the Transport's response.
public struct ClubResponse: Sendable, Equatable {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]

    public init(status: Int, contentType: String = "application/json; charset=utf-8", body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }

    static func json(_ status: Int, _ value: JSONValue) -> ClubResponse {
        ClubResponse(status: status, body: JSONWriter.bytes(value))
    }

    static func kept(_ reply: KeptReply) -> ClubResponse {
        ClubResponse(status: reply.status, body: Array(reply.body.utf8))
    }

    var kept: KeptReply { KeptReply(status: status, body: String(decoding: body, as: UTF8.self)) }

    /// `{"error": {code, message, params}}` in the request's language.
    static func refusal(_ refusal: Refusal, language: Language) -> ClubResponse {
        var params: [String: JSONValue] = [:]
        for (key, value) in refusal.params { params[key] = .string(value) }
        return json(refusal.code.httpStatus, ["error": .object([
            "code": .string(refusal.code.rawValue),
            "message": .string(ClubMessages.refusal(refusal, in: language)),
            "params": .object(params),
        ])])
    }
}

/// A request body: one JSON object with a client `id` when it changes anything.
struct ClubBody {
    let fields: [String: JSONValue]
    let bytes: [UInt8]

    /// At most 16 KiB (the Transport's cap) and 64 fields: anything else is `invalid`.
    init(_ bytes: [UInt8]) throws(Refusal) {
        self.bytes = bytes
        guard !bytes.isEmpty else { throw Refusal.invalid("body", "a JSON object is expected") }
        guard bytes.count <= ClubInput.maxBodyBytes else { throw Refusal.invalid("body", "too_large") }
        guard case .success(.object(let fields)) = JSONValue.parse(bytes), fields.count <= 64 else {
            throw Refusal.invalid("body", "a JSON object is expected")
        }
        self.fields = fields
    }

    /// The change's client id: 1–64 of `A-Za-z0-9-_`.
    func id() throws(Refusal) -> String {
        guard let id = fields["id"]?.stringValue else { throw Refusal.invalid("id", "missing") }
        return try ClubInput.clientId(id)
    }

    func string(_ key: String) -> String? { fields[key]?.stringValue }

    /// The body as one of the model's drafts (a mistyped field is `invalid` naming it).
    func draft<T: Decodable>(_ type: T.Type) throws(Refusal) -> T {
        try ClubInput.decode(type, from: Data(bytes))
    }
    func has(_ key: String) -> Bool { fields[key] != nil }

    func requiredString(_ key: String, maxBytes: Int = 400) throws(Refusal) -> String {
        guard let value = fields[key]?.stringValue, value.utf8.count <= maxBytes else { throw Refusal.invalid(key) }
        return value
    }

    /// nil when absent; `invalid` when present but not a string within the cap (null clears).
    func optionalString(_ key: String, maxBytes: Int = 400) throws(Refusal) -> String?? {
        guard let value = fields[key] else { return nil }
        if value.isNull { return .some(nil) }
        guard let text = value.stringValue, text.utf8.count <= maxBytes else { throw Refusal.invalid(key) }
        return .some(text)
    }

    func int(_ key: String) throws(Refusal) -> Int? {
        guard let value = fields[key] else { return nil }
        guard let number = value.intValue else { throw Refusal.invalid(key) }
        return number
    }

    func bool(_ key: String) throws(Refusal) -> Bool? {
        guard let value = fields[key] else { return nil }
        guard case .bool(let flag) = value else { throw Refusal.invalid(key) }
        return flag
    }
}
