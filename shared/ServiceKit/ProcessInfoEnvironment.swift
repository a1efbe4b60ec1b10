import Foundation

enum ProcessInfoEnvironment {
    static func current() -> [String: String] { ProcessInfo.processInfo.environment }
}
