import PostgresNIO

extension DatabaseSettings {
    /// The `sslmode` URL parameter, with libpq's meaning.
    public enum SSLMode: String, Sendable, CaseIterable {
        /// Plain TCP, no TLS.
        case disable
        /// TLS if the server offers it, without verifying its certificate.
        case prefer
        /// TLS, without verifying the server certificate.
        case require
        /// TLS, verifying the certificate chain and that it names the host.
        case verifyFull = "verify-full"

        /// The PostgresNIO TLS setting for this mode.
        var clientTLS: PostgresClient.Configuration.TLS {
            switch self {
            case .disable:
                return .disable
            case .prefer:
                var tls = TLSConfiguration.makeClientConfiguration()
                tls.certificateVerification = .none
                return .prefer(tls)
            case .require:
                var tls = TLSConfiguration.makeClientConfiguration()
                tls.certificateVerification = .none
                return .require(tls)
            case .verifyFull:
                return .require(.makeClientConfiguration())
            }
        }
    }
}
