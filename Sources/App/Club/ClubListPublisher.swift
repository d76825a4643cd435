import ClubCoordinator
import Dispatch
import Foundation
import GatherDelivery
import GatherModel
import GatherSecurity
import GatherStream
import Logging

/// Publishes each date's list on the club's stream (docs/PROTOCOL.md §21) on the link's queue:
/// a date whose answers changed (every instance hears the NOTIFY), everything in the window when
/// the club itself changed, and — at each connection and every 60 s — any subject whose last
/// message is not the club's own newest (a forged rollup, a publish that never reached NATS, or
/// two instances whose publishes crossed), with the next `seq`.
final class ClubListPublisher: Sendable {
    static let checkIntervalSeconds = 60

    private let service: ClubService
    private let club: ClubName
    private let key: Ed25519PrivateKey
    private let publicKey: Ed25519PublicKey
    private let logger: Logger
    private let link: ClubStreamLink
    /// The 60-s check, made and ended on the link's queue.
    private let timer: QueueBound<DispatchSourceTimer?>

    init(service: ClubService, endpoint: NATSEndpoint, club: ClubName, key: Ed25519PrivateKey, logger: Logger) throws {
        self.service = service
        self.club = club
        self.key = key
        guard let publicKey = Ed25519PublicKey(rawBytes: try key.publicKeyBytes()) else {
            throw StartupFailure(description: "the club's signing key has no usable public key")
        }
        self.publicKey = publicKey
        var logger = logger
        logger[metadataKey: "club.stream"] = "\(club.streamName)"
        self.logger = logger
        let queue = DispatchQueue(label: "club.nats")
        timer = QueueBound(nil, queue: queue)
        let box = WeakPublisher()
        link = ClubStreamLink(endpoint: endpoint, queue: queue, logger: logger) { box.publisher?.connected() }
        box.publisher = self
    }

    /// The link, for anything else the club reads on NATS (the venue's results).
    var streamLink: ClubStreamLink { link }

    func start() throws {
        try link.start()
        link.queue.sync {
            let source = DispatchSource.makeTimerSource(queue: link.queue)
            source.schedule(deadline: .now() + .seconds(Self.checkIntervalSeconds),
                            repeating: .seconds(Self.checkIntervalSeconds), leeway: .seconds(1))
            source.setEventHandler { [weak self] in self?.checkEverySubject() }
            source.resume()
            timer.value = source
        }
    }

    func stop() {
        link.queue.sync {
            timer.value?.cancel()
            timer.value = nil
        }
        link.close()
    }

    /// From the LISTEN thread: empty means the club changed (names, titles): every list again.
    func datesChanged(_ ids: [String]) {
        link.queue.async { [self] in
            let dates = ids.isEmpty ? ((try? service.publishableDateIds()) ?? []) : ids
            for id in dates.prefix(1_000) { publish(date: id) }
        }
    }

    // MARK: - On the link's queue

    private func connected() {
        do {
            try link.ensureStream(club: club)
        } catch {
            logger.error("cannot make the club's stream", metadata: ["club.error": "\(error)"])
            return
        }
        checkEverySubject()
    }

    private func publish(date id: String) {
        guard link.isConnected else { return }
        do {
            guard let list = try service.nextClubList(date: id, club: club.rawValue) else { return }
            let envelope = try ClubListEnvelope.make(list, club: club, key: key)
            if link.publish(envelope) != nil {
                logger.debug("published a date's list", metadata: ["club.date": "\(id)", "club.seq": "\(list.seq)"])
            }
        } catch {
            logger.warning("cannot publish a date's list", metadata: ["club.date": "\(id)", "club.error": "\(error)"])
        }
    }

    /// Each date in the window whose subject's last message is not the club's newest list for it.
    private func checkEverySubject() {
        guard link.isConnected else { return }
        let ids: [String]
        do {
            ids = try service.publishableDateIds()
        } catch {
            logger.warning("cannot read the dates to publish", metadata: ["club.error": "\(error)"])
            return
        }
        for id in ids.prefix(1_000) where !holdsOwnNewest(date: id) {
            publish(date: id)
        }
    }

    private func holdsOwnNewest(date id: String) -> Bool {
        guard let last = link.lastMessage(stream: club.streamName, subject: club.dateSubject(id)),
              let seq = try? service.publishedSeq(date: id)
        else { return false }
        let verdict = ClubListVerifier.judge(subject: club.dateSubject(id), body: last.body, signature: last.signature,
                                             club: club, key: publicKey, heldSeq: { _ in nil })
        guard case .accept(let list) = verdict else { return false }
        return list.seq == seq
    }
}

/// The link's connection callback reaches the publisher without keeping it alive.
private final class WeakPublisher: @unchecked Sendable {
    weak var publisher: ClubListPublisher?
}
