import Dispatch
import Foundation

/// Blocks the calling thread until one of `signals` arrives, handled through Dispatch rather than
/// a C signal handler so the shutdown runs as ordinary code.
final class SignalWaiter: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let queue = DispatchQueue(label: "gather.signals")
    private var sources: [DispatchSourceSignal] = []
    private var received: Int32 = 0

    init(signals: [Int32]) {
        for number in signals {
            Foundation.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in
                guard let self else { return }
                if self.received == 0 {
                    self.received = number
                    self.semaphore.signal()
                }
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Returns the signal that arrived.
    func wait() -> Int32 {
        semaphore.wait()
        return queue.sync { received }
    }
}
