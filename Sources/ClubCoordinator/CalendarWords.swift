import ClubModel

/// The calendar's words for a date the member is not confirmed on ("Waiting (2nd)", "Offered",
/// "Out", "Not answered") in the six languages: a feed is read in a calendar app, not on our
/// pages, so its summary carries the state in the reader's language.
enum CalendarWords {
    static func state(_ answer: Answer?, position: Int?, language: Language) -> String {
        let words = table[language] ?? table[.en]!
        switch answer?.state {
        case .waiting?: return "\(words.waiting) (\(ordinal(position ?? 0, language)))"
        case .offered?: return words.offered
        case .out?: return words.out
        case .confirmed?, nil: return answer == nil ? words.notAnswered : words.waiting
        }
    }

    static func ordinal(_ number: Int, _ language: Language) -> String {
        switch language {
        case .en:
            let tens = number % 100
            let suffix = (11...13).contains(tens) ? "th" : ["th", "st", "nd", "rd", "th", "th", "th", "th", "th", "th"][number % 10]
            return "\(number)\(suffix)"
        case .fr: return number == 1 ? "1er" : "\(number)e"
        case .de: return "\(number)."
        case .es, .pt: return "\(number).º"
        case .it: return "\(number)º"
        }
    }

    struct Words {
        let waiting: String
        let offered: String
        let out: String
        let notAnswered: String
    }

    static let table: [Language: Words] = [
        .en: Words(waiting: "Waiting", offered: "A place is offered", out: "Out", notAnswered: "Not answered"),
        .es: Words(waiting: "En espera", offered: "Plaza ofrecida", out: "No voy", notAnswered: "Sin responder"),
        .fr: Words(waiting: "En attente", offered: "Place proposée", out: "Absent", notAnswered: "Sans réponse"),
        .de: Words(waiting: "Warteliste", offered: "Platz angeboten", out: "Abgesagt", notAnswered: "Keine Antwort"),
        .it: Words(waiting: "In attesa", offered: "Posto offerto", out: "Assente", notAnswered: "Nessuna risposta"),
        .pt: Words(waiting: "Em espera", offered: "Vaga oferecida", out: "Não vou", notAnswered: "Sem resposta"),
    ]
}
