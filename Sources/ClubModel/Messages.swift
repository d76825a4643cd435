/// The club's words in six languages: every refusal's message and the group-chat text.
///
/// A table of our own rather than `DateFormatter`: the weekday must start the sentence
/// capitalised in every language (ICU gives "domingo", "dimanche"), the time is 24-hour `HH:MM`
/// everywhere as in the contract's example, and the output must not change with the ICU data of
/// whichever machine runs it. 42 weekday names are smaller than the code to correct ICU's.
public enum ClubMessages {
    /// The message for a refusal in `language`, its params filled in (`{field}`, `{capacity}`);
    /// a code whose params are missing gets its plain form.
    public static func refusal(_ refusal: Refusal, in language: Language) -> String {
        let entry = catalogue[language]![refusal.code]!
        return render(entry.withParams, refusal.params) ?? entry.plain
    }

    /// The weekday's name, capitalised (1 = Monday … 7 = Sunday).
    public static func weekdayName(_ weekday: Int, in language: Language) -> String {
        weekdays[language]![(max(1, min(7, weekday))) - 1]
    }

    /// The group-chat text for a date ("Sunday 7-a-side, 10:00 at Riverside: 9 of 14 in,
    /// 2 waiting. Answer here: LINK"), the weekday and time in the club's time zone. An empty
    /// place leaves out "at …".
    public static func groupChat(title: String, place: String, startsAt: Millis, confirmedSeats: Int, capacity: Int,
                                 waiting: Int, link: String, club: ClubTime, language: Language) -> String {
        let day = club.localDate(of: startsAt)
        let words = chat[language]!
        let at = place.isEmpty ? "" : render(words.at, ["place": place])!
        return render(words.text, [
            "weekday": weekdayName(day.isoWeekday, in: language), "title": title,
            "time": club.localTime(of: startsAt).description, "at": at, "in": String(confirmedSeats),
            "capacity": String(capacity), "waiting": String(waiting), "link": link,
        ])!
    }

    /// Fills `{key}` placeholders in one pass (a value holding "{link}" stays as written); nil when
    /// a placeholder has no value.
    static func render(_ template: String, _ values: [String: String]) -> String? {
        var output = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{") {
            output += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else { break }
            guard let value = values[String(rest[rest.index(after: open)..<close])] else { return nil }
            output += value
            rest = rest[rest.index(after: close)...]
        }
        return output + rest
    }

    struct Entry {
        let withParams: String
        let plain: String
        init(_ withParams: String, _ plain: String? = nil) {
            self.withParams = withParams
            self.plain = plain ?? withParams
        }
    }

    static let weekdays: [Language: [String]] = [
        .en: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
        .es: ["Lunes", "Martes", "Miércoles", "Jueves", "Viernes", "Sábado", "Domingo"],
        .fr: ["Lundi", "Mardi", "Mercredi", "Jeudi", "Vendredi", "Samedi", "Dimanche"],
        .de: ["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"],
        .it: ["Lunedì", "Martedì", "Mercoledì", "Giovedì", "Venerdì", "Sabato", "Domenica"],
        .pt: ["Segunda-feira", "Terça-feira", "Quarta-feira", "Quinta-feira", "Sexta-feira", "Sábado", "Domingo"],
    ]

    static let chat: [Language: (text: String, at: String)] = [
        .en: ("{weekday} {title}, {time}{at}: {in} of {capacity} in, {waiting} waiting. Answer here: {link}",
              " at {place}"),
        .es: ("{weekday} {title}, {time}{at}: {in} de {capacity} apuntados, {waiting} en espera. Responde aquí: {link}",
              " en {place}"),
        .fr: ("{weekday} {title}, {time}{at} : {in} sur {capacity} inscrits, {waiting} en attente. Répondez ici : {link}",
              " à {place}"),
        .de: ("{weekday} {title}, {time}{at}: {in} von {capacity} dabei, {waiting} auf der Warteliste. Hier antworten: {link}",
              " in {place}"),
        .it: ("{weekday} {title}, {time}{at}: {in} su {capacity} presenti, {waiting} in attesa. Rispondi qui: {link}",
              " a {place}"),
        .pt: ("{weekday} {title}, {time}{at}: {in} de {capacity} confirmados, {waiting} em espera. Responda aqui: {link}",
              " em {place}"),
    ]

