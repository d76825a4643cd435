import GatherModel
import GatherModelTestSupport

// MARK: - Seeded randomness

/// The Model's SplitMix64 (the same numbers on every platform, so a failing seed reproduces).
extension SplitMix64 {
    /// 0..<bound; the modulo bias is irrelevant for test data.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }
}

// MARK: - Random documents and their mutations

/// Random JSON up to depth 5, with keys that need RFC 6901 escaping (including a `/` that a
/// combining mark glues into one Swift Character), and single edits of the kinds the state sees.
struct RandomJSON {
    static let maxDepth = 5
    static let keys = ["id", "name", "a", "b", "~", "/", "a/b", "~1", "m~0n", "", "-", "0", "ü", "/\u{301}", "x~/y"]
    var random: SplitMix64

    mutating func value(depth: Int = 0) -> JSONValue {
        let kind = depth >= Self.maxDepth ? random.below(5) : random.below(8)
        switch kind {
        case 5, 6: return array(depth: depth)
        case 7: return object(depth: depth)
        default: return scalar()
        }
    }

    mutating func scalar() -> JSONValue {
        switch random.below(6) {
        case 0: return .null
        case 1: return .bool(random.chance(50))
        case 2: return .int(random.below(7) - 3)
        case 3: return .double(Double(random.below(9)) / 4)
        default: return .string(random.pick(["", "x", "y", "goal", "~/", "é"]))
        }
    }

    mutating func array(depth: Int) -> JSONValue {
        .array((0..<random.below(7)).map { _ in value(depth: depth + 1) })
    }

    mutating func object(depth: Int) -> JSONValue {
        var members: [String: JSONValue] = [:]
        for _ in 0..<random.below(6) { members[random.pick(Self.keys)] = value(depth: depth + 1) }
        return .object(members)
    }

    /// One edit somewhere in `document`: deeper nodes are reached by walking down at random.
    mutating func mutated(_ document: JSONValue, depth: Int = 0) -> JSONValue {
        switch document {
        case .array(var elements):
            if !elements.isEmpty, random.chance(45) {
                let index = random.below(elements.count)
                elements[index] = mutated(elements[index], depth: depth + 1)
                return .array(elements)
            }
            switch random.below(6) {
            case 0, 1:
                for _ in 0..<(1 + random.below(3)) {
                    elements.insert(value(depth: depth + 1), at: random.below(elements.count + 1))
                }
            case 2, 3:
                guard !elements.isEmpty else { return value(depth: depth) }
                let start = random.below(elements.count)
                elements.removeSubrange(start..<min(elements.count, start + 1 + random.below(3)))
            case 4:
                guard !elements.isEmpty else { return value(depth: depth) }
                elements[random.below(elements.count)] = value(depth: depth + 1)
            default:
                return random.chance(50) ? scalar() : object(depth: depth)
            }
            return .array(elements)
        case .object(var members):
            let keys = members.keys.sorted()
            if !keys.isEmpty, random.chance(45) {
                let key = random.pick(keys)
                members[key] = mutated(members[key]!, depth: depth + 1)
                return .object(members)
            }
            switch random.below(5) {
            case 0, 1: members[random.pick(Self.keys)] = value(depth: depth + 1)
            case 2, 3:
                guard !keys.isEmpty else { return value(depth: depth) }
                members[random.pick(keys)] = nil
            default:
                return random.chance(50) ? scalar() : array(depth: depth)
            }
            return .object(members)
        default:
            return random.chance(30) && depth < Self.maxDepth ? array(depth: depth) : scalar()
        }
    }
}
