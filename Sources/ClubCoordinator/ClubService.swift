import ClubModel
import ClubStore
import Dispatch
import Foundation
import GatherModel
import GatherSecurity
import Logging

/// The club's scope: every API request is judged here, in one database transaction per change,
/// and answered only after it committed. Requests run on a small pool of worker threads (the
/// database calls block), so one slow request never holds the Transport's service thread.
///
/// Exactly once: a change's `id` is looked up in the kept replies inside the same transaction
/// that would apply it, so the same id on any instance gets the first answer and changes nothing.
public final class ClubService: Sendable {
    public struct Configuration: Sendable {
        /// Absolute base of the links shown to organisers and in the group-chat message, e.g.
        /// `https://club.example.org`; nil: taken from the request's `Host`.
        public var publicURL: String?
        public var testClock: Bool
        public var passwordHasher: PasswordHasher
        /// Attempts at one username within `loginWindowMs` before it is refused `rate_limited`, and
        /// how long it is then locked (kept in the database: every instance shares the count).
        public var loginAttemptsAllowed = 5
        public var loginWindowMs: Millis = 15 * 60_000
        public var loginLockoutMs: Millis = 15 * 60_000
        /// `--smtp` given: mail is claimed `pending` and sent; nil: claimed `unsent` (shown only).
        public var mail: MailConfiguration?

        public init(publicURL: String?, testClock: Bool, passwordHasher: PasswordHasher = PasswordHasher(),
                    mail: MailConfiguration? = nil) {
            self.publicURL = publicURL
            self.testClock = testClock
            self.passwordHasher = passwordHasher
            self.mail = mail
        }
    }

    /// What mail needs besides the SMTP link (which the sender holds).
    public struct MailConfiguration: Sendable {
        /// The envelope's and `From:`'s address (`--mail-from`).
        public var fromAddress: String
        /// The Message-ID's host: of `--public-url`, else `--host`.
        public var messageHost: String

        public init(fromAddress: String, messageHost: String) {
            self.fromAddress = fromAddress
            self.messageHost = messageHost
        }
    }

    let store: ClubStore
    let configuration: Configuration
    let logger: Logger
    /// Database work: as many at once as the store has connections.
    private let workers = DispatchQueue(label: "club.workers", attributes: .concurrent)
    private let slots: DispatchSemaphore
    /// The password KDF: two at a time, so a burst of logins cannot take every core.
    let kdf = KDFLimiter(running: 2, waiting: 16)
    /// Reminders held by quiet hours, by date: the clock does not lock those dates again until then.
    let heldReminders = HeldReminders()

    public init(store: ClubStore, configuration: Configuration, logger: Logger, concurrency: Int = 4) {
        self.store = store
        self.configuration = configuration
        self.logger = logger
        self.slots = DispatchSemaphore(value: concurrency)
    }

    /// Answers `request` through `reply`, once, from a worker thread.
    public func handle(_ request: ClubRequest, reply: @escaping @Sendable (ClubResponse) -> Void) {
        workers.async { [self] in
            slots.wait()
            defer { slots.signal() }
            reply(respond(to: request))
        }
    }

    /// The whole judgement of one request, synchronously (tests call it directly).
    public func respond(to request: ClubRequest) -> ClubResponse {
        let language = request.language
        let route: ClubRoute
        switch ClubRoute.match(method: request.method, path: request.path) {
        case .success(let found): route = found
        case .failure(.notFound): return .refusal(Refusal(.notFound), language: language)
        case .failure(.methodNotAllowed): return .refusal(Refusal.invalid("method"), language: language)
        }
        do {
            return try dispatch(route, request)
        } catch let refusal as Refusal {
            return .refusal(refusal, language: language)
        } catch let error as ClubStoreError {
            logger.warning("club request refused by the store", metadata: ["club.route": "\(route)", "club.error": "\(error)"])
            return .refusal(Refusal.invalid("body"), language: language)
        } catch {
            logger.error("club request failed", metadata: ["club.route": "\(route)", "club.error": "\(error)"])
            return .json(503, ["error": ["code": "unavailable", "message": "The club's database is not answering; try again.",
                                         "params": [:]]])
        }
    }

