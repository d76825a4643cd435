/// Repeated log lines counted instead of repeated: of one kind of line about one key (say, refused
/// handshakes from one address) the first `burst` in a window are written; the rest are counted
/// and summed up once the window is over ("… 3,648 more refused handshakes from 127.0.0.9 in the
/// last 10 s"). At most `maximumKeys` keys are followed; beyond, lines share one key per kind.
/// Not thread-safe: each owner keeps its own (the Transport's on its service thread).
public struct LogThrottle {
    public struct Summary: Equatable, Sendable {
        public var what: String
        public var key: String
        public var suppressed: Int
        public var seconds: Int

        /// "… 3,648 more refused handshakes from 127.0.0.9 in the last 10 s"
        public var line: String { "… \(LogThrottle.grouped(suppressed)) more \(what) from \(key) in the last \(seconds) s" }
    }

    public let windowNanoseconds: UInt64
    public let burst: Int
    public let maximumKeys: Int
    private var windows: [String: Window] = [:]

    private struct Window {
        var what: String
        var key: String
        var startedAt: UInt64
        var written = 0
        var suppressed = 0
    }

    public init(windowSeconds: Int = 10, burst: Int = 3, maximumKeys: Int = 1_000) {
        windowNanoseconds = UInt64(windowSeconds) * 1_000_000_000
        self.burst = burst
        self.maximumKeys = maximumKeys
    }

    /// Whether to write this line now (`what`: the kind, plural; `key`: already escaped).
    public mutating func admit(_ what: String, key: String, now: UInt64) -> Bool {
        var key = key
        if windows[what + "\u{0}" + key] == nil, windows.count >= maximumKeys { key = "other addresses" }
        let slot = what + "\u{0}" + key
        var window = windows[slot] ?? Window(what: what, key: key, startedAt: now)
        defer { windows[slot] = window }
        guard window.written < burst else {
            window.suppressed += 1
            return false
        }
        window.written += 1
        return true
    }

    /// The windows that ended by `now` with lines held back, and forgets every ended window.
    public mutating func summaries(now: UInt64) -> [Summary] {
        var out: [Summary] = []
        for (slot, window) in windows where now &- window.startedAt >= windowNanoseconds {
            if window.suppressed > 0 {
                out.append(Summary(what: window.what, key: window.key, suppressed: window.suppressed,
                                   seconds: Int(windowNanoseconds / 1_000_000_000)))
            }
            windows[slot] = nil
        }
        return out.sorted { ($0.what, $0.key) < ($1.what, $1.key) }
    }

    /// 3648 → "3,648".
    static func grouped(_ number: Int) -> String {
        let digits = String(number)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }
}
