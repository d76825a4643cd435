import ClubModel
import ClubStore
import Dispatch
import Foundation
import Logging

/// Sends the claimed mail, on every instance: poked by the club's clock, it takes the due rows
/// (`FOR UPDATE SKIP LOCKED`, committed as `sending` before any byte goes out), sends each, and
/// records the outcome; a failure is tried again 1, 5, 15, 30 and 60 minutes after the first try,
/// then `failed`. A sender stopped mid-send leaves a `sending` row another picks up 5 minutes on,
/// with the same Message-ID.
public final class ClubMailer: @unchecked Sendable {
    private let service: ClubService
    private let transport: any MailTransport
    private let mail: ClubService.MailConfiguration
    /// The base of the member's link: `--public-url`, else the address the server listens on.
    private let linkBase: String
    private let logger: Logger
    private let queue = DispatchQueue(label: "club.mail")
    private let lock = NSLock()
    private var running = false
    /// Mails taken at once: one, claimed just before its SMTP conversation, so a claim never
    /// waits behind others' (a conversation ends within 60 s, well before a claim goes stale at
    /// 5 minutes and another instance would take it again).
    static let batch = 1

    /// nil when the service has no mail configured (`--smtp` absent).
    public init?(service: ClubService, transport: any MailTransport, linkBase: String, logger: Logger) {
        guard let mail = service.configuration.mail else { return nil }
        self.service = service
        self.linkBase = service.configuration.publicURL ?? linkBase
        self.transport = transport
        self.mail = mail
        self.logger = logger
    }

    /// Sends what is due, unless a round is already running (then that round finds it).
    public func poke() {
        lock.lock()
        guard !running else { lock.unlock(); return }
        running = true
        lock.unlock()
        queue.async { [self] in
            defer { lock.lock(); running = false; lock.unlock() }
            do {
                try sendDue()
            } catch {
                logger.warning("club mail: round failed", metadata: ["club.error": "\(error)"])
            }
        }
    }

    /// Rounds until nothing is due; returns how many tries were made (tests call it directly).
    @discardableResult
    public func sendDue() throws -> Int {
        var tries = 0
        while true {
            let taken = try service.store.change { try $0.takeMailToSend(now: try $0.now(), limit: Self.batch) }
            if taken.isEmpty { return tries }
            for item in taken {
                try sendOne(item)
                tries += 1
            }
        }
    }

    private func sendOne(_ taken: TakenMail) throws {
        let key = taken.record.key
        let metadata: Logger.Metadata = [
            "club.mail.kind": "\(key.kind.rawValue)", "club.mail.slot": "\(key.slot)", "club.date": "\(key.dateId)",
            "club.member": "\(key.memberId)", "club.mail.try": "\(taken.record.tries)",
        ]
        let outcome: MailSendOutcome
        if let message = try service.store.read({ try compose(taken, $0) }) {
            outcome = transport.send(message)
        } else {
            outcome = .failed(reason: "the member, the date or the address is gone")
        }
        try service.store.change { transaction in
            let now = try transaction.now()
            switch outcome {
            case .sent:
                try transaction.finishMail(taken, sent: true, retryAt: nil, error: nil, now: now)
                logger.info("club mail sent", metadata: metadata)
            case .failed(let reason):
                let retry = MailRules.nextTry(firstTryAt: taken.firstTryAt, tries: taken.record.tries)
                try transaction.finishMail(taken, sent: false, retryAt: retry, error: reason, now: now)
                var failed = metadata
                failed["club.error"] = "\(reason)"
                failed["club.mail.retryAt"] = "\(retry.map(String.init) ?? "never")"
                logger.warning(retry == nil ? "club mail failed for good" : "club mail try failed", metadata: failed)
            }
            try transaction.notify(dateIds: [key.dateId])
        }
    }

    /// The mail as it reads now (names, counts, the rebuilt link); nil when there is nobody to
    /// send it to any more.
    func compose(_ taken: TakenMail, _ transaction: ClubTransaction) throws -> MailMessage? {
        let key = taken.record.key
        guard let stored = try transaction.storedMember(id: key.memberId), let address = stored.member.email,
              let date = try transaction.date(id: key.dateId), let settings = try transaction.club() else { return nil }
        let fixture = try transaction.fixture(id: date.fixtureId)
        let answers = try transaction.answers(date: date.id)
        let language = Language(rawValue: stored.member.language ?? settings.language) ?? .en
        let content = MailContent(
            key: key, memberName: stored.member.name, memberAddress: address, clubName: settings.name,
            fromAddress: mail.fromAddress, host: mail.messageHost, language: language,
            title: fixture?.title ?? settings.name, place: fixture?.place ?? "", startsAt: date.startsAt,
            confirmedSeats: Waitlist.confirmedSeats(answers), capacity: date.capacity,
            waiting: Waitlist.waitingCount(answers),
            offerExpiresAt: answers.first { $0.memberId == key.memberId }?.offerExpiresAt,
            memberLink: service.memberLink(seed: stored.linkSeed, secret: settings.linkSecret, base: linkBase),
            club: ClubTime(timeZone: try ClubInput.timeZone(settings.timeZone)), sentAt: try transaction.now())
        return MailText.compose(content)
    }
}
