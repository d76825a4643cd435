/// What the club mails (contract, "Telling people" and "Mail, settled"): one mail per member,
/// date, kind and slot, whatever the instances and restarts.
public enum MailKind: String, CaseIterable, Hashable, Sendable {
    case reminder, offer, promoted, cancelled
}

/// A mail's life as stored. `sending` is a claim a sender holds (shown as `pending`: if that
/// sender stopped, the mail is tried again at its `nextAt`); `unsent` is what a club without
/// `--smtp` would have sent.
public enum MailState: String, CaseIterable, Hashable, Sendable {
    case pending, sending, sent, failed, unsent

    /// The state organisers read (`sending` is an implementation detail of the claim).
    public var shown: String { self == .sending ? MailState.pending.rawValue : rawValue }
}

/// The natural key of a mail: unique in the database, and the Message-ID's parts.
public struct MailKey: Equatable, Hashable, Sendable {
    public var memberId: String
    public var dateId: String
    public var kind: MailKind
    /// The reminder's hours before, the offer's number for that member and date, else 0.
    public var slot: Int

    public init(memberId: String, dateId: String, kind: MailKind, slot: Int) {
        self.memberId = memberId
        self.dateId = dateId
        self.kind = kind
        self.slot = slot
    }

    /// `<KIND.SLOT.DATE.MEMBER@HOST>`: the same for every try, so a receiver's client drops a
    /// repeat when a try whose answer was lost had got through.
    public func messageId(host: String) -> String {
        "<\(kind.rawValue).\(slot).\(MailText.headerSafe(dateId)).\(MailText.headerSafe(memberId))@\(MailText.headerSafe(host))>"
    }
}

/// One stored mail as organisers see it in `GET /club/api/dates/DID` (`mail`).
public struct MailRecord: Equatable, Sendable {
    public var key: MailKey
    public var state: MailState
    /// Sent: when; failed: when; pending/sending: the next try; unsent: when it was due.
    public var at: Millis
    public var tries: Int

    public init(key: MailKey, state: MailState, at: Millis, tries: Int) {
        self.key = key
        self.state = state
        self.at = at
        self.tries = tries
    }
}

/// How a mail leaves: one SMTP try (the server's is `ClubMail.SMTPSender`, over libcurl),
/// called off every request path, on the mailer's own queue.
public protocol MailTransport: Sendable {
    func send(_ message: MailMessage) -> MailSendOutcome
}

/// One try's outcome: `reason` is short and names no secret (it is logged and stored).
public enum MailSendOutcome: Equatable, Sendable {
    case sent
    case failed(reason: String)
}
