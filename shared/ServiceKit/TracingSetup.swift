import Foundation
import Logging
import ServiceLifecycle
import Telemetry

/// Turns tracing on from the environment (see ``Setting/tracing``), or leaves it off.
public enum TracingSetup {
    /// With `OTEL_EXPORTER_OTLP_ENDPOINT` set: installs swift-otel's tracer and answers the
    /// service that exports its spans (to run for the life of the process; its graceful shutdown
    /// sends what waits); otherwise nil and tracing stays off. A setting it cannot use stops the
    /// process, named.
    public static func bootstrap(process: String, environment: ProcessEnvironment, logger: Logger) throws
        -> (any Service)?
    {
        guard let endpoint = environment.string(.otlpEndpoint), !endpoint.isEmpty else { return nil }
        guard let parsed = URL(string: endpoint), let scheme = parsed.scheme, ["http", "https"].contains(scheme),
            let host = parsed.host
        else {
            throw ProcessEnvironment.InvalidSetting(
                name: Setting.otlpEndpoint.name, value: "(not shown)",
                expected: "an http:// or https:// URL, e.g. http://otel-collector:4318")
        }
        let protocolName = environment.string(.otlpProtocol) ?? ""
        guard protocolName.isEmpty || protocolName == "http/protobuf" else {
            // swift-otel's JSON writes trace and span ids in base64 where OTLP asks for hex, and
            // its gRPC exporter is not built in.
            throw ProcessEnvironment.InvalidSetting(
                name: Setting.otlpProtocol.name, value: protocolName, expected: "http/protobuf")
        }
        // What the log may show of it: no user or password a URL might carry.
        let shown = "\(scheme)://\(host)\(parsed.port.map { ":\($0)" } ?? "")"
        let samplerName = environment.string(.otelSampler) ?? ""
        guard let sampler = Traces.sampler(named: samplerName, argument: environment.string(.otelSamplerArgument))
        else {
            throw ProcessEnvironment.InvalidSetting(
                name: Setting.otelSampler.name, value: samplerName,
                expected: "one of \(Traces.samplerNames.joined(separator: ", ")), with OTEL_TRACES_SAMPLER_ARG a number from 0 to 1")
        }
        let delay = try environment.int(.otelScheduleDelay, in: 10...600_000)
        let capacity = try environment.int(.otelMaxQueue, in: 1...1_000_000)
        let name = environment.string(.otelServiceName).flatMap { $0.isEmpty ? nil : $0 } ?? process
        let (tracer, service) = try Traces.makeBackend(
            Traces.Export(
                endpoint: endpoint, serviceName: name,
                resource: ["service.version": BuildInfo.version, "service.instance.id": WorkerHost.instance],
                sampler: sampler, scheduleDelay: .milliseconds(delay), maxQueueSize: capacity),
            logger: logger)
        Traces.install(tracer)
        logger.info(
            "tracing on", metadata: ["endpoint": "\(shown)", "serviceName": "\(name)", "sampler": "\(samplerName)"])
        return service
    }
}
