import Foundation

/// Client messages are read with Foundation's `JSONSerialization` (faster on a typical command than
/// the hand-written parser it replaced; the README has the figures) and turned into a `JSONValue`
/// here, the one place that knows how Foundation represents numbers and booleans.
extension JSONValue {
    /// Deeper documents are refused: no message of the protocol nests more than a few levels.
    public static let maximumDepth = 64

    /// Why a text is not a JSON document this server reads, in words for an `error` message.
    public struct ReadFailure: Error, Equatable, Sendable {
        public let reason: String

        public init(_ reason: String) { self.reason = reason }
    }

    /// Parses one JSON document (an object, array or scalar). Integers stay `.int`; a number
    /// written with a fraction or an exponent is `.double`, so `1.0` is never taken for an id.
    /// Foundation bounds nesting at 512 levels, so a nesting bomb cannot exhaust the stack; the
    /// tree is then held to `maximumDepth`.
    public static func parse(_ bytes: some Collection<UInt8>) -> Result<JSONValue, ReadFailure> {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            return .failure(ReadFailure(detail.map { $0.prefix(120).description } ?? "not valid JSON"))
        }
        guard let value = JSONValue(foundation: object, depth: 0) else {
            return .failure(ReadFailure("nested deeper than \(maximumDepth) levels, or a number out of range"))
        }
        return .success(value)
    }

    public static func parse(_ text: String) -> Result<JSONValue, ReadFailure> { parse(Array(text.utf8)) }

    /// nil past `maximumDepth`, or for a value JSON cannot hold.
    ///
    /// Foundation's objects, arrays and strings are Swift's own `[String: Any]`, `[Any]` and
    /// `String`: they are recognised by their exact type before any cast, because a cast that
    /// fails between these types is slow (a dictionary tried as a string and as an NSNumber):
    /// that made turning a 310-byte patch into a `JSONValue` cost ~8× Foundation's parse itself.
    private init?(foundation object: Any, depth: Int) {
        guard depth < Self.maximumDepth else { return nil }
        let kind = type(of: object)
        if kind == [String: Any].self, let members = object as? [String: Any] {
            guard let value = Self.object(members, depth: depth) else { return nil }
            self = value
        } else if kind == String.self, let text = object as? String {
            self = .string(text)
        } else if kind == [Any].self, let elements = object as? [Any] {
            guard let value = Self.array(elements, depth: depth) else { return nil }
            self = value
        } else if let number = object as? NSNumber {
            guard let value = Self.number(number) else { return nil }
            self = value
        } else if object is NSNull {
            self = .null
        } else if let text = object as? String {  // any other representation Foundation may choose
            self = .string(text)
        } else if let members = object as? [String: Any] {
            guard let value = Self.object(members, depth: depth) else { return nil }
            self = value
        } else if let elements = object as? [Any] {
            guard let value = Self.array(elements, depth: depth) else { return nil }
            self = value
        } else {
            return nil
        }
    }

    private static func object(_ members: [String: Any], depth: Int) -> JSONValue? {
        var values: [String: JSONValue] = [:]
        values.reserveCapacity(members.count)
        for (key, member) in members {
            guard let value = JSONValue(foundation: member, depth: depth + 1) else { return nil }
            values[key] = value
        }
        return .object(values)
    }

    private static func array(_ elements: [Any], depth: Int) -> JSONValue? {
        var values: [JSONValue] = []
        values.reserveCapacity(elements.count)
        for element in elements {
            guard let value = JSONValue(foundation: element, depth: depth + 1) else { return nil }
            values.append(value)
        }
        return .array(values)
    }

    /// Foundation hands back every number and boolean as an `NSNumber`; its type code tells
    /// `true` ("c") from `1` ("q"/"i") from `1.0` ("d") and a too-large integer ("Q").
    private static func number(_ number: NSNumber) -> JSONValue? {
        switch String(cString: number.objCType) {
        case "c", "B": return .bool(number.boolValue)
        case "d", "f":
            let value = number.doubleValue
            return value.isFinite ? .double(value) : nil
        case "Q" where number.uint64Value > UInt64(Int.max):
            return .double(number.doubleValue)  // an integer beyond Int, as the old parser did
        default:
            if number is NSDecimalNumber {
                let value = number.doubleValue
                return value.isFinite ? .double(value) : nil
            }
            return .int(number.intValue)
        }
    }
}
