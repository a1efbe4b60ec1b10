/// A setting `make up` cannot run with, or a step that failed; printed as "[up] error: <message>".
public struct UpError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// What happens to a process that dies while the system runs (`RESTART`).
public enum RestartPolicy: String, Sendable {
    /// It stays down and is reported.
    case no
    /// It is started again after `RESTART_DELAY`, like docker-compose's `restart: always`.
    case always
}

/// A duration setting in seconds, with the text it is given as: messages repeat that text
/// ("restarting it in 1s").
public struct Seconds: Sendable, Equatable {
    public let value: Double
    public let text: String

    init(_ name: String, _ environment: [String: String], default fallback: String) throws {
        let text = environment[name].flatMap { $0.isEmpty ? nil : $0 } ?? fallback
        guard let value = Double(text), value >= 0, value <= 1e9 else {
            throw UpError("\(name) must be a number of seconds, got '\(text)'")
        }
        self.value = value
        self.text = text
    }

    public var duration: Duration { .milliseconds(Int64((value * 1000).rounded())) }
}

/// One process to start: its display name, its executable and the variables it gets on top of
/// the plan's common environment.
public struct PlannedProcess: Sendable, Equatable {
    public var name: String
    public var executable: String
    public var environment: [String: String]
    /// Its `ADMIN_HTTP_PORT`, shown in its "started" line; nil when `ADMIN_PORT_BASE=off`.
    public var adminPort: Int?
    /// Printed once it has started (what a stand-in stands in for, and where).
    public var note: String?

    public init(
        name: String, executable: String, environment: [String: String] = [:], adminPort: Int? = nil,
        note: String? = nil
    ) {
        self.name = name
        self.executable = executable
        self.environment = environment
        self.adminPort = adminPort
        self.note = note
    }
}

/// A TCP port the run needs free on 127.0.0.1, and what to say when something holds it.
public struct PortClaim: Sendable, Equatable {
    public var port: Int
    public var message: String
}

/// Everything `make up` starts and how, planned from deploy/services.txt and the environment
/// (`Up.settings`) before anything starts.
public struct UpPlan: Sendable {
    /// The environment every process starts with: the supervisor's own plus what make up sets.
    public var environment: [String: String]
    /// The local stand-ins (SMTP sink, Open States, Stripe), started first.
    public var standIns: [PlannedProcess]
    /// The broker, then each service replica, then each gateway: the start order.
    public var processes: [PlannedProcess]
    /// Checked before anything starts: a port already taken would make a process fail later with
    /// a less obvious error, and a foreign server on HTTP_PORT would even answer readiness.
    public var ports: [PortClaim]
    /// printing's gazetteer, made by deploy/scripts/gazetteer.sh before the processes start.
    public var gazetteer: String?
    public var root: String
    public var httpPort: Int
    /// The first gateway's operator listener (the console), or nil with `OPERATOR_PORT=off`.
    public var operatorPort: Int?
    public var gateways: Int
    /// Width of the name column of the output ("broker   | ...").
    public var nameWidth: Int
    public var readyTimeout: Seconds
    public var brokerReadyTimeout: Seconds
    public var stopTimeout: Seconds
    public var restart: RestartPolicy
    public var restartDelay: Seconds

    /// The gateway whose /readyz says the system is up: `gateway`, or `gateway-1` of several.
    public var firstGateway: String { gateways == 1 ? "gateway" : "gateway-1" }
    public var readyURL: String { "http://127.0.0.1:\(httpPort)/readyz" }

