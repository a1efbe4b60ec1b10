import Foundation

// notify-bench: delivery and scheduler figures for docs/notify.md. Needs DATABASE_URL (a
// throwaway schema is created and dropped) and python3 with aiosmtpd for the mail case.
let usage = """
    usage: notify-bench mail [--count N] [--sessions N] [--deliverers N] [--batch N]
           notify-bench push [--count N] [--concurrency N] [--deliverers N] [--batch N]
           notify-bench scheduler [--reminders N] [--compression X] [--replicas N] [--poll-ms N] [--batch N]
           notify-bench fcm-sink   (the FCM-like server the push case starts)
    """

let arguments = Array(CommandLine.arguments.dropFirst())
let options: [String: Double] = {
    var parsed: [String: Double] = [:]
    var index = 1
    while index + 1 < arguments.count, arguments[index].hasPrefix("--"), let value = Double(arguments[index + 1]) {
        parsed[String(arguments[index].dropFirst(2))] = value
        index += 2
    }
    return parsed
}()
func option(_ name: String, _ fallback: Int) -> Int { options[name].map { Int($0) } ?? fallback }

do {
    switch arguments.first {
    case "mail":
        let defaults = MailBench()
        try await MailBench(
            count: option("count", defaults.count), sessions: option("sessions", defaults.sessions),
            deliverers: option("deliverers", defaults.deliverers), batch: option("batch", defaults.batch)
        ).run()
    case "push":
        let defaults = PushBench()
        try await PushBench(
            count: option("count", defaults.count), concurrency: option("concurrency", defaults.concurrency),
            deliverers: option("deliverers", defaults.deliverers), batch: option("batch", defaults.batch)
        ).run()
    case "scheduler":
        let defaults = SchedulerBench()
        try await SchedulerBench(
            reminders: option("reminders", defaults.reminders),
            compression: options["compression"] ?? defaults.compression,
            replicas: option("replicas", defaults.replicas), pollMs: option("poll-ms", defaults.pollMs),
            batch: option("batch", defaults.batch)
        ).run()
    case "fcm-sink":
        try await FCMSink.run(port: option("port", 0))
    default:
        print(usage)
        exit(arguments.first == "--help" ? 0 : 2)
    }
} catch {
    FileHandle.standardError.write(Data("notify-bench: \(error)\n".utf8))
    exit(1)
}
