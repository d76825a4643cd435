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
            source.setEventHandler { [weak self] in self?.handle(number) }
            source.resume()
            sources.append(source)
        }
    }

    /// A signal that reached the process another way (lws's event loop takes SIGINT for itself).
    func deliver(_ number: Int32) {
        queue.async { self.handle(number) }
    }

    private func handle(_ number: Int32) {
        if received == 0 {
            received = number
            semaphore.signal()
        }
    }

    /// Returns the signal that arrived.
    func wait() -> Int32 {
        semaphore.wait()
        return queue.sync { received }
    }
}
