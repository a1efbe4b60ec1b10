import Foundation
import LoadgenKit

exit(await Loadgen.main(Array(CommandLine.arguments.dropFirst())))
