import CLibWebSockets
import Dispatch
import GatherLWS

// MARK: - The service thread's loop, and how it ends

extension ServiceLoop {
    /// A shutdown waits this long for phones to take their 1001 close frames.
    static let drainNanoseconds: UInt64 = 2_000_000_000

    /// On the event library (epoll), `lws_service` runs the whole loop and returns once the
    /// context is destroyed from inside it; on poll() it is one wake-up per call.
    func run() {
        preconditionOnServiceThread()
        guard let context else { return }
        // lws 4.1 ignores lws_service's timeout and sleeps until its next timer: this one wakes
        // the loop every second for pings, stalled readers, metrics and the shutdown deadline.
        let upkeepTimer = LoopTimer()
        self.upkeepTimer = upkeepTimer
        upkeepTimer.attach(context) { [unowned self, unowned upkeepTimer] in
            let now = DispatchTime.now().uptimeNanoseconds
            upkeep(now: now)
            if !finishIfDrained(now: now) { upkeepTimer.schedule(afterMicroseconds: 1_000_000) }
        }
        upkeepTimer.schedule(afterMicroseconds: 1_000_000)
        if usesEventLibrary {
            _ = lws_service(context, 0)
        } else {
            while !serviceFinished, lws_service(context, 0) >= 0 {}
        }
        upkeepTimer.detach()
        self.upkeepTimer = nil
        // After the event library's loop the context is already being destroyed; lws's own
        // examples call destroy once more to finish it, which is safe either way.
        server.shared.withLock { $0.context = nil }
        self.context = nil
        lws_context_destroy(context)
        server.stopped.signal()
    }

    /// The last phone (or API answer) of a shutdown has gone: end on the loop's next turn,
    /// outside this connection's callback, instead of at the next once-a-second upkeep.
    func drainedConnectionClosed() {
        guard live.draining, live.connections.isEmpty, !http.hasAnswersInFlight else { return }
        upkeepTimer?.schedule(afterMicroseconds: 1)
    }

    /// Once draining has no phone left (or its deadline passed), ends the loop. Service thread;
    /// returns whether it did.
    @discardableResult
    func finishIfDrained(now: UInt64 = DispatchTime.now().uptimeNanoseconds) -> Bool {
        guard live.draining, !serviceFinished else { return false }
        if drainDeadline == nil { drainDeadline = now + Self.drainNanoseconds }
        guard (live.connections.isEmpty && !http.hasAnswersInFlight) || now > drainDeadline! else { return false }
        serviceFinished = true
        if usesEventLibrary {
            // Nobody may wake a context that is going away.
            server.shared.withLock { $0.context = nil }
            if let context { lws_context_destroy(context) }
        }
        return true
    }
}
