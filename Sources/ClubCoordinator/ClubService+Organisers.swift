import ClubModel
import ClubStore
import GatherModel
import GatherSecurity

/// Organisers' accounts, as at the venue: scrypt (the shared `PasswordHasher`), the invite code,
/// the first account owns the club (decided by the store under a database lock, whichever
/// instance registers it), tokens kept only as SHA-256, login attempts counted in the database
/// so every instance shares the limit (Precision 17).
///
/// The KDF runs outside any transaction (it takes ~0.4 s). A replayed register or login id with
/// the same password gets the same status and body but a fresh token: a session token is never
/// stored in the kept replies (docs/PROTOCOL.md §19 says so).
extension ClubService {
    static let usernameBytes = 1...32
    static let passwordBytes = 8...128

    struct Credentials {
        let id: String
        let username: String
        let password: String

        /// What replies and limits are keyed by: the username ignoring case.
        var key: String { username.lowercased() }

        init(_ body: ClubBody) throws(Refusal) {
            id = try body.id()
            let name = try body.requiredString("username", maxBytes: 64).trimmingCharacters(in: .whitespaces)
            guard ClubService.usernameBytes.contains(name.utf8.count),
                  name.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0) })
            else { throw Refusal.invalid("username") }
            username = name
            password = try body.requiredString("password", maxBytes: 256)
            guard ClubService.passwordBytes.contains(password.utf8.count) else { throw Refusal.invalid("password") }
        }
    }

    func register(_ request: ClubRequest) throws -> ClubResponse {
        let body = try ClubBody(request.body)
        let credentials = try Credentials(body)
        let inviteCode = try body.requiredString("inviteCode", maxBytes: 64)
        let scope = "register:\(credentials.key)"
        if let replay = try replayedSession(scope: scope, credentials) { return replay }
        // A wrong invite code costs no KDF: checked before, and again in the change.
        guard try store.read({ try settings($0).inviteCode }) == inviteCode.uppercased() else { throw Refusal(.forbidden) }
        let hash = try kdf.run { configuration.passwordHasher.hash(credentials.password) }
        return try once(scope: scope, id: credentials.id, language: request.language) { transaction in
            guard inviteCode.uppercased() == (try settings(transaction).inviteCode) else { throw Refusal(.forbidden) }
            guard let organiser = try transaction.insertOrganiser(username: credentials.username, passwordHash: hash,
                                                                  now: try transaction.now())
            else { throw Refusal(.conflict, ["field": "username"]) }
            return try session(for: organiser, transaction)
        }
    }

    func login(_ request: ClubRequest) throws -> ClubResponse {
        let credentials = try Credentials(ClubBody(request.body))
        let scope = "login:\(credentials.key)"
        if let replay = try replayedSession(scope: scope, credentials) { return replay }
        let limits = (allowed: configuration.loginAttemptsAllowed, window: configuration.loginWindowMs)
        let (attempt, known): (Int64, ClubOrganiser?) = try store.change { transaction in
            switch try transaction.admitLogin(key: "login:\(credentials.key)", now: try transaction.now(),
                                              allowed: limits.allowed, windowMs: limits.window) {
            case .admitted(let attempt): return (attempt, try transaction.organiser(username: credentials.username))
            case .refused, .locked: throw Refusal(.rateLimited)
            }
        }
        let hasher = configuration.passwordHasher
        let matches = try kdf.run { hasher.verify(credentials.password, against: known?.passwordHash ?? hasher.decoy()) }
        return try once(scope: scope, id: credentials.id, language: request.language) { transaction in
            guard matches, let organiser = known else {
                try transaction.loginFailed(key: "login:\(credentials.key)", attempt: attempt, now: try transaction.now(),
                                            allowed: limits.allowed, windowMs: limits.window,
                                            lockoutMs: configuration.loginLockoutMs)
                throw Refusal(.unauthorized)
            }
            try transaction.loginSucceeded(attempt: attempt)
            return try session(for: organiser, transaction)
        }
    }

    func logout(_ request: ClubRequest) throws -> ClubResponse {
        let id = try ClubBody(request.body).id()
        guard let token = request.bearerToken else { throw Refusal(.unauthorized) }
        return try store.change { transaction in
            let organiser = try organiser(request, in: transaction)
            let scope = "organiser:\(organiser.username.lowercased())"
            if let kept = try transaction.keptReply(scope: scope, id: id) { return .kept(kept) }
            try transaction.deleteToken(hash: Digest.sha256Hex(token))
            let response = ClubResponse.json(200, [:])
            try transaction.keepReply(scope: scope, id: id, status: 200, body: "{}")
            return response
        }
    }

    /// A new token for `organiser`, and the answer a register or a login gives.
    private func session(for organiser: ClubOrganiser, _ transaction: ClubTransaction) throws -> ClubResponse {
        let token = SecureRandom.token()
        try transaction.insertToken(hash: Digest.sha256Hex(token), organiserId: organiser.id, now: try transaction.now())
        return .json(200, ["token": .string(token), "username": .string(organiser.username), "owner": .bool(organiser.owner)])
    }

    /// The same id again: a refusal is answered as it was; a success again only with the
    /// account's password (a new token in the same body); nil when the id is new.
    private func replayedSession(scope: String, _ credentials: Credentials) throws -> ClubResponse? {
        let found: (KeptReply, ClubOrganiser?)? = try store.read { transaction in
            guard let kept = try transaction.keptReply(scope: scope, id: credentials.id) else { return nil }
            return (kept, try transaction.organiser(username: credentials.username))
        }
        guard let (kept, organiser) = found else { return nil }
        guard kept.status == 200 else { return .kept(kept) }
        guard let organiser,
              try kdf.run({ configuration.passwordHasher.verify(credentials.password, against: organiser.passwordHash) })
        else { throw Refusal(.unauthorized) }
        return try store.change { try session(for: organiser, $0) }
    }
}
