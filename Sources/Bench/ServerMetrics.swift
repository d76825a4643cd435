import Foundation

/// The server's own view of fan-out, read from `/metrics`: from a snapshot being handed to the
/// Transport to its `lws_write` on each connection. Next to the bench's press → every spectator
/// figure it shows how much of that time the server spends and how much the wire and the bench.
///
/// Read with `curl` (present on Debian); without it the column shows n/a.
struct FanOutHistogram {
    /// Upper bound in ms (nil = +Inf) → cumulative count.
    var buckets: [(bound: Double?, cumulative: Int)] = []

    static let fanOutMetric = "gather_fanout_latency_ms"
    /// How late the server's countdown wake-ups ran: the server's half of tick regularity.
    static let tickLatenessMetric = "gather_tick_lateness_ms"

    /// `gather_connections{role="spectator"}` as the server counts it.
    static func spectatorCount(_ target: ServerTarget) -> Int? {
        let line = metricsText(target)?.split(separator: "\n").first { $0.hasPrefix("gather_connections{role=\"spectator\"}") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") }
    }

    /// A busy server answers slowly: up to 60 s.
    static func metricsText(_ target: ServerTarget) -> String? {
        let curl = ["/usr/bin/curl", "/bin/curl"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let curl else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: curl)
        process.arguments = ["--silent", "--max-time", "60", "--cacert", target.caPath,
                             "https://\(target.host):\(target.port)/metrics"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    static func parse(_ text: String, metric: String = fanOutMetric) -> FanOutHistogram? {
        var histogram = FanOutHistogram()
        for line in text.split(separator: "\n") where line.hasPrefix(metric + "_bucket{le=\"") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let count = Int(parts[1]) else { continue }
            let label = parts[0].split(separator: "\"").dropFirst().first.map(String.init) ?? ""
            histogram.buckets.append((label == "+Inf" ? nil : Double(label), count))
        }
        return histogram.buckets.isEmpty ? nil : histogram
    }

    /// What was counted between `earlier` and now.
    func subtracting(_ earlier: FanOutHistogram) -> FanOutHistogram {
        guard earlier.buckets.count == buckets.count else { return self }
        var difference = self
        for index in buckets.indices { difference.buckets[index].cumulative -= earlier.buckets[index].cumulative }
        return difference
    }

    var total: Int { buckets.last?.cumulative ?? 0 }

    /// The bucket bound at or under which `fraction` of the writes fell (an upper estimate).
    func percentileBound(_ fraction: Double) -> Double? {
        guard total > 0 else { return nil }
        let wanted = Int((fraction * Double(total)).rounded(.up))
        return buckets.first { $0.cumulative >= wanted }.map { $0.bound ?? .infinity }
    }
}
