import Contract

/// One thing wrong with a postage file: where (line, element) and what.
public struct PostageProblem: Sendable, Hashable, CustomStringConvertible {
    /// 1-based line in the file, 0 when the parser could not tell.
    public var line: Int
    /// The element's name, without namespace, or `nil` for the document as a whole.
    public var element: String?
    /// What is wrong, in plain words.
    public var message: String

    /// Creates a problem.
    public init(line: Int, element: String?, _ message: String) {
        self.line = line
        self.element = element
        self.message = message
    }

    public var description: String {
        "line \(line)" + (element.map { ", element <\($0)>" } ?? "") + ": \(message)"
    }

    /// The `invalid_argument` answer for a file with `problems` (the first one in the message,
    /// all of them in `details.problems`).
    public static func error(_ problems: [PostageProblem]) -> ServiceError {
        let first = problems.first ?? PostageProblem(line: 0, element: nil, "the file is empty")
        let more = problems.count > 1 ? " (and \(problems.count - 1) more problem(s))" : ""
        return ServiceError(
            .invalidArgument, "postage file rejected: \(first)\(more)",
            details: [
                "line": .number(Double(first.line)), "element": first.element.map { .string($0) } ?? .null,
                "problems": .array(
                    problems.prefix(50).map {
                        .object([
                            "line": .number(Double($0.line)), "element": $0.element.map { .string($0) } ?? .null,
                            "message": .string($0.message),
                        ])
                    }),
            ])
    }
}
