import Foundation

/// Either a `gather` the bench starts itself (fresh process per scenario, same data and
/// certificates) or one already running at `--url`.
final class ServerUnderTest {
    private let process: ServerProcess?
    private let fixedTarget: ServerTarget?
    private let givenPID: Int32?

    init(process: ServerProcess) {
        self.process = process
        fixedTarget = nil
        givenPID = nil
    }

    init(target: ServerTarget, pid: Int32?) {
        process = nil
        fixedTarget = target
        givenPID = pid
    }

    var startsItsOwn: Bool { process != nil }

    /// A fresh server process per scenario, so one scenario's freed memory does not flatter
    /// the next one's memory-per-connection figure.
    func begin() throws -> ServerTarget {
        if let fixedTarget { return fixedTarget }
        guard let process else { throw BenchError("no server") }
        process.stop()
        let port = try process.start()
        return ServerTarget(port: port, caPath: process.caPath)
    }

    func end() { process?.stop() }

    func finish() {
        process?.stop()
        process?.removeFiles()
    }

    var pid: Int32? { process?.pid ?? givenPID }

    func residentKilobytes() -> Int? { pid.flatMap(ResidentMemory.kilobytes(of:)) }
}

/// How regularly the countdown's ticks reached one spectator.
struct TickRegularity {
    let count: Int
    /// |arrival − the whole second it stands for|, in ms.
    let deviation: Distribution

    /// Each running tick carries `endsAt`; the server ticks on `endsAt − n·1000`, so a tick's
    /// lateness is its arrival minus the nearest such instant.
    init?(ticks: [TickArrival]) {
        var deviations: [Double] = []
        for tick in ticks {
            guard let message = (try? JSONSerialization.jsonObject(with: Data(tick.bytes))) as? [String: Any],
                  let timer = message["timer"] as? [String: Any], timer["status"] as? String == "running",
                  let endsAt = (timer["endsAt"] as? NSNumber)?.doubleValue
            else { continue }
            let secondsLeft = ((endsAt - tick.arrivedAtEpochMs) / 1000).rounded()
            deviations.append(abs(tick.arrivedAtEpochMs - (endsAt - secondsLeft * 1000)))
        }
        guard let deviation = Distribution(milliseconds: deviations) else { return nil }
        count = deviations.count
        self.deviation = deviation
    }
}
