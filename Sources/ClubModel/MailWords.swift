/// The mail's words in the six languages (subject and text of each kind, the links' labels).
/// Placeholders: {name} {weekday} {date} {time} {title} {at} {in} {capacity} {waiting} {expiry}.
enum MailWords {
    struct Kind {
        let subject: String
        let text: String
    }

    struct Words {
        let greeting: String
        let at: String
        let kinds: [MailKind: Kind]
        /// Labels of the links: in, out, page, claim.
        let links: [String: String]
        /// Between a label and its link (French puts a space before the colon).
        var colon = ": "
    }

    static func words(_ language: Language) -> Words { table[language]! }

    static let table: [Language: Words] = [
        .en: Words(
            greeting: "Hello {name},", at: " at {place}",
            kinds: [
                .reminder: Kind(subject: "{weekday} {title}, {time}: are you in?",
                                text: "{weekday} {date}, {title}, {time}{at}: you have not answered yet. {in} of {capacity} in, {waiting} waiting."),
                .offer: Kind(subject: "A place is yours: {weekday} {title}, {time}",
                             text: "A place has freed up for {weekday} {date}, {title}, {time}{at}. It is yours until {expiry}: claim it or pass on your page."),
                .promoted: Kind(subject: "You're in: {weekday} {title}, {time}",
                                text: "A place has freed up for {weekday} {date}, {title}, {time}{at}, and it is yours: you're in."),
                .cancelled: Kind(subject: "Cancelled: {weekday} {title}, {time}",
                                 text: "{weekday} {date}, {title}, {time}{at} is cancelled."),
            ],
            links: ["in": "I'm in", "out": "I can't come", "page": "Your page", "claim": "Claim or pass"]),
        .es: Words(
            greeting: "Hola, {name}:", at: " en {place}",
            kinds: [
                .reminder: Kind(subject: "{weekday} {title}, {time}: ¿vienes?",
                                text: "{weekday} {date}, {title}, {time}{at}: aún no has respondido. {in} de {capacity} apuntados, {waiting} en espera."),
                .offer: Kind(subject: "Tienes una plaza: {weekday} {title}, {time}",
                             text: "Se ha liberado una plaza para el {weekday} {date}, {title}, {time}{at}. Es tuya hasta el {expiry}: acéptala o déjala en tu página."),
                .promoted: Kind(subject: "Estás dentro: {weekday} {title}, {time}",
                                text: "Se ha liberado una plaza para el {weekday} {date}, {title}, {time}{at}, y es tuya: estás dentro."),
                .cancelled: Kind(subject: "Cancelado: {weekday} {title}, {time}",
                                 text: "{weekday} {date}, {title}, {time}{at}: cancelado."),
            ],
            links: ["in": "Voy", "out": "No puedo ir", "page": "Tu página", "claim": "Aceptar o dejar la plaza"]),
        .fr: Words(
            greeting: "Bonjour {name},", at: " à {place}",
            kinds: [
                .reminder: Kind(subject: "{weekday} {title}, {time} : vous venez ?",
                                text: "{weekday} {date}, {title}, {time}{at} : vous n'avez pas encore répondu. {in} sur {capacity} inscrits, {waiting} en attente."),
                .offer: Kind(subject: "Une place pour vous : {weekday} {title}, {time}",
                             text: "Une place s'est libérée pour {weekday} {date}, {title}, {time}{at}. Elle est à vous jusqu'à {expiry} : prenez-la ou laissez-la sur votre page."),
                .promoted: Kind(subject: "Vous êtes inscrit : {weekday} {title}, {time}",
                                text: "Une place s'est libérée pour {weekday} {date}, {title}, {time}{at}, et elle est à vous : vous êtes inscrit."),
                .cancelled: Kind(subject: "Annulé : {weekday} {title}, {time}",
                                 text: "{weekday} {date}, {title}, {time}{at} est annulé."),
            ],
            links: ["in": "Je viens", "out": "Je ne peux pas venir", "page": "Votre page", "claim": "Prendre ou laisser la place"],
            colon: " : "),
        .de: Words(
            greeting: "Hallo {name},", at: " in {place}",
            kinds: [
                .reminder: Kind(subject: "{weekday} {title}, {time}: bist du dabei?",
                                text: "{weekday} {date}, {title}, {time}{at}: du hast noch nicht geantwortet. {in} von {capacity} dabei, {waiting} auf der Warteliste."),
                .offer: Kind(subject: "Ein Platz für dich: {weekday} {title}, {time}",
                             text: "Für {weekday} {date}, {title}, {time}{at} ist ein Platz frei geworden. Er gehört dir bis {expiry}: nimm ihn an oder gib ihn ab auf deiner Seite."),
                .promoted: Kind(subject: "Du bist dabei: {weekday} {title}, {time}",
                                text: "Für {weekday} {date}, {title}, {time}{at} ist ein Platz frei geworden, und er gehört dir: du bist dabei."),
                .cancelled: Kind(subject: "Abgesagt: {weekday} {title}, {time}",
                                 text: "{weekday} {date}, {title}, {time}{at} ist abgesagt."),
            ],
            links: ["in": "Ich bin dabei", "out": "Ich kann nicht", "page": "Deine Seite", "claim": "Platz annehmen oder abgeben"]),
        .it: Words(
            greeting: "Ciao {name},", at: " a {place}",
            kinds: [
                .reminder: Kind(subject: "{weekday} {title}, {time}: ci sei?",
                                text: "{weekday} {date}, {title}, {time}{at}: non hai ancora risposto. {in} su {capacity} presenti, {waiting} in attesa."),
                .offer: Kind(subject: "Un posto per te: {weekday} {title}, {time}",
                             text: "Si è liberato un posto per {weekday} {date}, {title}, {time}{at}. È tuo fino a {expiry}: prendilo o lascialo dalla tua pagina."),
                .promoted: Kind(subject: "Ci sei: {weekday} {title}, {time}",
                                text: "Si è liberato un posto per {weekday} {date}, {title}, {time}{at}, ed è tuo: ci sei."),
                .cancelled: Kind(subject: "Annullata: {weekday} {title}, {time}",
                                 text: "{weekday} {date}, {title}, {time}{at} è annullata."),
            ],
            links: ["in": "Ci sono", "out": "Non posso venire", "page": "La tua pagina", "claim": "Prendi o lascia il posto"]),
        .pt: Words(
            greeting: "Olá {name},", at: " em {place}",
            kinds: [
                .reminder: Kind(subject: "{weekday} {title}, {time}: vem?",
                                text: "{weekday} {date}, {title}, {time}{at}: ainda não respondeu. {in} de {capacity} confirmados, {waiting} em espera."),
                .offer: Kind(subject: "Há um lugar para si: {weekday} {title}, {time}",
                             text: "Ficou livre um lugar para {weekday} {date}, {title}, {time}{at}. É seu até {expiry}: aceite-o ou deixe-o na sua página."),
                .promoted: Kind(subject: "Está dentro: {weekday} {title}, {time}",
                                text: "Ficou livre um lugar para {weekday} {date}, {title}, {time}{at}, e é seu: está dentro."),
                .cancelled: Kind(subject: "Cancelado: {weekday} {title}, {time}",
                                 text: "{weekday} {date}, {title}, {time}{at} foi cancelado."),
            ],
            links: ["in": "Vou", "out": "Não posso ir", "page": "A sua página", "claim": "Aceitar ou deixar o lugar"]),
    ]
}
