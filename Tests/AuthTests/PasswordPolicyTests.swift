import AuthService
import Contract
import Testing

@Suite("Password policy (Gifter 5.2.2.1)")
struct PasswordPolicyTests {
    let policy = try! AuthService.passwordPolicy()

    @Test("at least 8 characters, a digit and a capital letter")
    func rules() {
        #expect(policy.violations("Lund2026x").isEmpty)
        #expect(policy.violations("Ab1defg") == [.tooShort])
        #expect(policy.violations("abcdefgh1") == [.missingCapital])
        #expect(policy.violations("Abcdefghi") == [.missingDigit])
        #expect(policy.violations("abc") == [.tooShort, .missingDigit, .missingCapital])
    }

    @Test("the error names every rule that failed")
    func message() throws {
        do {
            try policy.check("abc")
            Issue.record("must throw")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("at least 8 characters"))
            #expect(error.message.contains("a digit"))
            #expect(error.message.contains("a capital letter"))
            #expect(error.details?["rules"] == .array(["too_short", "missing_digit", "missing_capital"]))
        }
    }

    @Test("long passwords are accepted (128 and more), absurd ones are not")
    func length() {
        let long = "Aa1" + String(repeating: "x", count: 125)
        #expect(long.count == 128)
        #expect(policy.violations(long).isEmpty)
        #expect(policy.violations("Aa1" + String(repeating: "x", count: 300)) == [.tooLong])
    }

    @Test("the most common passwords are refused however they are capitalised")
    func common() {
        #expect(policy.commonPasswords.count >= 1000)
        #expect(policy.violations("Password1").contains(.tooCommon))
        #expect(policy.violations("Baseball1").contains(.tooCommon) == policy.commonPasswords.contains("baseball1"))
        #expect(!policy.violations("Hälsningar-från-Lund-7").contains(.tooCommon))
    }

    @Test("digits and capitals from other scripts count")
    func unicode() {
        #expect(policy.violations("ÅngströmX٣ab").isEmpty)
    }
}

@Suite("Usernames")
struct UsernameTests {
    @Test("compared case-insensitively after trimming")
    func canonical() throws {
        #expect(try Username("  Ann@Example.ORG ").value == "ann@example.org")
        #expect(try Username("Ann@example.org") == Username("ann@EXAMPLE.org"))
        #expect(try Username("ann@example.org").isEmail)
        #expect(try !Username("ann_b").isEmail)
    }

    @Test(
        "something that looks like an e-mail address must be one",
        arguments: [
            "ann@", "@example.org", "ann@example", "ann@@example.org", "an n@example.org", "ann@exa_mple.org",
            "ann@example.c", "ann.@example.org", "ann@-example.org",
        ])
    func invalidEmails(_ address: String) {
        #expect(throws: ServiceError.self) { try Username(address) }
    }

    @Test("plain usernames: 3+ characters of letters, digits, '.', '_' and '-'")
    func plain() {
        #expect(throws: ServiceError.self) { try Username("ab") }
        #expect(throws: ServiceError.self) { try Username("   ") }
        #expect(throws: ServiceError.self) { try Username("ann b") }
        #expect((try? Username("ann.b-c_d")) != nil)
    }
}
