import Contract
import NotifyContract

/// Every kind notify can send, with its templates in English and Swedish.
public enum NotificationCatalog {
    static let allChannels = Notify.Channel.all
    static let pushAndInbox = [Notify.Channel.push, Notify.Channel.inapp]

    /// The kinds by name.
    public static let kinds: [Notify.Kind: NotificationKind] = Dictionary(
        uniqueKeysWithValues: list.map { ($0.name, $0) })

    /// The kind named `name`, or `invalid_argument`.
    public static func kind(_ name: Notify.Kind) throws(ServiceError) -> NotificationKind {
        guard let kind = kinds[name] else {
            throw ServiceError(
                .invalidArgument, "unknown notification kind '\(name)'",
                details: ["field": .string("kind"), "kinds": .array(kinds.keys.map(\.rawValue).sorted().map { .string($0) })])
        }
        return kind
    }

    static let list: [NotificationKind] = [
        NotificationKind(
            name: Notify.Kind.passwordReset, critical: true, channels: [Notify.Channel.email],
            variables: ["username", "token", "expiresAt"],
            templates: [
                "en": Template(
                    title: "Reset your password",
                    text: "Hello {{username}},\n\nUse this code to choose a new password: {{token}}\n"
                        + "It works once, until {{expiresAt}}.\nIf you did not ask for it, ignore this mail.\n",
                    html: "<p>Hello {{username}},</p><p>Use this code to choose a new password: "
                        + "<code>{{token}}</code></p><p>It works once, until {{expiresAt}}. "
                        + "If you did not ask for it, ignore this mail.</p>"),
                "sv": Template(
                    title: "Återställ ditt lösenord",
                    text: "Hej {{username}},\n\nAnvänd den här koden för att välja ett nytt lösenord: {{token}}\n"
                        + "Den gäller en gång, till {{expiresAt}}.\n",
                    html: "<p>Hej {{username}},</p><p>Använd den här koden för att välja ett nytt lösenord: "
                        + "<code>{{token}}</code></p><p>Den gäller en gång, till {{expiresAt}}.</p>"),
            ]),
        NotificationKind(
            name: Notify.Kind.usernameReminder, critical: true, channels: [Notify.Channel.email],
            variables: ["usernames"],
            templates: [
                "en": Template(
                    title: "Your username",
                    text: "The accounts registered with this address: {{usernames}}\n",
                    html: "<p>The accounts registered with this address: <b>{{usernames}}</b></p>"),
                "sv": Template(
                    title: "Ditt användarnamn",
                    text: "Kontona som är registrerade med den här adressen: {{usernames}}\n",
                    html: "<p>Kontona som är registrerade med den här adressen: <b>{{usernames}}</b></p>"),
            ]),
        NotificationKind(
            name: Notify.Kind.orderSucceeded, critical: false, channels: allChannels, variables: ["orderId"],
            templates: [
                "en": Template(
                    title: "Thank you for your order",
                    text: "Order {{orderId}} is paid. We will tell you when it is on its way.",
                    html: "<p>Order <b>{{orderId}}</b> is paid. We will tell you when it is on its way.</p>"),
                "sv": Template(
                    title: "Tack för din beställning",
                    text: "Beställning {{orderId}} är betald. Vi hör av oss när den är på väg.",
                    html: "<p>Beställning <b>{{orderId}}</b> är betald. Vi hör av oss när den är på väg.</p>"),
            ]),
        NotificationKind(
            name: Notify.Kind.orderMailed, critical: false, channels: allChannels, variables: ["orderId"],
            templates: [
                "en": Template(
                    title: "Your postcard is on its way",
                    text: "Every card of order {{orderId}} is printed and handed to the post.",
                    html: "<p>Every card of order <b>{{orderId}}</b> is printed and handed to the post.</p>"),
                "sv": Template(
                    title: "Ditt vykort är på väg",
                    text: "Alla kort i beställning {{orderId}} är tryckta och lämnade till posten.",
                    html: "<p>Alla kort i beställning <b>{{orderId}}</b> är tryckta och lämnade till posten.</p>"),
            ]),
        NotificationKind(
            name: Notify.Kind.orderFailed, critical: false, channels: allChannels, variables: ["orderId", "reason"],
            templates: [
                "en": Template(
                    title: "Your order could not be completed",
                    text: "Order {{orderId}} failed: {{reason}}",
                    html: "<p>Order <b>{{orderId}}</b> failed: {{reason}}</p>"),
                "sv": Template(
                    title: "Din beställning kunde inte slutföras",
                    text: "Beställning {{orderId}} misslyckades: {{reason}}",
                    html: "<p>Beställning <b>{{orderId}}</b> misslyckades: {{reason}}</p>"),
            ]),
        NotificationKind(
            name: Notify.Kind.orderRefunded, critical: false, channels: allChannels, variables: ["orderId", "amount"],
            templates: [
                "en": Template(
                    title: "Your money is on its way back",
                    text: "{{amount}} of order {{orderId}} is refunded to your card. "
                        + "Your bank may take a few days to show it.",
                    html: "<p><b>{{amount}}</b> of order <b>{{orderId}}</b> is refunded to your card. "
                        + "Your bank may take a few days to show it.</p>"),
                "sv": Template(
                    title: "Dina pengar är på väg tillbaka",
                    text: "{{amount}} för beställning {{orderId}} återbetalas till ditt kort. "
                        + "Det kan ta några dagar innan banken visar det.",
                    html: "<p><b>{{amount}}</b> för beställning <b>{{orderId}}</b> återbetalas till ditt kort. "
                        + "Det kan ta några dagar innan banken visar det.</p>"),
            ]),
        NotificationKind(
            name: Notify.Kind.orderDisputed, critical: false, channels: allChannels, variables: ["orderId"],
            templates: [
                "en": Template(
                    title: "Your bank disputes a payment",
                    text: "Your bank told us it disputes the payment for order {{orderId}}. "
                        + "We will answer the bank; it decides and tells you the outcome.",
                    html: "<p>Your bank told us it disputes the payment for order <b>{{orderId}}</b>. "
                        + "We will answer the bank; it decides and tells you the outcome.</p>"),
                "sv": Template(
                    title: "Din bank bestrider en betalning",
                    text: "Din bank har meddelat oss att den bestrider betalningen för beställning {{orderId}}. "
                        + "Vi svarar banken; den avgör och meddelar dig utfallet.",
                    html: "<p>Din bank har meddelat oss att den bestrider betalningen för beställning "
                        + "<b>{{orderId}}</b>. Vi svarar banken; den avgör och meddelar dig utfallet.</p>"),
            ]),
        NotificationKind(
            name: Notify.Kind.printJobFailed, critical: false, channels: allChannels, variables: ["jobId", "reason"],
            templates: [
                "en": Template(
                    title: "Your card could not be made",
                    text: "Card {{jobId}} could not be made: {{reason}}. Your payment is refunded.",
                    html: "<p>Card <b>{{jobId}}</b> could not be made: {{reason}}. Your payment is refunded.</p>")
            ]),
        NotificationKind(
            name: Notify.Kind.goalCompleted, critical: false, channels: pushAndInbox, variables: ["goal", "reward"],
            templates: [
                "en": Template(
                    title: "Goal reached!", text: "You reached your goal of {{goal}}. Your reward: {{reward}}",
                    html: "<p>You reached your goal of {{goal}}. Your reward: <b>{{reward}}</b></p>")
            ]),
        NotificationKind(
            name: Notify.Kind.ecard, critical: false, channels: [Notify.Channel.email],
            variables: ["senderName", "imageUrl", "message"],
            templates: [
                "en": Template(
                    title: "{{senderName}} sent you an e-card", text: "{{message}}\n\nSee your card: {{imageUrl}}\n",
                    html: "<p>{{message}}</p><p><img src=\"{{imageUrl}}\" alt=\"e-card from {{senderName}}\"></p>")
            ]),
        NotificationKind(
            name: Notify.Kind.reminder, critical: false, channels: pushAndInbox, variables: ["text"],
            templates: [
                "en": Template(title: "Reminder", text: "{{text}}", html: "<p>{{text}}</p>"),
                "sv": Template(title: "Påminnelse", text: "{{text}}", html: "<p>{{text}}</p>"),
            ]),
        NotificationKind(
            name: Notify.Kind.hydrationReminder, critical: false, channels: pushAndInbox, variables: ["text"],
            templates: [
                "en": Template(title: "Time for some water", text: "{{text}}", html: "<p>{{text}}</p>"),
                "sv": Template(title: "Dags för lite vatten", text: "{{text}}", html: "<p>{{text}}</p>"),
            ]),
        NotificationKind(
            name: Notify.Kind.friendRequest, critical: false, channels: pushAndInbox, variables: ["fromName"],
            templates: [
                "en": Template(
                    title: "New friend request", text: "{{fromName}} wants to be your friend",
                    html: "<p><b>{{fromName}}</b> wants to be your friend</p>"),
                "sv": Template(
                    title: "Ny vänförfrågan", text: "{{fromName}} vill bli din vän",
                    html: "<p><b>{{fromName}}</b> vill bli din vän</p>"),
            ]),
        NotificationKind(
            name: Notify.Kind.friendAccepted, critical: false, channels: pushAndInbox, variables: ["byName"],
            templates: [
                "en": Template(
                    title: "Friend request accepted", text: "{{byName}} accepted your friend request",
                    html: "<p><b>{{byName}}</b> accepted your friend request</p>")
            ]),
        NotificationKind(
            name: Notify.Kind.giftReceived, critical: false, channels: pushAndInbox, variables: ["fromName", "title"],
            templates: [
                "en": Template(
                    title: "A gift is on its way", text: "{{fromName}} sent you a gift: {{title}}",
                    html: "<p><b>{{fromName}}</b> sent you a gift: {{title}}</p>")
            ]),
        NotificationKind(
            name: Notify.Kind.newBill, critical: false, channels: pushAndInbox, variables: ["title", "level"],
            templates: [
                "en": Template(
                    title: "New {{level}} bill", text: "{{title}}", html: "<p>{{title}}</p>")
            ]),
        NotificationKind(
            name: Notify.Kind.classReminder, critical: false, channels: pushAndInbox,
            variables: ["module", "moduleName", "classKind", "start", "location"],
            templates: [
                "en": Template(
                    title: "{{module}} {{classKind}} at {{start}}",
                    text: "Your {{module}} {{moduleName}} {{classKind}} starts at {{start}} in {{location}}.",
                    html: "<p>Your <b>{{module}} {{moduleName}}</b> {{classKind}} starts at {{start}} in {{location}}.</p>"),
                "sv": Template(
                    title: "{{module}} ({{classKind}}) kl. {{start}}",
                    text: "{{module}} {{moduleName}} ({{classKind}}) börjar {{start}} i {{location}}.",
                    html: "<p><b>{{module}} {{moduleName}}</b> ({{classKind}}) börjar {{start}} i {{location}}.</p>"),
            ]),
        NotificationKind(
            name: Notify.Kind.classMoved, critical: false, channels: pushAndInbox,
            variables: ["module", "moduleName", "classKind", "start", "location", "newStart", "newLocation"],
            templates: [
                "en": Template(
                    title: "{{module}} {{classKind}} moved",
                    text: "Your {{module}} {{moduleName}} {{classKind}} of {{start}} in {{location}} is now at "
                        + "{{newStart}} in {{newLocation}}.",
                    html: "<p>Your <b>{{module}} {{moduleName}}</b> {{classKind}} of {{start}} in {{location}} is now at "
                        + "<b>{{newStart}}</b> in <b>{{newLocation}}</b>.</p>"),
                "sv": Template(
                    title: "{{module}} ({{classKind}}) flyttad",
                    text: "{{module}} {{moduleName}} ({{classKind}}) {{start}} i {{location}} är flyttad till "
                        + "{{newStart}} i {{newLocation}}.",
                    html: "<p><b>{{module}} {{moduleName}}</b> ({{classKind}}) {{start}} i {{location}} är flyttad till "
                        + "<b>{{newStart}}</b> i <b>{{newLocation}}</b>.</p>"),
            ]),
        NotificationKind(
            name: Notify.Kind.classSeriesMoved, critical: false, channels: pushAndInbox,
            variables: ["module", "moduleName", "classKind", "from", "start", "location", "newStart", "newLocation"],
            templates: [
                "en": Template(
                    title: "{{module}} {{classKind}} moves from {{from}}",
                    text: "From {{from}} your {{module}} {{moduleName}} {{classKind}} moves: the one of {{start}} in "
                        + "{{location}} is at {{newStart}} in {{newLocation}}, and every later one moves the same way.",
                    html: "<p>From {{from}} your <b>{{module}} {{moduleName}}</b> {{classKind}} moves: the one of "
                        + "{{start}} in {{location}} is at <b>{{newStart}}</b> in <b>{{newLocation}}</b>, and every "
                        + "later one moves the same way.</p>"),
                "sv": Template(
                    title: "{{module}} ({{classKind}}) flyttas från {{from}}",
                    text: "Från {{from}} flyttas {{module}} {{moduleName}} ({{classKind}}): den {{start}} i "
                        + "{{location}} är {{newStart}} i {{newLocation}}, och alla senare flyttas likadant.",
                    html: "<p>Från {{from}} flyttas <b>{{module}} {{moduleName}}</b> ({{classKind}}): den {{start}} i "
                        + "{{location}} är <b>{{newStart}}</b> i <b>{{newLocation}}</b>, och alla senare flyttas "
                        + "likadant.</p>"),
            ]),
        NotificationKind(
            name: Notify.Kind.classCancelled, critical: false, channels: pushAndInbox,
            variables: ["module", "moduleName", "classKind", "start", "location"],
            templates: [
                "en": Template(
                    title: "{{module}} {{classKind}} cancelled",
                    text: "Your {{module}} {{moduleName}} {{classKind}} of {{start}} in {{location}} is cancelled.",
                    html: "<p>Your <b>{{module}} {{moduleName}}</b> {{classKind}} of {{start}} in {{location}} is "
                        + "<b>cancelled</b>.</p>"),
                "sv": Template(
                    title: "{{module}} ({{classKind}}) inställd",
                    text: "{{module}} {{moduleName}} ({{classKind}}) {{start}} i {{location}} är inställd.",
                    html: "<p><b>{{module}} {{moduleName}}</b> ({{classKind}}) {{start}} i {{location}} är "
                        + "<b>inställd</b>.</p>"),
            ]),
        NotificationKind(
            name: Notify.Kind.message, critical: false, channels: allChannels, variables: ["title", "body"],
            templates: [
                "en": Template(title: "{{title}}", text: "{{body}}", html: "<p>{{body}}</p>")
            ]),
    ]
}
