import Dispatch
import GatherCoordinator
import GatherDelivery
import GatherModel
import GatherSecurity
import GatherStream
import Logging
import Synchronization

/// `gather serve --club NAME --club-key KEY` (docs/PROTOCOL.md §21): on the laptop's NATS leaf, a
/// mirror of the club's stream made when absent, read from its start; every message judged by
/// `ClubListVerifier`; a newer verified list handed to the Coordinator (which keeps it in SQLite
/// before holding it); anything else dropped, counted for `/healthz` `clubDropped` and logged
/// at most once per 10 s.
final class VenueClubList: Sendable {
    private let settings: VenueClubSettings
    private let logger: Logger
    private let link: ClubStreamLink
    private let dropped = Atomic<Int>(0)
    /// On the link's queue: the newest `seq` handed on per date, whether the mirror is being read,
    /// and the log's throttle.
    private let local: QueueBound<Local>

    private struct Local {
        var held: [String: Int64]
        var reading = false
        var throttle = LogThrottle(windowSeconds: 10, burst: 1)
    }

    init(settings: VenueClubSettings, held: [String: Int64], logger: Logger,
         onVerified: @escaping @Sendable (ClubDateList) -> Void) {
        self.settings = settings
        var logger = logger
        logger[metadataKey: "club.stream"] = "\(settings.club.streamName)"
        self.logger = logger
        let queue = DispatchQueue(label: "gather.club-list")
        local = QueueBound(Local(held: held), queue: queue)
        let box = WeakClubList()
        link = ClubStreamLink(endpoint: settings.endpoint, queue: queue, logger: logger) { box.target?.connected() }
        self.onVerified = onVerified
        box.target = self
    }

    private let onVerified: @Sendable (ClubDateList) -> Void

    /// Messages not acted on (a bad signature, another club, a wrong subject, unreadable), since start.
    var droppedCount: Int { dropped.load(ordering: .relaxed) }

    func start() throws { try link.start() }

    func stop() { link.close() }

    // MARK: - On the link's queue

    private func connected() {
        guard !local.value.reading else { return }
        do {
            try link.ensureMirror(club: settings.club, hubDomain: settings.hubDomain)
            try link.subscribe(stream: settings.club.streamName, subject: settings.club.datesPrefix + ">",
                               maximumBytes: ClubDateList.maximumBytes) { [weak self] in self?.heard($0) }
            local.value.reading = true
            logger.info("reading the club's lists")
        } catch {
            logger.warning("cannot read the club's lists yet; trying again in 5 s", metadata: ["club.error": "\(error)"])
            link.queue.asyncAfter(deadline: .now() + .seconds(5)) { [weak self] in self?.connected() }
        }
    }

    private func heard(_ message: ClubStreamLink.Message) {
        let verdict: ClubListVerdict = message.oversized
            ? .drop(.unreadable)
            : ClubListVerifier.judge(subject: message.subject, body: message.body, signature: message.signature,
                                     club: settings.club, key: settings.key, heldSeq: { local.value.held[$0] })
        switch verdict {
        case .accept(let list):
            local.value.held[list.date] = list.seq
            logger.debug("a verified club list", metadata: ["club.date": "\(list.date)", "club.seq": "\(list.seq)"])
            onVerified(list)
        case .older:
            break
        case .drop(let reason):
            dropped.add(1, ordering: .relaxed)
            if local.value.throttle.admit("dropped club lists", key: "the club's stream", now: DispatchTime.now().uptimeNanoseconds) {
                logger.warning("dropped a club list", metadata: ["club.reason": "\(reason.rawValue)",
                                                                 "club.dropped": "\(droppedCount)"])
            }
        }
    }

    /// `,"clubDropped":N` for `/healthz` (nothing without `--club`).
    static func healthFields(_ list: VenueClubList?) -> String {
        list.map { ",\"clubDropped\":\($0.droppedCount)" } ?? ""
    }
}

/// The link's connection callback reaches the reader without keeping it alive.
private final class WeakClubList: @unchecked Sendable {
    weak var target: VenueClubList?
}
