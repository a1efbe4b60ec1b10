import Foundation
import UpKit

exit(Up.main(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
