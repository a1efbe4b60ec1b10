import ArgumentParser
import AuthContract
import Foundation
import ServiceKit

/// `create-admin`: auth's `ensure_admin`, what ADMIN_USERNAME / ADMIN_PASSWORD do when auth
/// starts, asked of a running auth. The password never comes from the command line (where `ps`
/// and shell history would show it) and is never printed.
struct CreateAdmin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-admin",
        abstract: "Create an admin account, or give an existing account the admin role and this password.",
        discussion: """
            The password is read from --password-file, else ADMIN_PASSWORD, else the file ADMIN_PASSWORD_FILE \
            names (trailing line breaks dropped). auth applies its password rules.
            """)

    /// The password's environment variable, a secret (so `ADMIN_PASSWORD_FILE` is read too).
    static let password = Setting("ADMIN_PASSWORD", default: nil, "the admin account's password", secret: true)

    @Option(help: "The account's username (an e-mail address or a name).")
    var username: String

    @Option(help: "A file holding the password.")
    var passwordFile: String?

    @OptionGroup var bus: BusOptions

    func run() async throws {
        let password = try await guarded { try readPassword() }
        let request = Auth.EnsureAdmin.Request(username: username, password: password)
        let reply = try await AdminBus.with { [bus] client in
            try await client.call(Auth.EnsureAdmin.self, request, metadata: AdminBus.metadata(), timeout: bus.duration)
        }
        print("admin account \(username) ready (user id \(reply.userId))")
    }

    /// The password from --password-file or the environment; none is a usage error (64).
    func readPassword() throws -> String {
        if let passwordFile {
            guard let data = FileManager.default.contents(atPath: passwordFile) else {
                throw ValidationError("--password-file \(passwordFile) cannot be read")
            }
            var text = String(decoding: data, as: UTF8.self)
            while text.last?.isNewline == true { text.removeLast() }
            guard !text.isEmpty else { throw ValidationError("--password-file \(passwordFile) is empty") }
            return text
        }
        let environment = try ProcessEnvironment.process.readingSecretFiles([Self.password])
        guard let password = environment.explicit(Self.password.name) else {
            throw ValidationError("no password: give --password-file, ADMIN_PASSWORD or ADMIN_PASSWORD_FILE")
        }
        return password
    }
}
