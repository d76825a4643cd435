/// Which endpoint of the club's API a method and path name. Pure: the I/O layer asks, then runs it.
public enum ClubRoute: Equatable, Sendable {
    case register, login, logout
    case club, changeClub
    case addMember, changeMember(String), removeMember(String), newLink(String)
    case addFixture, changeFixture(String)
    case date(String), changeDate(String), answerFor(String), cancelDate(String)
    case memberView(token: String), memberAnswer(token: String), memberClaim(token: String), memberPass(token: String)
    case memberCalendar(token: String)
    case advanceTestClock

    public static let apiPrefix = "/club/api/"
    /// The member's pages live under `/club/m/TOKEN`; only the calendar is read from the database.
    public static let memberPagePrefix = "/club/m/"

    /// Why a path is refused, when it is: an unknown path is 404; a known path with another
    /// method is 405 (with the methods it takes).
    public enum Miss: Error, Equatable, Sendable {
        case notFound
        case methodNotAllowed(allowed: [String])
    }

    public static func match(method: String, path: String) -> Result<ClubRoute, Miss> {
        if path.hasPrefix(memberPagePrefix) {
            let parts = path.dropFirst(memberPagePrefix.count).split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[1] == "calendar.ics", let token = token(parts[0]) else { return .failure(.notFound) }
            return method == "GET" ? .success(.memberCalendar(token: token)) : .failure(.methodNotAllowed(allowed: ["GET"]))
        }
        guard path.hasPrefix(apiPrefix) else { return .failure(.notFound) }
        let parts = path.dropFirst(apiPrefix.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 64 }) else { return .failure(.notFound) }
        let byMethod: [String: ClubRoute]
        switch parts.count {
        case 1:
            switch parts[0] {
            case "register": byMethod = ["POST": .register]
            case "login": byMethod = ["POST": .login]
            case "logout": byMethod = ["POST": .logout]
            case "club": byMethod = ["GET": .club, "PATCH": .changeClub]
            case "members": byMethod = ["POST": .addMember]
            case "fixtures": byMethod = ["POST": .addFixture]
            default: return .failure(.notFound)
            }
        case 2:
            let id = parts[1]
            switch parts[0] {
            case "members": byMethod = ["PATCH": .changeMember(id), "DELETE": .removeMember(id)]
            case "fixtures": byMethod = ["PATCH": .changeFixture(id)]
            case "dates": byMethod = ["GET": .date(id), "PATCH": .changeDate(id)]
            case "m":
                guard let token = token(Substring(id)) else { return .failure(.notFound) }
                byMethod = ["GET": .memberView(token: token)]
            case "test" where id == "clock": byMethod = ["POST": .advanceTestClock]
            default: return .failure(.notFound)
            }
        case 3:
            let id = parts[1]
            switch (parts[0], parts[2]) {
            case ("members", "link"): byMethod = ["POST": .newLink(id)]
            case ("dates", "answer"): byMethod = ["POST": .answerFor(id)]
            case ("dates", "cancel"): byMethod = ["POST": .cancelDate(id)]
            case ("m", "answer"), ("m", "claim"), ("m", "pass"):
                guard let token = token(Substring(id)) else { return .failure(.notFound) }
                let route: ClubRoute = switch parts[2] {
                case "answer": .memberAnswer(token: token)
                case "claim": .memberClaim(token: token)
                default: .memberPass(token: token)
                }
                byMethod = ["POST": route]
            default: return .failure(.notFound)
            }
        default:
            return .failure(.notFound)
        }
        if let route = byMethod[method] { return .success(route) }
        return .failure(.methodNotAllowed(allowed: byMethod.keys.sorted()))
    }

    /// A member token is 22 characters of unpadded base64url; anything else cannot be one (and is
    /// answered as any unknown token: 404).
    public static func token(_ text: Substring) -> String? {
        guard text.utf8.count == MemberLinks.tokenLength,
              text.utf8.allSatisfy({ MemberLinks.isBase64URL($0) }) else { return nil }
        return String(text)
    }

    /// Whether the route changes anything (and so must carry an `id`).
    public var isChange: Bool {
        switch self {
        case .club, .date, .memberView, .memberCalendar: false
        default: true
        }
    }
}