    static let catalogue: [Language: [RefusalCode: Entry]] = [
        .en: [
            .invalid: Entry("This is not valid: {field}.", "This request is not valid."),
            .unauthorized: Entry("Please sign in again."),
            .forbidden: Entry("You are not allowed to do this."),
            .notFound: Entry("Not found."),
            .conflict: Entry("This conflicts with what is already there."),
            .closed: Entry("Answers are closed for this date."),
            .notOpenYet: Entry("Answers are not open yet for this date."),
            .full: Entry("The match has begun and it is full ({capacity} places).", "The match has begun and it is full."),
            .noRoomForGuests: Entry("There is no room for that many guests ({capacity} places).",
                                    "There is no room for that many guests."),
            .noOffer: Entry("You have no open offer for this date."),
            .rateLimited: Entry("Too many requests. Please try again in a moment."),
        ],
        .es: [
            .invalid: Entry("Este dato no es válido: {field}.", "La petición no es válida."),
            .unauthorized: Entry("Vuelve a iniciar sesión."),
            .forbidden: Entry("No tienes permiso para hacer esto."),
            .notFound: Entry("No se ha encontrado."),
            .conflict: Entry("Esto choca con lo que ya existe."),
            .closed: Entry("Las respuestas para esta fecha están cerradas."),
            .notOpenYet: Entry("Las respuestas para esta fecha aún no están abiertas."),
            .full: Entry("El partido ha empezado y está completo ({capacity} plazas).",
                         "El partido ha empezado y está completo."),
            .noRoomForGuests: Entry("No hay sitio para tantos invitados ({capacity} plazas).",
                                    "No hay sitio para tantos invitados."),
            .noOffer: Entry("No tienes ninguna oferta abierta para esta fecha."),
            .rateLimited: Entry("Demasiadas peticiones. Inténtalo de nuevo en un momento."),
        ],
        .fr: [
            .invalid: Entry("Cette valeur n'est pas valide : {field}.", "Cette demande n'est pas valide."),
            .unauthorized: Entry("Veuillez vous reconnecter."),
            .forbidden: Entry("Vous n'avez pas le droit de faire cela."),
            .notFound: Entry("Introuvable."),
            .conflict: Entry("Cela entre en conflit avec ce qui existe déjà."),
            .closed: Entry("Les réponses sont closes pour cette date."),
            .notOpenYet: Entry("Les réponses ne sont pas encore ouvertes pour cette date."),
            .full: Entry("Le match a commencé et il est complet ({capacity} places).",
                         "Le match a commencé et il est complet."),
            .noRoomForGuests: Entry("Il n'y a pas de place pour autant d'invités ({capacity} places).",
                                    "Il n'y a pas de place pour autant d'invités."),
            .noOffer: Entry("Vous n'avez pas d'offre ouverte pour cette date."),
            .rateLimited: Entry("Trop de demandes. Réessayez dans un instant."),
        ],
        .de: [
            .invalid: Entry("Dieser Wert ist ungültig: {field}.", "Diese Anfrage ist ungültig."),
            .unauthorized: Entry("Bitte melde dich erneut an."),
            .forbidden: Entry("Das darfst du nicht."),
            .notFound: Entry("Nicht gefunden."),
            .conflict: Entry("Das widerspricht etwas, das es schon gibt."),
            .closed: Entry("Die Antworten für diesen Termin sind geschlossen."),
            .notOpenYet: Entry("Die Antworten für diesen Termin sind noch nicht geöffnet."),
            .full: Entry("Das Spiel hat begonnen und ist voll ({capacity} Plätze).", "Das Spiel hat begonnen und ist voll."),
            .noRoomForGuests: Entry("Für so viele Gäste ist kein Platz ({capacity} Plätze).",
                                    "Für so viele Gäste ist kein Platz."),
            .noOffer: Entry("Du hast für diesen Termin kein offenes Angebot."),
            .rateLimited: Entry("Zu viele Anfragen. Bitte versuche es gleich noch einmal."),
        ],
        .it: [
            .invalid: Entry("Questo valore non è valido: {field}.", "Questa richiesta non è valida."),
            .unauthorized: Entry("Accedi di nuovo."),
            .forbidden: Entry("Non hai il permesso di farlo."),
            .notFound: Entry("Non trovato."),
            .conflict: Entry("Questo è in conflitto con ciò che esiste già."),
            .closed: Entry("Le risposte per questa data sono chiuse."),
            .notOpenYet: Entry("Le risposte per questa data non sono ancora aperte."),
            .full: Entry("La partita è iniziata ed è al completo ({capacity} posti).",
                         "La partita è iniziata ed è al completo."),
            .noRoomForGuests: Entry("Non c'è posto per così tanti ospiti ({capacity} posti).",
                                    "Non c'è posto per così tanti ospiti."),
            .noOffer: Entry("Non hai nessuna offerta aperta per questa data."),
            .rateLimited: Entry("Troppe richieste. Riprova tra un momento."),
        ],
        .pt: [
            .invalid: Entry("Este valor não é válido: {field}.", "Este pedido não é válido."),
            .unauthorized: Entry("Inicie sessão novamente."),
            .forbidden: Entry("Não tem permissão para fazer isto."),
            .notFound: Entry("Não encontrado."),
            .conflict: Entry("Isto entra em conflito com o que já existe."),
            .closed: Entry("As respostas para esta data estão fechadas."),
            .notOpenYet: Entry("As respostas para esta data ainda não estão abertas."),
            .full: Entry("O jogo já começou e está completo ({capacity} lugares).", "O jogo já começou e está completo."),
            .noRoomForGuests: Entry("Não há lugar para tantos convidados ({capacity} lugares).",
                                    "Não há lugar para tantos convidados."),
            .noOffer: Entry("Não tem nenhuma oferta aberta para esta data."),
            .rateLimited: Entry("Demasiados pedidos. Tente novamente daqui a pouco."),
        ],
    ]
}
