import GatherModel

// Our own RFC 6902 differ: no Swift package diffs a JSONValue of ours without Foundation, and
// the patch shape (small, deterministic, add/remove/replace only) is part of gather.v2's contract.

/// One RFC 6902 operation. gather.v2 uses only these three, so a client needs nothing more.
public enum PatchOperation: Equatable, Sendable {
    case add(path: String, value: JSONValue)
    case remove(path: String)
    case replace(path: String, value: JSONValue)

    /// The RFC 6901 pointer the operation targets.
    public var path: String {
        switch self {
        case .add(let path, _), .remove(let path), .replace(let path, _): path
        }
    }

    /// The operation as it travels in a `patch` message's `ops`.
    public var json: JSONValue {
        switch self {
        case .add(let path, let value): ["op": "add", "path": .string(path), "value": value]
        case .remove(let path): ["op": "remove", "path": .string(path)]
        case .replace(let path, let value): ["op": "replace", "path": .string(path), "value": value]
        }
    }
}

/// Why a patch did not apply: the client must then wait for a snapshot instead.
public enum PatchError: Error, Equatable, Sendable {
    /// Not a JSON Pointer: no leading `/`, a `~` not followed by `0` or `1`, or an index such as `01`.
    case malformedPath(String)
    /// A member or element on the way, or the one to remove or replace, does not exist.
    case missingTarget(String)
    case indexOutOfRange(String)
    /// The path goes through a string, a number, a boolean or null.
    case notAContainer(String)
    /// A document is never absent, so the root can be replaced but not removed.
    case removingTheRoot
}

/// RFC 6902 differences between two renderings of the state, computed once per change and
/// shared by every gather.v2 connection.
///
/// No longest-common-subsequence on arrays: the app's arrays (events, bench, line-ups, players,
/// history) change at their ends or in place, which common prefix and suffix capture in linear time.
public enum JSONPatch {
    /// Operations that turn `from` into `to` when applied in order; empty when they are equal.
    /// Object keys are visited in sorted order, so the same pair always gives the same bytes.
    public static func diff(from: JSONValue, to: JSONValue) -> [PatchOperation] {
        var operations: [PatchOperation] = []
        appendDifferences(from: from, to: to, at: "", into: &operations)
        return operations
    }

    public static func apply(_ operations: [PatchOperation], to document: JSONValue) throws -> JSONValue {
        var result = document
        for operation in operations { try apply(operation, to: &result) }
        return result
    }

    // MARK: - Diffing

    private static func appendDifferences(from old: JSONValue, to new: JSONValue, at path: String,
                                          into operations: inout [PatchOperation]) {
        if old == new { return }
        switch (old, new) {
        case (.object(let oldMembers), .object(let newMembers)):
            for key in Set(oldMembers.keys).union(newMembers.keys).sorted() {
                let memberPath = path + "/" + JSONPointer.escape(key)
                switch (oldMembers[key], newMembers[key]) {
                case (let oldValue?, let newValue?):
                    appendDifferences(from: oldValue, to: newValue, at: memberPath, into: &operations)
                case (nil, let newValue?): operations.append(.add(path: memberPath, value: newValue))
                case (_?, nil): operations.append(.remove(path: memberPath))
                case (nil, nil): break
                }
            }
        case (.array(let oldElements), .array(let newElements)):
            appendDifferences(from: oldElements, to: newElements, at: path, into: &operations)
        default:
            operations.append(.replace(path: path, value: new))
        }
    }

    /// Keeps the common prefix and suffix, diffs the middles pairwise, then adds or removes the
    /// rest of the longer middle just before the suffix; an array whose elements all moved by a
    /// few places is sent as that move instead (`shifted`).
    private static func appendDifferences(from old: [JSONValue], to new: [JSONValue], at path: String,
                                          into operations: inout [PatchOperation]) {
        if appendShift(from: old, to: new, at: path, into: &operations) { return }
        let shorter = min(old.count, new.count)
        var prefix = 0
        while prefix < shorter, old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while prefix + suffix < shorter, old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }

