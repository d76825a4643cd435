import ClubModel
import GatherModel
import GatherSecurity

/// Organisers' accounts, as at the venue: scrypt (the shared `PasswordHasher`), the invite code,
/// the first account owns the club (decided under a database lock, whichever instance registers
/// it), tokens kept only as SHA-256, failed logins counted in the database so every instance
/// shares the limit.
///
/// The KDF runs outside any transaction (it takes ~0.4 s). A replayed register or login id with
/// the same password gets the same status and body with a fresh token: a session token is never
/// stored in the kept replies (docs/PROTOCOL.md says so).
extension ClubService {
    static let usernameBytes = 1...32
    static let passwordBytes = 8...128

    struct Credentials {
        let id: String
        let username: String
        let password: String

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
        let hash = try kdf.run { configuration.passwordHasher.hash(credentials.password) }
        return try once(scope: scope, id: credentials.id, language: request.language) { transaction in
            try transaction.lockOrganisers()
            guard inviteCode.uppercased() == (try transaction.settings().inviteCode) else { throw Refusal(.forbidden) }
            guard try transaction.organiser(username: credentials.username) == nil else { throw Refusal(.conflict) }
            let owner = try transaction.organiserCount() == 0
            try transaction.insertOrganiser(OrganiserRecord(username: credentials.username, passwordHash: hash, owner: owner))
            return try session(for: OrganiserRecord(username: credentials.username, passwordHash: hash, owner: owner), transaction)
        }
    }

    func login(_ request: ClubRequest) throws -> ClubResponse {
        let credentials = try Credentials(ClubBody(request.body))
        let scope = "login:\(credentials.key)"
        if let replay = try replayedSession(scope: scope, credentials) { return replay }
        let known: OrganiserRecord? = try database.change { transaction in
            let since = try transaction.now() - configuration.loginWindowMs
            guard try transaction.failedLogins(username: credentials.key, since: since) < configuration.failedLoginsAllowed else {
                throw Refusal(.rateLimited)
            }
            return try transaction.organiser(username: credentials.username)
        }
        let hasher = configuration.passwordHasher
        let matches = try kdf.run { hasher.verify(credentials.password, against: known?.passwordHash ?? hasher.decoy()) }
        return try once(scope: scope, id: credentials.id, language: request.language) { transaction in
            guard matches, let organiser = known else {
                try transaction.recordFailedLogin(username: credentials.key, at: try transaction.now())
                throw Refusal(.unauthorized)
            }
            return try session(for: organiser, transaction)
        }
    }

    func logout(_ request: ClubRequest) throws -> ClubResponse {
        let id = try ClubBody(request.body).id()
        guard let token = request.bearerToken else { throw Refusal(.unauthorized) }
        return try database.change { transaction in
            let organiser = try organiser(request, in: transaction)
            let scope = "organiser:\(organiser.username.lowercased())"
            if let kept = try transaction.keptReply(scope: scope, id: id) { return .kept(kept) }
            try transaction.deleteToken(hash: Digest.sha256Hex(token))
            let response = ClubResponse.json(200, [:])
            try transaction.keepReply(scope: scope, id: id, response.kept)
            return response
        }
    }

    /// A new token for `organiser`, and the answer a register or a login gives.
    private func session(for organiser: OrganiserRecord, _ transaction: any ClubTransaction) throws -> ClubResponse {
        let token = SecureRandom.token()
        try transaction.insertToken(hash: Digest.sha256Hex(token), username: organiser.username, at: try transaction.now())
        return .json(200, ["token": .string(token), "username": .string(organiser.username), "owner": .bool(organiser.owner)])
    }

    /// The same id again: answered as the first time when the password is the account's (a new
    /// token in the same body), as it was when that answer was a refusal; nil when the id is new.
    private func replayedSession(scope: String, _ credentials: Credentials) throws -> ClubResponse? {
        let found: (KeptReply, OrganiserRecord?)? = try database.change { transaction in
            guard let kept = try transaction.keptReply(scope: scope, id: credentials.id) else { return nil }
            return (kept, try transaction.organiser(username: credentials.username))
        }
        guard let (kept, organiser) = found else { return nil }
        guard kept.status == 200 else { return .kept(kept) }
        guard let organiser,
              try kdf.run({ configuration.passwordHasher.verify(credentials.password, against: organiser.passwordHash) })
        else { throw Refusal(.unauthorized) }
        return try database.change { try session(for: organiser, $0) }
    }
}
