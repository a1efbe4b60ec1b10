import Testing

/// The ledger behind the log scan finds what it should, so that a clean scan means something.
@Suite("secret ledger")
struct SecretLedgerTests {
    @Test("secrets sent and received are noted, and found in a log line that carries one")
    func notesAndFinds() {
        let token = "ledger-test-token-\(UInt64.random(in: 1...UInt64.max))"
        let password = "Ledger\(UInt32.random(in: 1...UInt32.max))x"
        let card = "4000056655665556"
        SecretLedger.note(
            headers: ["Authorization": "Bearer \(token)"],
            body: #"{"username": "a@example.org", "password": "\#(password)", "card": {"number": "\#(card)"}}"#,
            response: "HTTP/1.1 200 OK\r\n\r\n{\"refreshToken\": \"refresh-\(token)\"}")
        #expect(SecretLedger.hits(in: #"{"msg": "http", "path": "/v1/me"}"#).isEmpty)
        #expect(
            SecretLedger.hits(in: #"{"error": "request with Authorization: Bearer \#(token)"}"#).contains(
                "bearer token"))
        #expect(SecretLedger.hits(in: "password=\(password)").contains("password"))
        #expect(SecretLedger.hits(in: "card \(card)").contains("number"))
        #expect(SecretLedger.hits(in: "refresh-\(token)").contains("refreshToken"))
    }
}