        let oldMiddle = old.count - prefix - suffix
        let newMiddle = new.count - prefix - suffix
        let paired = min(oldMiddle, newMiddle)
        for offset in 0..<paired {
            let index = prefix + offset
            appendDifferences(from: old[index], to: new[index], at: path + "/" + String(index), into: &operations)
        }
        if newMiddle > paired {
            // Ascending, each element at the index it ends up with; "-" when nothing follows.
            for index in (prefix + paired)..<(prefix + newMiddle) {
                let token = suffix == 0 ? "-" : String(index)
                operations.append(.add(path: path + "/" + token, value: new[index]))
            }
        } else if oldMiddle > paired {
            // Descending, so removing one element never shifts the next one to remove.
            for index in ((prefix + paired)..<(prefix + oldMiddle)).reversed() {
                operations.append(.remove(path: path + "/" + String(index)))
            }
        }
    }

    /// The most places a shift is looked for: one change files one entry, a few at most.
    static let shiftLimit = 4

    /// A capped list that drops its oldest entries as new ones arrive (`history` once it holds its
    /// 20) has no common prefix or suffix, so pairing would replace every element. When the old
    /// array without its first (or last) k elements, k ≤ `shiftLimit`, starts (or ends) the new one,
    /// this sends k removals at one end and the new elements added at the other. False, and
    /// nothing appended, when no such k exists or the ends already match.
    private static func appendShift(from old: [JSONValue], to new: [JSONValue], at path: String,
                                    into operations: inout [PatchOperation]) -> Bool {
        guard let oldFirst = old.first, let newFirst = new.first, oldFirst != newFirst,
              old.last != new.last, old.count > shiftLimit
        else { return false }
        for dropped in 1...shiftLimit {
            let kept = old.count - dropped
            guard kept <= new.count else { continue }
            if old[dropped...].elementsEqual(new[..<kept]) {
                // Oldest first: drop from the front (descending indices), append the newcomers.
                for index in (0..<dropped).reversed() { operations.append(.remove(path: path + "/" + String(index))) }
                for element in new[kept...] { operations.append(.add(path: path + "/-", value: element)) }
                return true
            }
            if old[..<kept].elementsEqual(new[(new.count - kept)...]) {
                // Newest first: drop from the end (descending), insert the newcomers at the front in order.
                for index in (kept..<old.count).reversed() { operations.append(.remove(path: path + "/" + String(index))) }
                for (index, element) in new[..<(new.count - kept)].enumerated() {
                    operations.append(.add(path: path + "/" + String(index), value: element))
                }
                return true
            }
        }
        return false
    }

    // MARK: - Applying

    private static func apply(_ operation: PatchOperation, to document: inout JSONValue) throws {
        let path = operation.path
        let tokens = try JSONPointer.tokens(of: path)
        guard let last = tokens.last else {
            switch operation {
            case .add(_, let value), .replace(_, let value): document = value
            case .remove: throw PatchError.removingTheRoot
            }
            return
        }
        try withContainer(at: tokens.dropLast(), in: &document, path: path) { container in
            try apply(operation, token: last, in: &container, path: path)
        }
    }

    /// Walks to the parent of the target, giving `body` the parent in place (no copy of the
    /// untouched siblings: each level is detached from its holder while `body` runs).
    private static func withContainer(at tokens: ArraySlice<String>, in value: inout JSONValue, path: String,
                                      _ body: (inout JSONValue) throws -> Void) throws {
        guard let token = tokens.first else { return try body(&value) }
        let rest = tokens.dropFirst()
        switch value {
        case .object(var members):
            guard var child = members[token] else { throw PatchError.missingTarget(path) }
            value = .null
            members[token] = .null
            defer { members[token] = child; value = .object(members) }
            try withContainer(at: rest, in: &child, path: path, body)
        case .array(var elements):
            let index = try existingIndex(token, count: elements.count, path: path)
            var child = elements[index]
            value = .null
            elements[index] = .null
            defer { elements[index] = child; value = .array(elements) }
            try withContainer(at: rest, in: &child, path: path, body)
        default:
            throw PatchError.notAContainer(path)
        }
    }

    private static func apply(_ operation: PatchOperation, token: String, in container: inout JSONValue,
                              path: String) throws {
        switch container {
        case .object(var members):
            container = .null
            defer { container = .object(members) }
            switch operation {
            case .add(_, let value): members[token] = value
            case .remove:
                guard members.removeValue(forKey: token) != nil else { throw PatchError.missingTarget(path) }
            case .replace(_, let value):
                guard members[token] != nil else { throw PatchError.missingTarget(path) }
                members[token] = value
            }
        case .array(var elements):
            container = .null
            defer { container = .array(elements) }
            switch operation {
            case .add(_, let value):
                let index = try token == "-" ? elements.count : JSONPointer.index(token, path: path)
                guard index <= elements.count else { throw PatchError.indexOutOfRange(path) }
                elements.insert(value, at: index)
            case .remove:
                elements.remove(at: try existingIndex(token, count: elements.count, path: path))
            case .replace(_, let value):
                elements[try existingIndex(token, count: elements.count, path: path)] = value
            }
        default:
            throw PatchError.notAContainer(path)
        }
    }

    private static func existingIndex(_ token: String, count: Int, path: String) throws -> Int {
        if token == "-" { throw PatchError.indexOutOfRange(path) }
        let index = try JSONPointer.index(token, path: path)
        guard index < count else { throw PatchError.indexOutOfRange(path) }
        return index
    }
}

// MARK: - RFC 6901 JSON Pointer

/// Works on Unicode scalars, not Characters: a `/` followed by a combining mark is one Character
/// in Swift but still a separator (and must still be escaped) in a pointer.
enum JSONPointer {
    static func escape(_ key: String) -> String {
        guard key.unicodeScalars.contains(where: { $0 == "~" || $0 == "/" }) else { return key }
        var escaped = String.UnicodeScalarView()
        for scalar in key.unicodeScalars {
            switch scalar {
            case "~": escaped.append(contentsOf: "~0".unicodeScalars)
            case "/": escaped.append(contentsOf: "~1".unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    /// The unescaped reference tokens; none for the root pointer `""`.
    static func tokens(of path: String) throws -> [String] {
        if path.isEmpty { return [] }
        guard path.unicodeScalars.first == "/" else { throw PatchError.malformedPath(path) }
        return try path.unicodeScalars.dropFirst()
            .split(separator: "/", omittingEmptySubsequences: false)
            .map { try unescape($0, path: path) }
    }

    private static func unescape(_ token: Substring.UnicodeScalarView, path: String) throws -> String {
        var unescaped = String.UnicodeScalarView()
        var iterator = token.makeIterator()
        while let scalar = iterator.next() {
            guard scalar == "~" else { unescaped.append(scalar); continue }
            switch iterator.next() {
            case "0"?: unescaped.append("~")
            case "1"?: unescaped.append("/")
            default: throw PatchError.malformedPath(path)
            }
        }
        return String(unescaped)
    }

    /// An array index as RFC 6901 allows it: `0`, or digits without a leading zero.
    static func index(_ token: String, path: String) throws -> Int {
        let digits = token.utf8
        guard let first = digits.first, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              first != UInt8(ascii: "0") || digits.count == 1,
              let index = Int(token)
        else { throw PatchError.malformedPath(path) }
        return index
    }
}
