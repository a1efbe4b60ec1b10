import Foundation
import JWTKit

/// The claims of an access token: who, which roles, until when.
public struct AccessClaims: JWTPayload, Equatable {
    /// The user id.
    public var sub: SubjectClaim
    /// The user's roles when the token was issued.
    public var roles: [String]
    /// Issued at.
    public var iat: IssuedAtClaim
    /// Expires at (15 minutes after `iat`).
    public var exp: ExpirationClaim
    /// Always `backplane`.
    public var iss: IssuerClaim

    /// The issuer every token names.
    public static let issuer = "backplane"

    public init(userId: String, roles: [String], issuedAt: Date, expiresAt: Date) {
        sub = SubjectClaim(value: userId)
        self.roles = roles
        iat = IssuedAtClaim(value: issuedAt)
        exp = ExpirationClaim(value: expiresAt)
        iss = IssuerClaim(value: Self.issuer)
    }

    /// Signature checks happen in jwt-kit; time is checked by ``TokenIssuer`` against the
    /// injected clock, so nothing here reads the system time.
    public func verify(using algorithm: some JWTAlgorithm) async throws {
        guard iss.value == Self.issuer else {
            throw JWTError.claimVerificationFailure(failedClaim: iss, reason: "foreign issuer")
        }
    }
}
