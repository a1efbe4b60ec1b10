import Foundation

exit(await SyncBench.main(Array(CommandLine.arguments.dropFirst())))