    /// Plans the run. `workers` are deploy/services.txt's workers in order (`Registry`); `root`
    /// is the repository, for the stand-ins, the sample files and gazetteer.sh.
    public init(environment: [String: String], workers: [String], root: String) throws {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        self.root = root
        let services = value("SERVICES")?.split(whereSeparator: \.isWhitespace).map(String.init) ?? workers
        for service in services where !workers.contains(service) {
            throw UpError("unknown service '\(service)' in SERVICES (known: \(workers.joined(separator: " ")))")
        }
        guard let restart = RestartPolicy(rawValue: value("RESTART") ?? "no") else {
            throw UpError("RESTART must be no or always, not '\(environment["RESTART"] ?? "")'")
        }
        self.restart = restart
        restartDelay = try Seconds("RESTART_DELAY", environment, default: "1")
        readyTimeout = try Seconds("READY_TIMEOUT", environment, default: "60")
        stopTimeout = try Seconds("STOP_TIMEOUT", environment, default: "45")
        brokerReadyTimeout = try Seconds("BROKER_READY_TIMEOUT", environment, default: "15")
        let httpText = value("HTTP_PORT") ?? "8080"
        guard let httpPort = Int(httpText), (1...65535).contains(httpPort) else {
            throw UpError("HTTP_PORT must be a port number, got '\(httpText)'")
        }
        self.httpPort = httpPort
        let operatorText = value("OPERATOR_PORT") ?? "8090"
        let operatorPort: Int?
        if operatorText == "off" {
            operatorPort = nil
        } else if let port = Int(operatorText), (1...65535).contains(port), operatorText.allSatisfy(\.isNumber) {
            operatorPort = port
        } else {
            throw UpError("OPERATOR_PORT must be a port number or off, got '\(operatorText)'")
        }
        self.operatorPort = operatorPort
        let adminText = value("ADMIN_PORT_BASE") ?? "9100"
        let adminBase: Int?
        if adminText == "off" {
            adminBase = nil
        } else if adminText.first != "0", adminText.allSatisfy({ $0.isASCII && $0.isNumber }), let base = Int(adminText) {
            adminBase = base
        } else {
            throw UpError("ADMIN_PORT_BASE must be a port number or off, got '\(adminText)'")
        }
        let binDir = value("BACKPLANE_BIN_DIR") ?? "\(root)/.build/release"

        // The processes: broker, service replicas (name-1..name-N when REPLICAS_<name>=N>1), gateways.
        var names = ["broker"]
        for service in services {
            let variable = "REPLICAS_\(service)"
            let text = value(variable) ?? "1"
            guard let count = Int(text), count >= 0, text.allSatisfy(\.isNumber) else {
                throw UpError("\(variable) must be a number, got '\(text)'")
            }
            names += count == 1 ? [service] : (0..<count).map { "\(service)-\($0 + 1)" }
        }
        let gatewayText = value("REPLICAS_gateway") ?? "1"
        guard let gateways = Int(gatewayText), gateways >= 1, gatewayText.allSatisfy(\.isNumber) else {
            throw UpError("REPLICAS_gateway must be a number of at least 1, got '\(gatewayText)'")
        }
        self.gateways = gateways
        names += gateways == 1 ? ["gateway"] : (1...gateways).map { "gateway-\($0)" }
        nameWidth = max(8, names.map(\.count).max() ?? 0)
        processes = names.enumerated().map { index, name in
            var own: [String: String] = [:]
            // gateway-I listens on HTTP_PORT+I-1 (the others do not read HTTP_PORT), its console
            // on OPERATOR_PORT+I-1.
            if name.hasPrefix("gateway-"), let replica = Int(name.dropFirst("gateway-".count)) {
                own["HTTP_PORT"] = String(httpPort + replica - 1)
                operatorPort.map { own["OPERATOR_HTTP_PORT"] = String($0 + replica - 1) }
            } else if name == "gateway" {
                operatorPort.map { own["OPERATOR_HTTP_PORT"] = String($0) }
            }
            let admin = adminBase.map { $0 + index }
            if let admin {
                own["ADMIN_HTTP_PORT"] = String(admin)
                own["ADMIN_HTTP_HOST"] = "127.0.0.1"
            }
            return PlannedProcess(
                name: name, executable: "\(binDir)/\(UpPlan.executableName(of: name))", environment: own,
                adminPort: admin)
        }

        var ports = [PortClaim(port: httpPort, label: "HTTP_PORT")]
        ports += (1..<gateways).map { PortClaim(port: httpPort + $0, label: "HTTP_PORT+\($0)") }
        if let operatorPort {
            ports += (0..<gateways).map {
                PortClaim(port: operatorPort + $0, label: $0 == 0 ? "OPERATOR_PORT" : "OPERATOR_PORT+\($0)")
            }
        }
        for (name, fallback) in [
            ("BROKER_BIND", "tcp://127.0.0.1:5555"), ("EVENTS_XSUB_BIND", "tcp://127.0.0.1:5556"),
            ("EVENTS_XPUB_BIND", "tcp://127.0.0.1:5557"),
        ] {
            let endpoint = value(name) ?? fallback
            if let port = endpoint.split(separator: ":").last.flatMap({ Int($0) }) {
                ports.append(PortClaim(port: port, label: name))
            }
        }
        ports += processes.compactMap { process in
            process.adminPort.map { PortClaim(port: $0, label: "ADMIN_PORT_BASE(\(process.name))") }
        }

        // What every process is started with.
        var common = environment
        common["HTTP_PORT"] = String(httpPort)
        // /readyz waits for the services this run starts (the gateway's default names all of them).
        if value("READINESS_SERVICES") == nil { common["READINESS_SERVICES"] = services.joined(separator: ",") }
        // On one machine the load generator plays many phones through X-Forwarded-For: believe it
        // from loopback (production sets the address range of its own proxies; README "Rate limits").
        if environment["TRUSTED_PROXIES"] == nil { common["TRUSTED_PROXIES"] = "127.0.0.1,::1" }

        var standIns: [PlannedProcess] = []
        // The SMTP sink keeps every mail notify sends as a file; not when SMTP_HOST names a relay.
        if services.contains("notify"), (value("SMTP_SINK") ?? "1") == "1",
            (value("SMTP_HOST") ?? "127.0.0.1") == "127.0.0.1"
        {
            let port = value("SMTP_PORT") ?? "2525"
            let folder = value("SMTP_SINK_DIR") ?? "\(root)/.data/mail"
            common["SMTP_SINK_PORT"] = port
            common["SMTP_SINK_DIR"] = folder
            if let number = Int(port) {
                ports.append(PortClaim(
                    port: number, message: "port \(number) (SMTP_PORT) is already in use; set SMTP_PORT or SMTP_SINK=0"))
            }
            standIns.append(PlannedProcess(
                name: "smtp", executable: "\(root)/deploy/smtp-sink/smtp_sink.py",
                note: "mail notify sends lands in \(folder) (one .eml file per message)"))
        }
        // The Open States stand-in serves civic's importer the PolitiMap fixture.
        if services.contains("civic"), (value("CIVIC_STANDIN") ?? "1") == "1", value("CIVIC_FEED_URL") == nil {
            let port = value("CIVIC_STANDIN_PORT") ?? "8095"
            let feed = "http://127.0.0.1:\(port)"
            common["CIVIC_FEED_URL"] = feed
            if let number = Int(port) {
                ports.append(PortClaim(
                    port: number,
                    message: "port \(number) (CIVIC_STANDIN_PORT) is already in use; set it or CIVIC_STANDIN=0"))
            }
            standIns.append(PlannedProcess(
                name: "openstates", executable: "\(root)/deploy/openstates-standin/standin.py",
                environment: ["STANDIN_PORT": port], note: "civic imports from the Open States stand-in at \(feed)"))
        }
        // The Stripe stand-in, for orders with PAYMENT_PROVIDER=stripe and no STRIPE_BASE_URL.
        if services.contains("orders"), (value("PAYMENT_PROVIDER") ?? "sandbox") == "stripe",
            value("STRIPE_BASE_URL") == nil
        {
            let port = value("STRIPE_STANDIN_PORT") ?? "8096"
            let key = value("STRIPE_API_KEY") ?? "sk_test_standin"
            let base = "http://127.0.0.1:\(port)"
            common["STRIPE_API_KEY"] = key
            common["STRIPE_BASE_URL"] = base
            if let number = Int(port) {
                ports.append(PortClaim(
                    port: number,
                    message: "port \(number) (STRIPE_STANDIN_PORT) is already in use; set it or STRIPE_BASE_URL"))
            }
            standIns.append(PlannedProcess(
                name: "stripe", executable: "\(root)/deploy/stripe-standin/standin.py",
                environment: [
                    "STANDIN_PORT": port, "STANDIN_API_KEY": key,
                    "STANDIN_DELAY_MS": value("STRIPE_STANDIN_DELAY_MS") ?? "0",
                ],
                note: "orders pays through the Stripe stand-in at \(base) (its charges: \(base)/_standin/charges)"))
        }
        // The San Luis Obispo City Council's sample members, items, votes and positions (made up),
        // imported by civic at start; CIVIC_LOCAL_FILES= (empty) imports none.
        if environment["CIVIC_LOCAL_FILES"] == nil {
            common["CIVIC_LOCAL_FILES"] = "\(root)/deploy/civic/san_luis_obispo_city_council.sample.json"
        }
        // The printer's sample postage file (loaded by printing at start unless already stored).
        if value("POSTAGE_FILE") == nil {
            common["POSTAGE_FILE"] = "\(root)/services/printing/PrintingService/Resources/postage-sample.xml"
        }
        // The places greetings are suggested for (GeoNames cities of 15,000 people or more).
        gazetteer = nil
        if services.contains("printing"), value("GAZETTEER_FILE") == nil {
            let file = "\(root)/.data/gazetteer/cities15000.tsv"
            gazetteer = file
            common["GAZETTEER_FILE"] = file
        }
        self.environment = common
        self.standIns = standIns
        self.ports = ports
    }

    /// The executable a display name runs: `routing-2` runs `routing`.
    public static func executableName(of name: String) -> String {
        guard let dash = name.lastIndex(of: "-"), name[name.index(after: dash)...].allSatisfy(\.isNumber),
            dash != name.index(before: name.endIndex)
        else { return name }
        return String(name[..<dash])
    }

    /// The environment `process` starts with.
    public func environment(of process: PlannedProcess) -> [String: String] {
        environment.merging(process.environment) { _, own in own }
    }
}

extension PortClaim {
    init(port: Int, label: String) {
        self.init(
            port: port,
            message: "port \(port) (\(label)) is already in use: is Backplane already running? Stop it or set \(label)")
    }
}

/// deploy/services.txt, the one list of Backplane's processes.
public enum Registry {
    /// The names of `kind` (broker, worker, gateway, tool) in the file's order.
    public static func names(ofKind kind: String, in text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(whereSeparator: \.isWhitespace)
            guard fields.count >= 2, !fields[0].hasPrefix("#"), fields[1] == kind else { return nil }
            return String(fields[0])
        }
    }
}
