import Foundation

exit(await SocialBench.main(Array(CommandLine.arguments.dropFirst())))
