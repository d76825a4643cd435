// One thread per KDF run rather than a Dispatch queue: a thread's nice value can only be raised
// without privilege, so a pool thread lowered for a suspect's check would stay low for the next one.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import GatherDelivery
import Logging
import Synchronization

/// Runs the slow KDF, each run on a thread of its own that starts at the priority of the thread
/// that starts it (the Coordinator's queue); a suspect's run (`PasswordJob.fromSuspect`, or
/// lowered later by `lower`) gets the nice value `suspectNice`, so a crowd's checks take the CPU only when
/// neither an organiser's check nor the service loop wants it. `PasswordChecks` bounds the runs
/// (three at once at most), so the threads are bounded too.
final class KDFThreads: Sendable {
    static let suspectNice: Int32 = 10

    private struct Run {
        let client: ConnectionID
        /// The kernel's id for the thread, once it runs.
        var thread: pid_t?
        var lowered: Bool
    }

    /// Keyed by a number of their own: a connection's next check (a password change's second
    /// run) may start before the thread of its first has quite ended.
    private let runs = Mutex<(next: UInt64, byNumber: [UInt64: Run])>((0, [:]))
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Runs `work` on a new thread, lowered at once when `fromSuspect`; `work` reports its own result.
    func run(for client: ConnectionID, fromSuspect: Bool, _ work: @escaping @Sendable () -> Void) {
        let number = runs.withLock { runs -> UInt64 in
            runs.next += 1
            runs.byNumber[runs.next] = Run(client: client, thread: nil, lowered: fromSuspect)
            return runs.next
        }
        let thread = Thread { [self] in
            let id = Self.currentThreadID()
            let lowered = runs.withLock { runs -> Bool in
                runs.byNumber[number]?.thread = id
                return runs.byNumber[number]?.lowered ?? false
            }
            // The calling thread's own nice value (Linux keeps it per thread; `who` 0 is this one).
            if lowered { lower(0) }
            defer { _ = runs.withLock { $0.byNumber.removeValue(forKey: number) } }
            work()
        }
        thread.name = "gather.kdf"
        thread.start()
    }

    /// The address of `client`'s running check failed: its thread yields from now on. A run that
    /// has finished already is not there; one whose thread has not started is lowered as it starts.
    func lower(_ client: ConnectionID) {
        let threads = runs.withLock { runs -> [pid_t] in
            var threads: [pid_t] = []
            for (number, run) in runs.byNumber where run.client == client && !run.lowered {
                runs.byNumber[number]?.lowered = true
                if let thread = run.thread { threads.append(thread) }
            }
            return threads
        }
        threads.forEach(lower)
    }

    /// The kernel's id of the calling thread, from `/proc/thread-self` ("PID/task/TID"): Swift
    /// sees neither `gettid` (a GNU extension) nor the variadic `syscall`. Nil where it is missing.
    private static func currentThreadID() -> pid_t? {
        guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"),
              let last = link.split(separator: "/").last
        else { return nil }
        return pid_t(last)
    }

    private func lower(_ thread: pid_t) {
        // Raising a thread's own process's nice value needs no privilege; a failure costs only
        // the priority, so it is logged rather than thrown.
        if setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(thread), Self.suspectNice) != 0 {
            logger.warning("could not lower a password check's priority",
                           metadata: ["kdf.thread": "\(thread)", "error.errno": "\(errno)"])
        }
    }
}
