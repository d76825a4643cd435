import Foundation
import GRDB
import GatherModel

/// How Model values become rows and back. Decoding never guesses: a value this build cannot read
/// throws, because a quietly dropped player or gather would be data loss.
enum Rows {
    // MARK: - JSON columns (active gather, history)

    static func json<Value: Encodable>(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func value<Value: Decodable>(_ type: Value.Type, fromJSON text: String, what: String) throws -> Value {
        do {
            return try JSONDecoder().decode(type, from: Data(text.utf8))
        } catch {
            throw StoreError("The stored \(what) cannot be read (\(error)); the database may be damaged.")
        }
    }

    // MARK: - Players

    static func upsert(_ player: Player, in db: Database) throws {
        let stats = player.stats
        try db.execute(sql: """
            INSERT INTO players (id, name, age, skill, position, favourite_team, rating, games, wins, draws, losses,
                                 goals, assists)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET name = excluded.name, age = excluded.age, skill = excluded.skill,
                position = excluded.position, favourite_team = excluded.favourite_team, rating = excluded.rating,
                games = excluded.games, wins = excluded.wins, draws = excluded.draws, losses = excluded.losses,
                goals = excluded.goals, assists = excluded.assists
            """, arguments: [player.id, player.name, player.age, player.skill?.rawValue, player.position?.rawValue,
                             player.favouriteTeam, player.rating, stats.games, stats.wins, stats.draws, stats.losses,
                             stats.goals, stats.assists])
    }

    /// Reads the first release's rows too (no rating or stats columns yet: the migration adds them).
    static func player(_ row: Row) throws -> Player {
        let id: Int = row["id"]
        let skill: String? = row["skill"]
        let position: String? = row["position"]
        let decodedSkill = try skill.map { try known(Skill(rawValue: $0), $0, what: "skill of player \(id)") }
        let stats = row.hasColumn("games")
            ? PlayerStats(games: row["games"], wins: row["wins"], draws: row["draws"], losses: row["losses"],
                          goals: row["goals"], assists: row["assists"])
            : .zero
        return Player(id: id, name: row["name"], age: row["age"], skill: decodedSkill,
                      position: try position.map { try known(Position(rawValue: $0), $0, what: "position of player \(id)") },
                      favouriteTeam: row["favourite_team"], rating: row.hasColumn("rating") ? row["rating"] : nil,
                      stats: stats, memberId: row.hasColumn("member_id") ? row["member_id"] : nil)
    }

    /// The player's club member link. Separate from `upsert`, which an earlier migration runs before
    /// the `member_id` column exists.
    static func writeMemberLink(_ player: Player, in db: Database) throws {
        try db.execute(sql: "UPDATE players SET member_id = ? WHERE id = ?", arguments: [player.memberId, player.id])
    }

    // MARK: - Pitches

    static func upsert(_ pitch: Pitch, in db: Database) throws {
        try db.execute(sql: """
            INSERT INTO pitches (id, name, gather_json, last_result_json) VALUES (?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET name = excluded.name, gather_json = excluded.gather_json,
                last_result_json = excluded.last_result_json
            """, arguments: [pitch.id, pitch.name, try pitch.gather.map(json), try pitch.lastResult.map(json)])
    }

    static func pitch(_ row: Row) throws -> Pitch {
        let id: Int = row["id"]
        let gather = try (row["gather_json"] as String?).map {
            try value(ActiveGather.self, fromJSON: $0, what: "active gather of pitch \(id)")
        }
        let lastResult = try (row.hasColumn("last_result_json") ? row["last_result_json"] as String? : nil).map {
            try value(HistoryEntry.self, fromJSON: $0, what: "last result of pitch \(id)")
        }
        return Pitch(id: id, name: row["name"], gather: gather, lastResult: lastResult)
    }

    // MARK: - Journal

    /// Sorted so that the same set is always stored as the same text.
    static func subjectsText(_ subjects: Set<Subject>) -> String {
        subjects.map(\.description).sorted().joined(separator: ",")
    }

    static func subjects(fromText text: String) throws -> Set<Subject> {
        var subjects = Set<Subject>()
        for part in text.split(separator: ",") {
            subjects.insert(try known(Subject(description: String(part)), String(part), what: "journal subject"))
        }
        return subjects
    }

    static func insert(_ entry: JournalEntry, in db: Database) throws {
        try db.execute(sql: """
            INSERT INTO journal (version, organiser, command_id, kind, subjects, at, pitch, summary, sentence)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [entry.version, entry.organiser, entry.commandID, entry.kind.rawValue,
                             subjectsText(entry.subjects), entry.at, entry.pitch, entry.summary,
                             try entry.sentence.map(json)])
    }

    static func journalEntry(_ row: Row) throws -> JournalEntry {
        let name: String = row["kind"]
        guard let kind = ActionKind(rawValue: name) else {
            throw StoreError("The journal's change kind \"\(name)\" cannot be read; the database may be damaged.")
        }
        return JournalEntry(version: row["version"], organiser: row["organiser"], commandID: row["command_id"],
                            kind: kind, subjects: try subjects(fromText: row["subjects"]), at: row["at"],
                            pitch: row["pitch"], summary: row["summary"],
                            sentence: try (row["sentence"] as String?).map {
                                try value(Sentence.self, fromJSON: $0, what: "activity sentence")
                            })
    }

    // MARK: - Replies

    static func storedReply(_ row: Row) throws -> StoredReply {
        let kind: String = row["kind"]
        let version: Int = row["version"]
        switch kind {
        case "ack":
            return .ack(version: version)
        case "rejected":
            let code: String = row["code"] ?? ""
            return .rejected(code: try known(RejectionCode(rawValue: code), code, what: "rejection code"),
                             message: row["message"] ?? "", version: version,
                             reason: try (row["sentence"] as String?).map {
                                 try value(Sentence.self, fromJSON: $0, what: "rejection sentence")
                             })
        default:
            throw StoreError("The stored reply kind \"\(kind)\" cannot be read; the database may be damaged.")
        }
    }

    /// `(kind, version, code, message, sentence)` columns for a reply.
    static func columns(of reply: StoredReply) throws
        -> (kind: String, version: Int, code: String?, message: String?, sentence: String?)
    {
        switch reply {
        case .ack(let version): ("ack", version, nil, nil, nil)
        case .rejected(let code, let message, let version, let reason):
            ("rejected", version, code.rawValue, message, try reason.map(json))
        }
    }

    // MARK: - Helpers

    private static func known<Value>(_ value: Value?, _ text: String, what: String) throws -> Value {
        guard let value else {
            throw StoreError("The stored \(what) \"\(text)\" is unknown to this build; the database may be damaged.")
        }
        return value
    }
}
