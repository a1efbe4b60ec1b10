import Contract
import Foundation

/// The service-account key file Google issues (IAM → service accounts → keys → JSON): who we
/// are, the RSA key we sign token requests with, and where to exchange them.
public struct GoogleServiceAccount: Sendable, Decodable {
    /// `service_account`.
    public var type: String?
    /// The Firebase / Google Cloud project.
    public var projectId: String
    /// The account's e-mail (the assertion's `iss`).
    public var clientEmail: String
    /// The key's id (the assertion's `kid`).
    public var privateKeyId: String?
    /// The RSA private key, PKCS #8 PEM.
    public var privateKey: String
    /// Where assertions are exchanged for access tokens (`https://oauth2.googleapis.com/token`).
    public var tokenURI: String

    enum CodingKeys: String, CodingKey {
        case type
        case projectId = "project_id"
        case clientEmail = "client_email"
        case privateKeyId = "private_key_id"
        case privateKey = "private_key"
        case tokenURI = "token_uri"
    }

    /// An account as given.
    public init(
        projectId: String, clientEmail: String, privateKeyId: String?, privateKey: String,
        tokenURI: String = "https://oauth2.googleapis.com/token"
    ) {
        self.type = "service_account"
        self.projectId = projectId
        self.clientEmail = clientEmail
        self.privateKeyId = privateKeyId
        self.privateKey = privateKey
        self.tokenURI = tokenURI
    }

    /// Reads a key file; `invalid_argument` naming the file (never its content) when it cannot.
    public init(contentsOfFile path: String) throws(ServiceError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ServiceError.invalidArgument("cannot read the FCM service-account file \(path)")
        }
        do {
            self = try JSONDecoder().decode(Self.self, from: data)
        } catch {
            throw ServiceError.invalidArgument(
                "\(path) is not a Google service-account key file (JSON with project_id, client_email, private_key, "
                    + "token_uri)")
        }
        if let type, type != "service_account" {
            throw ServiceError.invalidArgument("\(path) is a \(type) key, not a service_account key")
        }
    }
}