    private func dispatch(_ route: ClubRoute, _ request: ClubRequest) throws -> ClubResponse {
        switch route {
        case .register: return try register(request)
        case .login: return try login(request)
        case .logout: return try logout(request)
        case .club: return try clubView(request)
        case .changeClub: return try changeClub(request)
        case .addMember: return try addMember(request)
        case .changeMember(let id): return try changeMember(id, request)
        case .removeMember(let id): return try removeMember(id, request)
        case .newLink(let id): return try newLink(id, request)
        case .addFixture: return try addFixture(request)
        case .changeFixture(let id): return try changeFixture(id, request)
        case .date(let id): return try dateView(id, request)
        case .changeDate(let id): return try changeDate(id, request)
        case .answerFor(let id): return try answerFor(id, request)
        case .cancelDate(let id): return try cancelDate(id, request)
        case .memberView(let token): return try memberView(token, request)
        case .memberAnswer(let token): return try memberChange(token, request, .answer)
        case .memberClaim(let token): return try memberChange(token, request, .claim)
        case .memberPass(let token): return try memberChange(token, request, .pass)
        case .memberCalendar(let token): return try memberCalendar(token, request)
        case .advanceTestClock: return try advanceTestClock(request)
        }
    }

    // MARK: - Shared steps

    /// Runs a change exactly once for `(scope, id)`: a kept reply is answered again as it was;
    /// otherwise `body` decides, and its answer (refusals too, all but `rate_limited`) is kept in
    /// the same transaction.
    func once(scope: String, id: String, language: Language,
              _ body: (ClubTransaction) throws -> ClubResponse) throws -> ClubResponse {
        try store.change { transaction in
            if let kept = try transaction.keptReply(scope: scope, id: id) { return .kept(kept) }
            let response: ClubResponse
            do {
                response = try body(transaction)
            } catch let refusal as Refusal {
                response = .refusal(refusal, language: language)
            }
            if response.status != 429 {
                try transaction.keepReply(scope: scope, id: id, status: response.status, body: String(decoding: response.body, as: UTF8.self))
            }
            return response
        }
    }

    /// The organiser a bearer token stands for, or `unauthorized`.
    func organiser(_ request: ClubRequest, in transaction: ClubTransaction) throws -> ClubOrganiser {
        guard let token = request.bearerToken,
              let organiser = try transaction.organiser(tokenHash: Digest.sha256Hex(token), now: try transaction.now()) else {
            throw Refusal(.unauthorized)
        }
        return organiser
    }

    /// The base of absolute links: `--public-url`, else the request's `Host` (scheme from
    /// `X-Forwarded-Proto` behind a proxy).
    func publicBase(_ request: ClubRequest) -> String {
        if let configured = configuration.publicURL { return configured }
        let host = request.headers["host"].flatMap { $0.isEmpty || $0.utf8.count > 255 ? nil : $0 } ?? "localhost"
        let scheme = request.headers["x-forwarded-proto"] == "https" ? "https" : "http"
        return "\(scheme)://\(host)"
    }

    /// The club's settings row (made at the first start, so always there once serving).
    func settings(_ transaction: ClubTransaction) throws -> ClubSettings {
        guard let settings = try transaction.club() else { throw ClubStoreError("the club is not set up") }
        return settings
    }

    func memberLink(seed: String, secret: String, base: String) -> String {
        "\(base)/club/m/\(MemberLinks.token(seed: seed, secret: secret))"
    }
}

/// A bounded admission to the password KDF: at most `running` at once, at most `waiting` more
/// queued; anything beyond is refused at once (`rate_limited`) instead of piling up.
final class KDFLimiter: @unchecked Sendable {
    private let lock = NSLock()
    private let running: DispatchSemaphore
    private var admitted = 0
    private let capacity: Int

    init(running: Int, waiting: Int) {
        self.running = DispatchSemaphore(value: running)
        self.capacity = running + waiting
    }

    func run<T>(_ work: () throws -> T) throws -> T {
        lock.lock()
        guard admitted < capacity else {
            lock.unlock()
            throw Refusal(.rateLimited)
        }
        admitted += 1
        lock.unlock()
        running.wait()
        defer {
            running.signal()
            lock.lock()
            admitted -= 1
            lock.unlock()
        }
        return try work()
    }
}
